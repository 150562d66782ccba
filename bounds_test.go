package robotsext

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/lifecycle"
)

// End-to-end tests of issue 11's bounds under load: the cache's memory
// bound, the robots.txt fetch concurrency bound, redirect hops to paced
// hosts under Colly's request timeout, the pace at the wire under CPU load,
// and local errors. Real collectors talk to real httptest servers; many
// host names reach one loopback server through a DialContext that ignores
// the address asked for, on the collector's transport and on the
// Extension's client alike.

// ---- many hosts, one server ----

// dialTo returns a DialContext that connects to addr whatever host and
// port are asked for.
func dialTo(addr string) func(ctx context.Context, network, _ string) (net.Conn, error) {
	var d net.Dialer
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		return d.DialContext(ctx, "tcp", addr)
	}
}

// wireTo returns a transport that sends every request to srv, closed when
// the test ends.
func wireTo(t *testing.T, srv *httptest.Server) *http.Transport {
	t.Helper()
	tr := &http.Transport{DialContext: dialTo(srv.Listener.Addr().String()), MaxIdleConnsPerHost: 2}
	t.Cleanup(tr.CloseIdleConnections)
	return tr
}

// crawler is a collector and its Extension, both wired to one server.
type crawler struct {
	c          *colly.Collector
	ext        *Extension
	pages, bot *http.Transport // the collector's and the Extension's
}

// quiet is a logger that drops everything.
func quiet() Option { return WithLogger(slog.New(slog.DiscardHandler)) }

// newCrawler builds a collector (Async when async) whose requests, and
// whose Extension's robots.txt requests, all reach srv. The crawl is
// bounded by crawlContext so that a bug fails instead of hanging. Hosts
// are not paced by default (WithDefaultDelay(0)): a test of the pace
// states its Crawl-delay.
func newCrawler(t *testing.T, srv *httptest.Server, async bool, opts ...Option) *crawler {
	t.Helper()
	cr := &crawler{pages: wireTo(t, srv), bot: wireTo(t, srv)}
	cr.c = colly.NewCollector(colly.Async(async), colly.StdlibContext(crawlContext(t)))
	cr.c.WithTransport(cr.pages)
	cr.ext = Apply(cr.c, append([]Option{quiet(), WithDefaultDelay(0), WithHTTPClient(&http.Client{Transport: cr.bot})}, opts...)...)
	return cr
}

// hangUp closes every connection of the crawl, both ends, so that their
// buffers are garbage.
func (cr *crawler) hangUp(srv *httptest.Server) {
	cr.pages.CloseIdleConnections()
	cr.bot.CloseIdleConnections()
	srv.CloseClientConnections()
}

// visit visits each URL and waits for the collector.
func (cr *crawler) visit(t *testing.T, urls ...string) {
	t.Helper()
	for _, u := range urls {
		if err := cr.c.Visit(u); err != nil {
			t.Errorf("Visit(%s): %v", u, err)
		}
	}
	cr.c.Wait()
}

// hostURLs returns http://<prefix>NNN.test<path> for n hosts.
func hostURLs(prefix string, n int, path string) []string {
	urls := make([]string, n)
	for i := range urls {
		urls[i] = fmt.Sprintf("http://%s%03d.test%s", prefix, i, path)
	}
	return urls
}

// tinyPage answers a page request.
func tinyPage(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html")
	io.WriteString(w, "<html><body>page</body></html>")
}

// ---- 1. the cache's memory bound ----

// bigRobots is a robots.txt of just under size bytes made of rules of
// 60-odd bytes each (literal and wildcard Disallow and Allow lines: long
// enough to keep the parse quick under -race; MaxBodySize makes some 7,600),
// whose "*" group disallows /blocked.
func bigRobots(size int) []byte {
	var b strings.Builder
	b.WriteString("User-agent: *\nDisallow: /blocked\n")
	pad := strings.Repeat("x", 40)
	for i := 0; ; i++ {
		var line string
		switch i % 4 {
		case 0:
			line = fmt.Sprintf("Disallow: /archive/%07d/%s\n", i, pad)
		case 1:
			line = fmt.Sprintf("Allow: /archive/%07d/%s/public\n", i, pad)
		case 2:
			line = fmt.Sprintf("Disallow: /*/tmp%07d*%s.php$\n", i, pad)
		default:
			line = fmt.Sprintf("Disallow: /search?q=%07d&%s\n", i, pad)
		}
		if b.Len()+len(line) > size-64 {
			break
		}
		b.WriteString(line)
	}
	return []byte(b.String())
}

