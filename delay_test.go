package robotsext

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/pacing"
)

// TestLimitRules: the pace of each host reads back as a Colly LimitRule
// that matches exactly that host, in any case, port included.
func TestLimitRules(t *testing.T) {
	t.Parallel()
	pc := pacing.New(pacing.Config{MaxDelay: 2 * time.Second})
	now := time.Now()
	pc.Loaded("[::1]:8080", 500*time.Millisecond, true, now)
	pc.Loaded("a.b.example", time.Hour, true, now)
	pc.Loaded("none.example", 0, false, now)

	rs := limitRules(pc.Rules())
	if len(rs) != 2 {
		t.Fatalf("limitRules = %d rules, want 2: %+v", len(rs), rs)
	}
	tests := []struct {
		rule    int
		delay   time.Duration
		match   []string
		noMatch []string
	}{
		{0, 500 * time.Millisecond,
			[]string{"[::1]:8080"},
			[]string{"[::1]:80800", "x[::1]:8080", "[::1]", "::1:8080", "[::2]:8080"}},
		{1, 2 * time.Second, // clamped
			[]string{"a.b.example", "A.B.EXAMPLE"},
			[]string{"aXb.example", "a.b.example:8080", "x.a.b.example", "a.b.examples"}},
	}
	for _, tt := range tests {
		r := rs[tt.rule]
		if r.Delay != tt.delay || r.Parallelism != 1 || r.DomainGlob != "" {
			t.Errorf("rule %d = %+v, want Delay %v, Parallelism 1, no glob", tt.rule, r, tt.delay)
		}
		if err := r.Init(); err != nil {
			t.Fatalf("rule %d (%q) does not initialise: %v", tt.rule, r.DomainRegexp, err)
		}
		for _, h := range tt.match {
			if !r.Match(h) {
				t.Errorf("rule %q does not match %q", r.DomainRegexp, h)
			}
		}
		for _, h := range tt.noMatch {
			if r.Match(h) {
				t.Errorf("rule %q matches %q", r.DomainRegexp, h)
			}
		}
	}
}

// arrivalSlack is how much earlier than the pacer's slot a request may be
// seen to arrive: the pacer spaces the moments requests leave the client,
// the servers record when they arrive, and loopback latency (a fresh dial
// for one request, a reused connection for the next) differs by up to a
// few milliseconds under -race. It keeps the bounds below lower bounds.
const arrivalSlack = 25 * time.Millisecond

// arrivals records when each request reached a test server, and its path.
type arrivals struct {
	mu    sync.Mutex
	times []time.Time
	paths []string
}

func (a *arrivals) snapshot() ([]time.Time, []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.times), slices.Clone(a.paths)
}

// pacedSite starts a loopback server (on ::1 when ipv6) that answers
// /robots.txt with robots and any other path with a tiny page, recording
// arrivals. It reports false when the address family is unavailable.
func pacedSite(t *testing.T, robots string, ipv6 bool) (*httptest.Server, *arrivals, bool) {
	t.Helper()
	a := &arrivals{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		a.mu.Lock()
		a.times, a.paths = append(a.times, now), append(a.paths, r.URL.Path)
		a.mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, robots)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>page</body></html>")
	}))
	if ipv6 {
		l, err := net.Listen("tcp", "[::1]:0")
		if err != nil {
			return nil, nil, false
		}
		srv.Listener.Close()
		srv.Listener = l
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, a, true
}

// checkPace asserts that a saw robots.txt first, then pages pages, the
// first page at least first after robots.txt and each next page at least
// gap after the previous one.
func checkPace(t *testing.T, host string, a *arrivals, pages int, first, gap time.Duration) {
	t.Helper()
	times, paths := a.snapshot()
	if len(times) != pages+1 || paths[0] != "/robots.txt" {
		t.Fatalf("%s: requests %q, want /robots.txt then %d pages", host, paths, pages)
	}
	for i := 1; i < len(times); i++ {
		want := gap
		if i == 1 {
			want = first
		}
		if got := times[i].Sub(times[i-1]); got < want-arrivalSlack {
			t.Errorf("%s: %s arrived %v after %s, want at least %v", host, paths[i], got, paths[i-1], want)
		}
	}
}