// bigSite serves body as every host's robots.txt, and a tiny page for
// everything else; blocked pages reaching it are counted.
func bigSite(t *testing.T, body []byte) (*httptest.Server, *atomic.Int32, *atomic.Int32) {
	t.Helper()
	var robots, blocked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			robots.Add(1)
			w.Header().Set("Content-Type", "text/plain")
			w.Write(body)
		case "/blocked":
			blocked.Add(1)
			tinyPage(w)
		default:
			tinyPage(w)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &robots, &blocked
}

// heapAlloc is the live heap after two collections (the second empties
// what sync.Pools dropped in the first).
func heapAlloc() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// heapRun is what one crawl of big robots.txt files left behind.
type heapRun struct {
	growth int64 // live heap after the crawl minus before, the Extension still referenced
	stats  Stats
}

// crawlBigOrigins crawls one page on each of origins hosts serving body as
// robots.txt, with WithCacheMemory(bound), and measures the heap the crawl
// left behind while the collector and the Extension are still alive.
func crawlBigOrigins(t *testing.T, body []byte, origins int, bound int64) heapRun {
	t.Helper()
	srv, robots, _ := bigSite(t, body)
	cr := newCrawler(t, srv, true, WithCacheMemory(bound))
	if err := cr.c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 16}); err != nil {
		t.Fatal(err)
	}
	urls := hostURLs("big", origins, "/page")
	before := heapAlloc()
	cr.visit(t, urls...)
	cr.hangUp(srv)
	growth := heapAlloc() - before
	run := heapRun{growth: growth, stats: cr.ext.Stats()}
	runtime.KeepAlive(cr)
	if got := robots.Load(); got != int32(origins) {
		t.Errorf("bound %d MiB: server saw %d robots.txt requests, want one per origin (%d)", bound>>20, got, origins)
	}
	return run
}

// heapSlack is what the crawl itself may leave on the heap besides the
// cache: Colly's visited set and the collector's and transports' state for
// 100 hosts (a few hundred KiB), plus the allocator's and the GC's
// rounding. Measured at 0.6 MiB; 3 MiB leaves room for other runtimes.
const heapSlack = 3 << 20

// TestBoundsCacheMemoryHoldsHeap proves that WithCacheMemory bounds the
// heap the cache retains, not just its estimate: 80 origins each serve a
// 128 KiB robots.txt (some 15 MiB of policies, close to four times the
// bound); with a 4 MiB bound, Stats().CacheBytes stays within the bound
// and the live heap grows by at most the bound plus heapSlack, while an
// unbounded cache over 100 of those origins grows it more than three
// times the bound (so the first half can fail), and CacheBytes matches
// the heap the policies really retain within 20%. The subject is the
// ratio of the bytes kept to the bound, not their number: files of a
// quarter of MaxBodySize under a quarter of the bound parse in a quarter
// of the time under -race. Not parallel: it measures the heap.
func TestBoundsCacheMemoryHoldsHeap(t *testing.T) {
	// The bounded run crawls enough origins to fill the bound nearly four
	// times over (each file parses to some 0.19 MiB): an eviction that
	// left the policy on the heap would show as twice the bound plus the
	// slack. The control crawls more, so that its growth clears 3× the
	// bound with room to spare. Both counts and the file are kept small:
	// parsing dominates the time under -race.
	const origins, controlOrigins, bound, size = 80, 100, 4 << 20, 128 << 10
	body := bigRobots(size)
	t.Logf("robots.txt: %d bytes, %d lines", len(body), strings.Count(string(body), "\n"))

	bounded := crawlBigOrigins(t, body, origins, bound)
	control := crawlBigOrigins(t, body, controlOrigins, 1<<40)
	t.Logf("bound %d MiB: heap growth %.1f MiB, CacheBytes %.1f MiB, %d origins kept, %d evictions",
		bound>>20, mib(bounded.growth), mib(bounded.stats.CacheBytes), bounded.stats.Origins, bounded.stats.Evictions)
	t.Logf("control (no bound): heap growth %.1f MiB, CacheBytes %.1f MiB, %d origins kept",
		mib(control.growth), mib(control.stats.CacheBytes), control.stats.Origins)

	if got := bounded.stats.CacheBytes; got > bound {
		t.Errorf("Stats().CacheBytes = %d, above the bound %d", got, bound)
	}
	if bounded.growth > bound+heapSlack {
		t.Errorf("heap grew %.1f MiB with WithCacheMemory(%d MiB); want at most the bound + %d MiB slack",
			mib(bounded.growth), bound>>20, heapSlack>>20)
	}
	if bounded.stats.Origins == 0 || bounded.stats.Origins >= origins || bounded.stats.Evictions == 0 {
		t.Errorf("bounded cache kept %d of %d origins with %d evictions; want some kept, some evicted",
			bounded.stats.Origins, origins, bounded.stats.Evictions)
	}
	// The control: without the bound the same crawl keeps every origin and
	// the heap grows far beyond the bound, so the check above has teeth.
	if control.stats.Origins != controlOrigins {
		t.Errorf("control kept %d origins, want all %d", control.stats.Origins, controlOrigins)
	}
	if control.growth < 3*bound {
		t.Errorf("control heap growth %.1f MiB is not far beyond the bound (%d MiB): the bounded run proves nothing",
			mib(control.growth), bound>>20)
	}
	// The cache evicts by its estimate: it must be close to what the
	// policies really retain, or the bound is a fiction.
	if est, real := float64(control.stats.CacheBytes), float64(control.growth); est < 0.8*real || est > 1.25*real {
		t.Errorf("control: CacheBytes %.1f MiB vs heap growth %.1f MiB; the estimate is off by more than 20%%", mib(control.stats.CacheBytes), mib(control.growth))
	}
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// TestBoundsPolicyLargerThanCacheIsObeyed proves that a robots.txt whose
// policy is larger than the whole WithCacheMemory bound still decides the
// requests that waited for its fetch (the disallowed ones never reach the
// server) but is not kept: the cache stays empty and the next request
// fetches robots.txt again.
func TestBoundsPolicyLargerThanCacheIsObeyed(t *testing.T) {
	t.Parallel()
	const bound = 64 << 10 // far below one 500 KiB file's policy
	srv, robots, blockedHits := bigSite(t, bigRobots(MaxBodySize))
	cr := newCrawler(t, srv, true, WithCacheMemory(bound))
	var blocked blockLog
	cr.ext.OnBlocked(blocked.record)

	// Five requests wait for the one fetch together; all are disallowed.
	cr.visit(t, hostURLs("huge", 1, "/blocked?a")[0], hostURLs("huge", 1, "/blocked?b")[0],
		hostURLs("huge", 1, "/blocked?c")[0], hostURLs("huge", 1, "/blocked?d")[0], hostURLs("huge", 1, "/blocked?e")[0])
	urls, vs := blocked.get()
	if len(vs) != 5 {
		t.Fatalf("OnBlocked saw %q, want the 5 /blocked requests", urls)
	}
	for i, v := range vs {
		if v.Allowed || v.Reason != ReasonDisallowRule || v.Rule != "/blocked" || v.Line != 2 {
			t.Errorf("%s: verdict %+v, want disallowed by line 2 (/blocked)", urls[i], v)
		}
	}
	if n := blockedHits.Load(); n != 0 {
		t.Errorf("server saw /blocked %d times; the oversized policy was not obeyed", n)
	}
	s := cr.ext.Stats()
	if s.Origins != 0 || s.CacheBytes != 0 {
		t.Errorf("after the fetch: %d origins, %d bytes cached; want nothing (policy larger than the bound)", s.Origins, s.CacheBytes)
	}
	fetched := robots.Load()

	// Not kept: the next request fetches robots.txt again, and obeys it.
	cr.visit(t, hostURLs("huge", 1, "/page")[0], hostURLs("huge", 1, "/blocked?f")[0])
	if got := robots.Load(); got <= fetched {
		t.Errorf("robots.txt fetched %d times after the first %d; want it fetched again", got, fetched)
	}
	if n := blockedHits.Load(); n != 0 {
		t.Errorf("server saw /blocked %d times after the re-fetch", n)
	}
	if s := cr.ext.Stats(); s.Origins != 0 || s.CacheBytes != 0 || s.Blocked[ReasonDisallowRule] != 6 {
		t.Errorf("Stats: %d origins, %d bytes, %d blocked; want 0, 0, 6", s.Origins, s.CacheBytes, s.Blocked[ReasonDisallowRule])
	}
}

// ---- 2. the robots.txt fetch concurrency bound ----

// inFlight counts the requests a server is handling at once and keeps
// the maximum.
type inFlight struct{ now, max atomic.Int32 }

func (f *inFlight) enter() {
	n := f.now.Add(1)
	for m := f.max.Load(); n > m && !f.max.CompareAndSwap(m, n); m = f.max.Load() {
	}
}

func (f *inFlight) leave() { f.now.Add(-1) }

// TestBoundsFetchConcurrency proves that WithFetchConcurrency bounds the
// robots.txt requests the server handles at once: an Async collector
// without any LimitRule visits 100 hosts at once (three times the default
// bound: more would only add to the time under -race), each robots.txt answer
// takes 10 ms so that fetches overlap, and the server-side maximum of
// concurrent robots.txt handlers reaches the bound (the crawl really was
// concurrent) and never exceeds the hard bound (a fetch without headers
// after 100 ms turns slow and stops counting, up to 32 × the bound of
// them), for the default (32) and for 4.
func TestBoundsFetchConcurrency(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		opts  []Option
		bound int32
	}{
		{"default", nil, defaultFetchConcurrency},
		{"WithFetchConcurrency(4)", []Option{WithFetchConcurrency(4)}, 4},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			const hosts = 100
			var robots inFlight
			var pages atomic.Int32
			// The first answers are held until the bound is reached
			// (or 5 s pass), so that the crawl provably fills every
			// slot however slowly this machine starts goroutines; then
			// answers take 10 ms, so that fetches keep overlapping.
			full := make(chan struct{})
			var fullOnce sync.Once
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/robots.txt" {
					pages.Add(1)
					tinyPage(w)
					return
				}
				robots.enter()
				defer robots.leave()
				if robots.now.Load() >= tt.bound {
					fullOnce.Do(func() { close(full) })
				}
				select {
				case <-full:
				case <-time.After(5 * time.Second):
				}
				time.Sleep(10 * time.Millisecond)
				io.WriteString(w, "User-agent: *\nDisallow: /private\n")
			}))
			t.Cleanup(srv.Close)
			cr := newCrawler(t, srv, true, tt.opts...)
			cr.visit(t, hostURLs("fan", hosts, "/")...)

			got := robots.max.Load()
			t.Logf("%s: at most %d robots.txt requests in flight at the server (bound %d)", tt.name, got, tt.bound)
			// A fetch held past its wait for headers (lifecycle.MinSlowAfter
			// at first) stops counting against the bound.
			if hard := tt.bound * (1 + lifecycle.SlowFactor); got > hard {
				t.Errorf("%d robots.txt requests in flight at once, above the hard bound %d", got, hard)
			}
			if got < tt.bound {
				t.Errorf("at most %d robots.txt requests in flight; the crawl never reached the bound %d, so it proves nothing", got, tt.bound)
			}
			if n := pages.Load(); n != hosts {
				t.Errorf("server saw %d pages, want %d", n, hosts)
			}
			if s := cr.ext.Stats(); s.Fetches[OutcomeOK] != hosts || s.LocalErrors != 0 {
				t.Errorf("Stats: %d OK fetches, %d local errors; want %d and 0", s.Fetches[OutcomeOK], s.LocalErrors, hosts)
			}
		})
	}
}