// visitAll visits srv's /p1 … /pN and waits for the collector.
func visitAll(t *testing.T, c *colly.Collector, srv *httptest.Server, pages int) {
	t.Helper()
	for i := 1; i <= pages; i++ {
		if err := c.Visit(fmt.Sprintf("%s/p%d", srv.URL, i)); err != nil {
			t.Errorf("Visit: %v", err)
		}
	}
	c.Wait()
}

// crawlContext bounds a crawl, so that a pacing bug fails the test with
// missing requests instead of hanging it.
func crawlContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestCrawlDelayEndToEnd crawls a loopback site through a real collector
// and checks the gaps between arrivals: robots.txt then the pages, each at
// least the effective delay apart, whatever LimitRules the user registered
// before or after Apply.
func TestCrawlDelayEndToEnd(t *testing.T) {
	t.Parallel()
	// Real time: Colly's LimitRule sleeps on the wall clock, and the
	// subject is how its waits and the Extension's add up. The delays are
	// kept short (yet far above the arrival slack) for the suite's sake.
	const cd = 150 * time.Millisecond
	catchAll := func() *colly.LimitRule { return &colly.LimitRule{DomainGlob: "*", Parallelism: 4} }
	slowCatchAll := func() *colly.LimitRule { return &colly.LimitRule{DomainGlob: "*", Delay: 250 * time.Millisecond} }
	tests := []struct {
		name          string
		robots        string
		async, ipv6   bool
		before, after func() *colly.LimitRule // the user's rule, registered before / after Apply
		opts          func(host string) []Option
		pages         int
		first, gap    time.Duration // robots.txt → first page (the capped robots.txt delay); page → page
		clamped       uint64
	}{
		{name: "Crawl-delay, sync", robots: "User-agent: *\nCrawl-delay: 0.15\n",
			pages: 3, first: cd, gap: cd},
		{name: "Crawl-delay, async", robots: "User-agent: *\nCrawl-delay: 0.15\n", async: true,
			pages: 3, first: cd, gap: cd},
		{name: "Request-rate 5/1s, async", robots: "User-agent: colly\nRequest-rate: 5/1s\n", async: true,
			pages: 2, first: 200 * time.Millisecond, gap: 200 * time.Millisecond},
		{name: "user catch-all registered before Apply", robots: "User-agent: *\nCrawl-delay: 0.15\n", async: true,
			before: catchAll, pages: 3, first: cd, gap: cd},
		{name: "user catch-all registered after Apply", robots: "User-agent: *\nCrawl-delay: 0.15\n", async: true,
			after: catchAll, pages: 3, first: cd, gap: cd},
		{name: "slower user rule before Apply wins, sync", robots: "User-agent: *\nCrawl-delay: 0.1\n",
			before: slowCatchAll, pages: 3, first: 100 * time.Millisecond, gap: 250 * time.Millisecond},
		{name: "slower user rule after Apply wins, async", robots: "User-agent: *\nCrawl-delay: 0.1\n", async: true,
			after: slowCatchAll, pages: 3, first: 100 * time.Millisecond, gap: 250 * time.Millisecond},
		{name: "delay above the cap is clamped", robots: "User-agent: *\nCrawl-delay: 3600\n", async: true,
			opts:  func(string) []Option { return []Option{WithMaxCrawlDelay(cd)} },
			pages: 3, first: cd, gap: cd, clamped: 1},
		{name: "override host keeps its Crawl-delay", robots: "User-agent: *\nDisallow: /\nCrawl-delay: 0.15\n", async: true,
			opts:  func(host string) []Option { return []Option{WithOverride(host)} },
			pages: 3, first: cd, gap: cd},
		{name: "IPv6 literal with port", robots: "User-agent: *\nCrawl-delay: 0.15\n", async: true, ipv6: true,
			pages: 2, first: cd, gap: cd},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, arr, ok := pacedSite(t, tt.robots, tt.ipv6)
			if !ok {
				t.Skip("no IPv6 loopback")
			}
			host := strings.TrimPrefix(srv.URL, "http://")
			c := colly.NewCollector(colly.Async(tt.async), colly.StdlibContext(crawlContext(t)))
			if tt.before != nil {
				if err := c.Limit(tt.before()); err != nil {
					t.Fatal(err)
				}
			}
			var opts []Option
			if tt.opts != nil {
				opts = tt.opts(host)
			}
			ext := Apply(c, opts...)
			if tt.after != nil {
				if err := c.Limit(tt.after()); err != nil {
					t.Fatal(err)
				}
			}
			visitAll(t, c, srv, tt.pages)
			checkPace(t, host, arr, tt.pages, tt.first, tt.gap)
			if got := ext.Stats().CrawlDelaysClamped; got != tt.clamped {
				t.Errorf("CrawlDelaysClamped = %d, want %d", got, tt.clamped)
			}
			// The pace reads back as one exact LimitRule for the host.
			rs := ext.LimitRules()
			if len(rs) != 1 || rs[0].Delay != tt.first || rs[0].Parallelism != 1 {
				t.Fatalf("LimitRules() = %+v, want one rule with Delay %v, Parallelism 1", rs, tt.first)
			}
			if err := rs[0].Init(); err != nil || !rs[0].Match(host) || rs[0].Match(host+"0") {
				t.Errorf("rule %q (Init: %v) does not match exactly %q", rs[0].DomainRegexp, err, host)
			}
		})
	}
}