// ---- 3. redirect hops to paced hosts under Colly's request timeout ----

// shiftedClock is the real clock set back by an offset until release is
// called. A robots.txt fetched and answered before release counts as a
// request that started and ended that long ago, so the first page need not
// wait a whole Crawl-delay; every wait after release is a real one.
type shiftedClock struct{ back atomic.Int64 }

func (c *shiftedClock) now() time.Time { return time.Now().Add(-time.Duration(c.back.Load())) }
func (c *shiftedClock) release()       { c.back.Store(0) }

// sleep moves the clock on by d at once, instead of waiting d of real time.
func (c *shiftedClock) sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.back.Add(-int64(max(d, 0)))
	return nil
}

// arrivalLog records when each path first reached a server, by now.
type arrivalLog struct {
	now func() time.Time
	mu  sync.Mutex
	at  map[string]time.Time
}

func (a *arrivalLog) mark(path string) {
	now := a.now()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.at == nil {
		a.at = map[string]time.Time{}
	}
	if _, ok := a.at[path]; !ok {
		a.at[path] = now
	}
}

func (a *arrivalLog) get(path string) (time.Time, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.at[path]
	return t, ok
}

// TestBoundsRedirectHopToPacedHost proves that a same-host redirect
// (/dir → /dir/) on a host with a Crawl-delay is followed under a
// request timeout that covers the whole redirect chain, with the delay
// holding at the server between /dir and /dir/. With Crawl-delay: 1,
// under Colly's default 10 s timeout, the hop waits for its slot inside
// the redirect chain (no error at all); with Crawl-delay: 6 the wait is
// above hopInlineMax (5 s) and longer than the request timeout, so the
// original request reaches OnError once with an error wrapping
// ErrRedirectDeferred and the hop is re-issued as a request of its own,
// reaching OnResponse. The collectors have no context deadline. The
// second one's request timeout is 4 s (SetRequestTimeout), standing for
// Colly's default 10 s. The inline hop waits its real second, under the
// real timeout: that is the case whose subject is real time. The
// deferred one's subject is the decision and the re-issue, so the
// re-issued hop's wait for its slot moves the Extension's clock on
// instead of sleeping, and the server reads that clock: the 6 s gap is
// kept on it, and a hop followed inline instead of deferred still fails
// the test (no error, no deferral counted), without 6 s of real time.
func TestBoundsRedirectHopToPacedHost(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		delay    time.Duration
		timeout  time.Duration // the collector's request timeout; 0: Colly's default (10 s)
		deferred bool
	}{
		{"Crawl-delay 1: followed inside the chain", time.Second, 0, false},
		{"Crawl-delay 6: deferred and re-issued", 6 * time.Second, 4 * time.Second, true},
	} {
		if tt.deferred && (tt.delay <= hopInlineMax || tt.timeout <= 0 || tt.delay <= tt.timeout) {
			t.Fatalf("%s: the delay %v must exceed hopInlineMax %v and the request timeout %v", tt.name, tt.delay, hopInlineMax, tt.timeout)
		}
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := &shiftedClock{}
			clk.back.Store(int64(tt.delay))
			seen := arrivalLog{now: time.Now}
			opts := []Option{quiet(), WithClock(clk.now)}
			if tt.deferred {
				seen.now = clk.now
				opts = append(opts, withSleep(clk.sleep))
			}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				seen.mark(r.URL.Path)
				switch r.URL.Path {
				case "/robots.txt":
					fmt.Fprintf(w, "User-agent: *\nCrawl-delay: %g\n", tt.delay.Seconds())
				case "/dir":
					http.Redirect(w, r, "/dir/", http.StatusMovedPermanently)
				default:
					tinyPage(w)
				}
			}))
			t.Cleanup(srv.Close)

			c := colly.NewCollector() // no deadline
			if tt.timeout > 0 {
				c.SetRequestTimeout(tt.timeout)
			}
			c.WithTransport(wireTo(t, srv))
			ext := Apply(c, append(opts, WithHTTPClient(&http.Client{Transport: wireTo(t, srv)}))...)
			var mu sync.Mutex
			var errs []error
			var responses []string
			c.OnError(func(_ *colly.Response, err error) {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			})
			c.OnResponse(func(r *colly.Response) {
				mu.Lock()
				responses = append(responses, r.Request.URL.Path)
				mu.Unlock()
			})
			// robots.txt is fetched and answered tt.delay ago, as the
			// Extension sees it, so /dir goes out at once and the only
			// wait is the hop's.
			if _, err := ext.Check("http://paced.test/dir"); err != nil {
				t.Fatalf("Check: %v", err)
			}
			clk.release()
			if err := c.Visit("http://paced.test/dir"); err != nil && !errors.Is(err, ErrRedirectDeferred) {
				t.Errorf("Visit: %v", err)
			}
			c.Wait()

			mu.Lock()
			defer mu.Unlock()
			dir, okDir := seen.get("/dir")
			hop, okHop := seen.get("/dir/")
			if !okDir || !okHop {
				t.Fatalf("server saw /dir: %v, /dir/: %v (errors %v); want both", okDir, okHop, errs)
			}
			gap := hop.Sub(dir)
			t.Logf("server-side gap /dir → /dir/: %v (Crawl-delay %v)", gap, tt.delay)
			if gap < tt.delay {
				t.Errorf("/dir/ arrived %v after /dir, want at least the Crawl-delay %v", gap, tt.delay)
			}
			if !slices.Equal(responses, []string{"/dir/"}) {
				t.Errorf("OnResponse saw %q, want [/dir/]", responses)
			}
			var deferredErrs int
			for _, err := range errs {
				if errors.Is(err, ErrRedirectDeferred) {
					deferredErrs++
					var d *DeferredRedirectError
					if !errors.As(err, &d) || !strings.HasSuffix(d.URL, "/dir/") {
						t.Errorf("deferral error %v: want a *DeferredRedirectError for /dir/", err)
					}
				}
			}
			want := 0
			if tt.deferred {
				want = 1
			}
			if deferredErrs != want || len(errs) != want {
				t.Errorf("OnError got %v; want exactly %d error(s) wrapping ErrRedirectDeferred", errs, want)
			}
			if got := ext.Stats().RedirectsDeferred; got != uint64(want) {
				t.Errorf("Stats().RedirectsDeferred = %d, want %d", got, want)
			}
		})
	}
}

// ---- 4. the pace at the wire under CPU load ----

// spin keeps n goroutines computing until stop is called.
func spin(n int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			x := 0
			for {
				select {
				case <-done:
					runtime.KeepAlive(x)
					return
				default:
				}
				for i := range 10000 {
					x += i
				}
			}
		})
	}
	return func() { close(done); wg.Wait() }
}

// wireSlack is how much closer than the Crawl-delay two arrivals may be
// seen at the server: the handler reads the clock when its goroutine
// runs, so loopback delivery and scheduling jitter between two requests
// shift the recorded gap by up to about a millisecond. It keeps the
// check a lower bound; there is no upper bound.
const wireSlack = 2 * time.Millisecond

// arrivalServerEnv makes the test binary, run again, serve as the
// arrival server of TestBoundsPaceAtTheWireUnderCPULoad.
const arrivalServerEnv = "ROBOTSEXT_ARRIVAL_SERVER"

// arrival is one request as the arrival server saw it.
type arrival struct {
	Path string
	At   int64 // UnixNano, read at handler entry
}

// TestBoundsArrivalServer is not a test of its own: it is the server of
// TestBoundsPaceAtTheWireUnderCPULoad, run in a process of its own so that
// the goroutines spinning in the crawler's process cannot delay the
// server's clock readings (in one process they shifted arrivals by up to
// 100 ms, measuring the Go scheduler, not the pace). It serves robots.txt
// with Crawl-delay: 0.1 and tiny pages, records arrivals, answers
// /arrivals with them, prints its address and exits when stdin closes.
func TestBoundsArrivalServer(t *testing.T) {
	if os.Getenv(arrivalServerEnv) != "1" {
		t.Skip("the arrival server of TestBoundsPaceAtTheWireUnderCPULoad, run as its own process")
	}
	var mu sync.Mutex
	var seen []arrival
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now().UnixNano()
		switch r.URL.Path {
		case "/arrivals":
			mu.Lock()
			defer mu.Unlock()
			json.NewEncoder(w).Encode(seen)
			return
		case "/robots.txt":
			io.WriteString(w, "User-agent: *\nCrawl-delay: 0.1\n")
		default:
			tinyPage(w)
		}
		mu.Lock()
		seen = append(seen, arrival{r.URL.Path, now})
		mu.Unlock()
	}))
	defer srv.Close()
	fmt.Println(srv.Listener.Addr().String())
	io.Copy(io.Discard, os.Stdin)
}