// TestCrawlDelayHostsIndependent crawls a fast and a slow host at once:
// each keeps its own pace, and the slow host's wait does not hold up the
// fast one, whose pages arrive while the slow host is still waiting.
func TestCrawlDelayHostsIndependent(t *testing.T) {
	t.Parallel()
	const fastDelay, slowDelay, pages = 200 * time.Millisecond, 600 * time.Millisecond, 3
	fast, fastArr, _ := pacedSite(t, "User-agent: *\nCrawl-delay: 0.2\n", false)
	slow, slowArr, _ := pacedSite(t, "User-agent: *\nCrawl-delay: 0.6\n", false)

	c := colly.NewCollector(colly.Async(true), colly.StdlibContext(crawlContext(t)))
	Apply(c)
	for i := 1; i <= pages; i++ {
		for _, srv := range []*httptest.Server{slow, fast} {
			if err := c.Visit(fmt.Sprintf("%s/p%d", srv.URL, i)); err != nil {
				t.Errorf("Visit: %v", err)
			}
		}
	}
	c.Wait()

	checkPace(t, "fast", fastArr, pages, fastDelay, fastDelay)
	checkPace(t, "slow", slowArr, pages, slowDelay, slowDelay)
	fastTimes, _ := fastArr.snapshot()
	slowTimes, _ := slowArr.snapshot()
	// slowTimes[1] is the slow host's first page, 0.6 s after its
	// robots.txt; by then the fast host has had time for robots.txt and
	// two pages (at 0, 0.2 and 0.4 s).
	if n := countBefore(fastTimes, slowTimes[1]); n < 2 {
		t.Errorf("only %d fast-host requests arrived before the slow host's first page; want at least 2 (hosts paced together?)", n)
	}
}

func countBefore(ts []time.Time, limit time.Time) int {
	n := 0
	for _, t := range ts {
		if t.Before(limit) {
			n++
		}
	}
	return n
}

// slowRobots answers robots.txt with body after moving clk by took, as a
// fetch that took that long, tdmrep.json with an empty list fresh for the
// shortest lifetime, a minute (its refetches after moving clk by
// tdmTook), and every other URL with a page at once.
type slowRobots struct {
	clk        *stillClock
	took       time.Duration
	tdmTook    time.Duration
	body       string
	tdmFetches *atomic.Int32
}