// arrivalServer starts TestBoundsArrivalServer in a process of its own and
// returns its address and a function fetching what it saw.
func arrivalServer(t *testing.T) (addr string, arrivals func() []arrival) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBoundsArrivalServer$")
	// The race detector's runtime sleeps a second at exit by default
	// (atexit_sleep_ms); the server has nothing to report late.
	cmd.Env = append(os.Environ(), arrivalServerEnv+"=1", "GORACE="+strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("arrival server: %v", err)
	}
	addr = strings.TrimSpace(line)
	return addr, func() []arrival {
		resp, err := http.Get("http://" + addr + "/arrivals")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var seen []arrival
		if err := json.NewDecoder(resp.Body).Decode(&seen); err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(seen, func(a, b arrival) int { return cmp.Compare(a.At, b.At) })
		return seen
	}
}

// TestBoundsPaceAtTheWireUnderCPULoad proves that the Crawl-delay is kept
// between the moments requests reach the server while every CPU of the
// crawler's process is busy: GOMAXPROCS×2 goroutines spin during the
// crawl, an Async collector with Parallelism 4 fetches 20 pages of a host
// asking for Crawl-delay: 0.1, and every consecutive pair of server-side
// arrivals (robots.txt included, as it counts as the host's first
// request) is at least 100 ms − wireSlack apart. Its subject is real
// time, so it measures it once: one server process and one collector for
// twenty gaps, as many as three rounds of eight pages gave, without two
// more processes to start (the pacer's arithmetic is internal/pacing's
// unit tests, on a hand-moved clock). Not parallel: it loads the CPU and
// measures time.
func TestBoundsPaceAtTheWireUnderCPULoad(t *testing.T) {
	const delay, pages = 100 * time.Millisecond, 20
	addr, arrivals := arrivalServer(t)
	tr := func() *http.Transport {
		tr := &http.Transport{DialContext: dialTo(addr), MaxIdleConnsPerHost: 2}
		t.Cleanup(tr.CloseIdleConnections)
		return tr
	}
	c := colly.NewCollector(colly.Async(true), colly.StdlibContext(crawlContext(t)))
	c.WithTransport(tr())
	Apply(c, quiet(), WithHTTPClient(&http.Client{Transport: tr()}))
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 4}); err != nil {
		t.Fatal(err)
	}
	stop := spin(runtime.GOMAXPROCS(0) * 2)
	for i := 1; i <= pages; i++ {
		if err := c.Visit(fmt.Sprintf("http://busy.test/p%d", i)); err != nil {
			t.Errorf("Visit: %v", err)
		}
	}
	c.Wait()
	stop()

	seen := arrivals()
	if len(seen) != pages+1 || seen[0].Path != "/robots.txt" {
		t.Fatalf("server saw %v, want /robots.txt then %d pages", seen, pages)
	}
	minGap := time.Duration(1<<63 - 1)
	for i := 1; i < len(seen); i++ {
		gap := time.Duration(seen[i].At - seen[i-1].At)
		minGap = min(minGap, gap)
		if gap < delay-wireSlack {
			t.Errorf("%s arrived %v after %s; want at least %v − %v", seen[i].Path, gap, seen[i-1].Path, delay, wireSlack)
		}
	}
	t.Logf("smallest server-side gap of %d pages under CPU load: %v (Crawl-delay %v)", pages, minGap, delay)
}