func (s slowRobots) RoundTrip(req *http.Request) (*http.Response, error) {
	body := "<html></html>"
	header := http.Header{"Content-Type": {"text/plain"}}
	move := time.Duration(0)
	switch req.URL.Path {
	case "/robots.txt":
		move, body = s.took, s.body
	case "/.well-known/tdmrep.json":
		if s.tdmFetches.Add(1) > 1 {
			move = s.tdmTook
		}
		body = "[]"
		header.Set("Cache-Control", "max-age=1")
	}
	if move > 0 {
		s.clk.mu.Lock()
		s.clk.t = s.clk.t.Add(move)
		s.clk.mu.Unlock()
	}
	return &http.Response{StatusCode: 200, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: header, Body: io.NopCloser(strings.NewReader(body)),
		ContentLength: int64(len(body)), Request: req}, nil
}

// TestHookReadsClockAfterWait: the OnRequest hook reads the clock once for
// the robots.txt cache and the pace, and again when a step between them
// may have waited (the robots.txt fetch, or with a purpose the fetch of
// tdmrep.json): a slot is never booked from a reading taken before a
// wait. After a refetch of tdmrep.json taking 5 s, the next page goes at
// once; booked from the reading before the refetch, it would wait 2 s
// for nothing, and the page after it would go at once. (A first page
// waits the delay after robots.txt's answer however its slot was booked:
// the host's turn, internal/pacing/turn.go.)
func TestHookReadsClockAfterWait(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		took      time.Duration   // the robots.txt fetch
		tdmTook   time.Duration   // a refetch of tdmrep.json, with WithPurpose; 0: no purpose
		wantWaits []time.Duration // of three requests in turn, with the fetches' own paces
	}{
		// The first page waits the delay after robots.txt's answer, in
		// the hook (the host's turn) rather than at the gate.
		{"a fetch longer than the delay", 5 * time.Second, 0, []time.Duration{2 * time.Second, 2 * time.Second, 2 * time.Second}},
		{"a fetch that took no time", 0, 0, []time.Duration{2 * time.Second, 2 * time.Second, 2 * time.Second}},
		// The first request waits for tdmrep.json's pace, then its own.
		// A minute later robots.txt is still cached and tdmrep.json is
		// not: its refetch takes 5 s, after which the second page may go
		// at once. Booked from the reading before the refetch, it would
		// wait 2 s, and the third page would go at once.
		{"a tdmrep.json refetch longer than the delay", 0, 5 * time.Second, []time.Duration{4 * time.Second, 0, 2 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := &stillClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), moves: make(chan struct{})}
			close(clk.moves) // moved by the waits and the fetch alone
			var waits []time.Duration
			sleep := func(ctx context.Context, d time.Duration) error {
				waits = append(waits, d)
				return clk.sleep(ctx, d)
			}
			c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; AcmeBot/1.0; +https://acme.example/bot)"))
			opts := []Option{quiet(), WithClock(clk.now), withSleep(sleep), withRand(noJitter),
				WithHTTPClient(&http.Client{Transport: slowRobots{clk: clk, took: tt.took, tdmTook: tt.tdmTook, body: "User-agent: *\nCrawl-delay: 2\n", tdmFetches: new(atomic.Int32)}})}
			if tt.tdmTook > 0 {
				opts = append(opts, WithPurpose(PurposeTrainAI))
			}
			e := Apply(c, opts...)
			var got []time.Duration
			for i := range tt.wantWaits {
				u, _ := url.Parse(fmt.Sprintf("http://slow.test/p%d", i))
				waits = nil
				r := &colly.Request{URL: u, Method: "GET", Headers: &http.Header{}, Ctx: colly.NewContext()}
				e.onRequest(c, r)
				if r.IsAbort() {
					t.Fatalf("request %d aborted", i)
				}
				var w time.Duration
				for _, d := range waits {
					w += d
				}
				got = append(got, w)
				if i == 0 && tt.tdmTook > 0 {
					clk.mu.Lock()
					clk.t = clk.t.Add(61 * time.Second) // past tdmrep.json's lifetime (a minute at least), within robots.txt's
					clk.mu.Unlock()
				}
			}
			if !slices.Equal(got, tt.wantWaits) {
				t.Errorf("waits %v, want %v", got, tt.wantWaits)
			}
		})
	}
}