// ---- 5. local errors ----

// localFailures is the Extension's transport: its first n round trips
// fail as socket(2) does when this machine is out of descriptors or
// buffers; later ones go to next.
type localFailures struct {
	next  http.RoundTripper
	errno syscall.Errno
	left  atomic.Int32 // failures still to give
	tries atomic.Int32 // round trips asked for
}

func (f *localFailures) RoundTrip(r *http.Request) (*http.Response, error) {
	f.tries.Add(1)
	if f.left.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("socket", f.errno)}
	}
	return f.next.RoundTrip(r)
}

// TestBoundsLocalErrors proves that a robots.txt fetch failing because of
// this machine (EMFILE, ENOBUFS) is not the site's failure: it is retried
// (1 + 3 tries per request), a request whose tries all fail is dropped and
// reported through OnBlocked and Check as ReasonLocalError with the cause
// in Verdict.Err (whatever the FailMode), Stats counts it in LocalErrors,
// nothing is cached against the origin, and the next request fetches
// robots.txt again and goes out once it succeeds.
func TestBoundsLocalErrors(t *testing.T) {
	t.Parallel()
	const tries = 1 + lifecycle.LocalRetries
	for _, tt := range []struct {
		name     string
		errno    syscall.Errno
		failures int32 // round trips that fail before the site is reached
		opts     []Option
		dropped  bool // the first request is dropped
	}{
		{"EMFILE on every try: dropped", syscall.EMFILE, 2 * tries, nil, true},
		{"ENOBUFS on every try: dropped", syscall.ENOBUFS, 2 * tries, nil, true},
		{"EMFILE with FailOpen: still dropped", syscall.EMFILE, 2 * tries, []Option{WithFailMode(FailOpen)}, true},
		{"EMFILE twice, then a slot: the retry fetches", syscall.EMFILE, 2, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var robotsHits atomic.Int32
			var mu sync.Mutex
			var pages []string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					robotsHits.Add(1)
					io.WriteString(w, "User-agent: *\nDisallow: /private\n")
					return
				}
				mu.Lock()
				pages = append(pages, r.URL.Path)
				mu.Unlock()
				tinyPage(w)
			}))
			t.Cleanup(srv.Close)
			fail := &localFailures{next: wireTo(t, srv), errno: tt.errno}
			fail.left.Store(tt.failures)
			// The waits between tries are not the subject (how many tries,
			// and what becomes of the request, are): 1 ms, not 100 ms.
			fast := func(c *config) { c.localRetryWait = time.Millisecond }
			cr := newCrawler(t, srv, false, append(slices.Clone(tt.opts), WithHTTPClient(&http.Client{Transport: fail}), fast)...)
			var blocked blockLog
			cr.ext.OnBlocked(blocked.record)

			cr.visit(t, "http://local.test/first")
			_, vs := blocked.get()
			s := cr.ext.Stats()
			if !tt.dropped {
				if len(vs) != 0 || s.LocalErrors != 0 || fail.tries.Load() != 3 || robotsHits.Load() != 1 {
					t.Errorf("blocked %+v, LocalErrors %d, %d tries, %d robots.txt at the server; want the third try to fetch it",
						vs, s.LocalErrors, fail.tries.Load(), robotsHits.Load())
				}
				mu.Lock()
				defer mu.Unlock()
				if !slices.Equal(pages, []string{"/first"}) {
					t.Errorf("server saw %q, want [/first]", pages)
				}
				return
			}
			if len(vs) != 1 {
				t.Fatalf("OnBlocked saw %+v, want the one dropped request", vs)
			}
			checkLocal(t, "OnBlocked", vs[0], tt.errno)
			if got := fail.tries.Load(); got != tries {
				t.Errorf("%d robots.txt tries for the first request, want %d", got, tries)
			}
			if s.LocalErrors != 1 || s.Blocked[ReasonLocalError] != 1 {
				t.Errorf("LocalErrors %d, Blocked[ReasonLocalError] %d; want 1 and 1", s.LocalErrors, s.Blocked[ReasonLocalError])
			}
			// Nothing cached against the origin, no fetch outcome recorded.
			if s.Origins != 0 || len(s.Fetches) != 0 {
				t.Errorf("after the local error: %d origins cached, fetches %v; want none", s.Origins, s.Fetches)
			}
			// Check tries again (it is not cached) and fails the same way.
			v, err := cr.ext.Check("http://local.test/second")
			if err != nil {
				t.Fatalf("Check: %v", err)
			}
			checkLocal(t, "Check", v, tt.errno)
			if got := fail.tries.Load(); got != 2*tries {
				t.Errorf("%d robots.txt tries after Check, want %d (fetched again)", got, 2*tries)
			}
			// The transport works again: the next request fetches robots.txt
			// and goes out.
			cr.visit(t, "http://local.test/third")
			mu.Lock()
			defer mu.Unlock()
			if !slices.Equal(pages, []string{"/third"}) || robotsHits.Load() != 1 {
				t.Errorf("server saw pages %q and %d robots.txt requests; want [/third] after one fetch", pages, robotsHits.Load())
			}
			if s := cr.ext.Stats(); s.LocalErrors != 2 || s.Origins != 1 || s.Fetches[OutcomeOK] != 1 {
				t.Errorf("Stats: LocalErrors %d, %d origins, fetches %v; want 2, 1, one OK", s.LocalErrors, s.Origins, s.Fetches)
			}
		})
	}
}

// checkLocal asserts that v drops a request because of a local error
// caused by errno.
func checkLocal(t *testing.T, from string, v Verdict, errno syscall.Errno) {
	t.Helper()
	if v.Allowed || v.Reason != ReasonLocalError {
		t.Errorf("%s: verdict %+v, want disallowed with ReasonLocalError", from, v)
	}
	if !errors.Is(v.Err, ErrLocal) || !errors.Is(v.Err, errno) {
		t.Errorf("%s: Verdict.Err = %v, want it to wrap ErrLocal and %v", from, v.Err, errno)
	}
}
