package robotsext

// This file is the home of the seams: Apply crossed with the Colly
// features a user combines it with. TestSeams: a cancelled context, a
// retry idiom, a request limit, a depth limit, revisits, a cache
// directory, Async with Wait. TestSeamsAttach: a Clone or a storage
// before or after Apply, a User-Agent changed after Apply.
// TestSeamsPageCache: WithPageCache with a transport replaced, Colly's
// CacheDir, an abort after the claim. Each row crawls a real loopback
// server and asserts what the server saw (requests, their count, their
// gaps) and what the callbacks saw. A seam found later gets a row here.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/gocolly/colly/v2/storage"
	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/internal/pagecache"
)

// seam is one row of TestSeams: setup builds the collector and applies
// the Extension on run, crawl drives it, check asserts on run's server
// and callbacks. site says what the server answers.
type seam struct {
	name  string
	pages int // the run's pages: /p0, /p1, …
	site  seamSiteSpec
	setup func(t *testing.T, s *seamRun)
	crawl func(t *testing.T, s *seamRun)
	check func(t *testing.T, s *seamRun)
}

// seamSiteSpec says what a seamSite answers: robots is robots.txt's body
// (status robotsStatus, 200 when 0); page answers the nth request (from
// 1) to a page path, called with the site's lock not held.
type seamSiteSpec struct {
	robots       string
	robotsStatus int
	page         func(s *seamSite, path string, n int, w http.ResponseWriter)
}

// seamSite is a loopback server that counts, per page path, the requests,
// the 2xx answers and their arrival by the Extension's clock (now).
type seamSite struct {
	*httptest.Server
	now func() time.Time

	mu       sync.Mutex
	requests map[string]int
	ok       map[string]int
	order    []string    // page paths in order of arrival
	at       []time.Time // their arrival by now
	pausedAt time.Time   // when a row's overload answer was given, by now
}

func newSeamSite(t *testing.T, spec seamSiteSpec, now func() time.Time) *seamSite {
	t.Helper()
	s := &seamSite{now: now, requests: map[string]int{}, ok: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			if spec.robotsStatus != 0 {
				w.WriteHeader(spec.robotsStatus)
			}
			fmt.Fprint(w, spec.robots)
			return
		}
		s.mu.Lock()
		s.requests[r.URL.Path]++
		n := s.requests[r.URL.Path]
		s.order = append(s.order, r.URL.Path)
		s.at = append(s.at, s.now())
		s.mu.Unlock()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		if spec.page != nil {
			spec.page(s, r.URL.Path, n, rec)
		} else {
			fmt.Fprint(rec, "<html><body>ok</body></html>")
		}
		if rec.status/100 == 2 {
			s.mu.Lock()
			s.ok[r.URL.Path]++
			s.mu.Unlock()
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// statusRecorder notes the status a handler writes.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(code int) { r.status = code; r.ResponseWriter.WriteHeader(code) }

// counts returns copies of the requests and 2xx answers per page path.
func (s *seamSite) counts() (requests, ok map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	requests, ok = map[string]int{}, map[string]int{}
	for k, v := range s.requests {
		requests[k] = v
	}
	for k, v := range s.ok {
		ok[k] = v
	}
	return requests, ok
}

// seamRun is one row's crawl: the server, the collector and its
// Extension, the clock, and what the callbacks saw.
type seamRun struct {
	site   *seamSite
	clk    *stepClock
	c      *colly.Collector
	ext    *Extension
	cancel context.CancelFunc
	pages  []string // the URLs crawl visits
	took   time.Duration

	mu         sync.Mutex
	responses  map[string]int // OnResponse calls per path, 2xx answers
	errs       []seamError    // OnError calls
	retryErrs  []error        // errors the retry idioms' Retry returned
	requested  atomic.Int64   // OnRequest calls that passed the Extension's hook
	allQueued  chan struct{}  // closed when requested reaches len(pages)
	queuedOnce sync.Once
}

// waitPaced returns once n requests to the site wait for their host's
// turn in the OnRequest hook (Origin's Waiting), or after a minute (a
// guard against a hang: the row then fails on what it sees).
func (s *seamRun) waitPaced(n int) {
	guard := time.Now().Add(time.Minute)
	for time.Now().Before(guard) {
		if o, ok := s.ext.Origin(s.site.URL + "/"); ok && o.Waiting >= n {
			return
		}
		runtime.Gosched()
	}
}

// seamError is one OnError call.
type seamError struct {
	path   string
	status int
	err    error
}

func (s *seamRun) url(path string) string { return s.site.URL + path }

// record registers the callbacks that fill s; call it after Apply, so
// that they run after the Extension's hooks.
func (s *seamRun) record() {
	s.responses = map[string]int{}
	s.allQueued = make(chan struct{})
	s.c.OnRequest(func(r *colly.Request) {
		if !r.IsAbort() && int(s.requested.Add(1)) >= len(s.pages) {
			s.queuedOnce.Do(func() { close(s.allQueued) })
		}
	})
	s.c.OnResponse(func(r *colly.Response) {
		if r.StatusCode/100 != 2 {
			return
		}
		s.mu.Lock()
		s.responses[r.Request.URL.Path]++
		s.mu.Unlock()
	})
	s.c.OnError(func(r *colly.Response, err error) {
		s.mu.Lock()
		s.errs = append(s.errs, seamError{path: r.Request.URL.Path, status: r.StatusCode, err: err})
		s.mu.Unlock()
	})
}

// retried notes the error a retry idiom's Retry returned.
func (s *seamRun) retried(err error) {
	if err != nil {
		s.mu.Lock()
		s.retryErrs = append(s.retryErrs, err)
		s.mu.Unlock()
	}
}

// errors returns a copy of the OnError calls.
func (s *seamRun) errors() []seamError {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seamError(nil), s.errs...)
}

// newSeamRun returns a run on a step clock (the Extension's waits cost
// no real time) against a new server for spec.
func newSeamRun(t *testing.T, spec seamSiteSpec, pages int) *seamRun {
	t.Helper()
	s := &seamRun{clk: &stepClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}
	s.site = newSeamSite(t, spec, s.clk.now)
	for i := range pages {
		s.pages = append(s.pages, s.url(fmt.Sprintf("/p%d", i)))
	}
	return s
}

// TestSeams runs every seam row.
func TestSeams(t *testing.T) {
	t.Parallel()
	var rows []seam
	rows = append(rows, cancelSeams()...)
	rows = append(rows, retrySeams()...)
	rows = append(rows, limitSeams()...)
	rows = append(rows, featureSeams()...)
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			s := newSeamRun(t, row.site, row.pages)
			row.setup(t, s)
			row.crawl(t, s)
			row.check(t, s)
		})
	}
}

// parkedSleep is a hand-moved clock's sleep that never moves on its own:
// each sleep of d > 0 says it began (entered) and ends only with its
// context, so that a wait can end only by the cancel under test.
type parkedSleep struct{ entered chan struct{} }

func newParkedSleep() *parkedSleep { return &parkedSleep{entered: make(chan struct{}, 1024)} }

func (p *parkedSleep) sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	select {
	case p.entered <- struct{}{}:
	default:
	}
	<-ctx.Done()
	return ctx.Err()
}

// waitEntered waits for n sleeps to begin, failing t after a minute (a
// guard against a hang, not a timing assertion).
func (p *parkedSleep) waitEntered(t *testing.T, n int) {
	t.Helper()
	guard := time.NewTimer(time.Minute)
	defer guard.Stop()
	for range n {
		select {
		case <-p.entered:
		case <-guard.C:
			t.Fatalf("fewer than %d waits began in a minute", n)
		}
	}
}

// cancelBound is how long Collector.Wait may take after the collector's
// context is cancelled. The subject here is real time (a cancelled crawl
// must stop now, and a spinning requeue loop shows only in real time), so
// it is measured on the wall clock; the waits end in a few milliseconds,
// and a second, the bound, leaves room for a loaded machine and
// the race detector.
const cancelBound = time.Second

// cancelAndWait cancels the collector's context and runs wait (the
// collector's Wait, after any sync Visits), putting how long it took in
// s.took; it fails t when wait has not returned within 30 × cancelBound.
func (s *seamRun) cancelAndWait(t *testing.T, wait func()) {
	t.Helper()
	t0 := time.Now()
	s.cancel()
	done := make(chan struct{})
	go func() { wait(); close(done) }()
	select {
	case <-done:
		s.took = time.Since(t0)
	case <-time.After(30 * cancelBound):
		t.Fatalf("Wait did not return within %v of the cancel; %d OnError calls so far", 30*cancelBound, len(s.errors()))
	}
}

// cancelCase is one cancel row: async or not, with a backend.Memory or
// not, the robots.txt served, what the first page answers, the options,
// and where the waits are (parked: the Extension's own sleeps, which the
// row counts before it cancels; otherwise the fleet's, which do not use
// them).
type cancelCase struct {
	name    string
	async   bool
	backend bool
	robots  string
	status  int // robots.txt's status, 200 when 0
	first   func(w http.ResponseWriter)
	opts    func(p *parkedSleep) []Option
	waiting int // how many requests wait when the row cancels
}

func cancelSeams() []seam {
	pause10 := func(w http.ResponseWriter) {
		w.Header().Set("Retry-After", "10")
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	parked := func(p *parkedSleep) []Option { return []Option{withSleep(p.sleep)} }
	var rows []seam
	cases := []cancelCase{
		{name: "back-off pause, Async", async: true, robots: "User-agent: *\nCrawl-delay: 0\n", first: pause10, opts: parked, waiting: 5},
		{name: "back-off pause, sync", robots: "User-agent: *\nCrawl-delay: 0\n", first: pause10, opts: parked, waiting: 5},
		{name: "back-off pause, Async, backend", async: true, backend: true, robots: "User-agent: *\nCrawl-delay: 0\n", first: pause10, waiting: 5},
		{name: "back-off pause, sync, backend", backend: true, robots: "User-agent: *\nCrawl-delay: 0\n", first: pause10, waiting: 5},
		{name: "the pace, Async", async: true, robots: "User-agent: *\nCrawl-delay: 30\n", opts: parked, waiting: 5},
		{name: "the fleet queue, Async, backend", async: true, backend: true, robots: "User-agent: *\nCrawl-delay: 30\n", waiting: 5},
		{name: "WithDeferUnreachable's hold, Async", async: true, status: http.StatusServiceUnavailable,
			opts: func(p *parkedSleep) []Option {
				return []Option{withSleep(p.sleep), WithDeferUnreachable(time.Hour)}
			}, waiting: 5},
	}
	for _, cc := range cases {
		rows = append(rows, cc.seam())
	}
	return append(rows, hopCancelSeam(), suspectCancelSeam())
}

// suspectNode is a backend.Memory served by one node of a Scoper, node-a,
// whose pace calls (Queue) time out and whose probe answers only when the
// test ends: the first failed call raises a suspicion, and the requests
// wait for its verdict.
type suspectNode struct {
	*backend.Memory
	probing chan struct{} // a probe began
	release chan struct{} // closed when the test ends
}

func (b *suspectNode) Queue(context.Context, string, string, int64, time.Duration, time.Duration) (backend.Turn, error) {
	return backend.Turn{}, &backend.ScopeError{Scope: "node-a", Err: errors.New("i/o timeout")}
}

func (b *suspectNode) Scope(string) string { return "node-a" }

func (b *suspectNode) Probe(ctx context.Context, _ string) error {
	b.probing <- struct{}{}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-b.release:
		return errors.New("connection refused")
	}
}

// suspectCancelSeam: a request whose pace call failed waits for the
// verdict on the node (Health.Settle), which here never comes; the cancel
// ends that wait, and the waits of the requests behind it, at once: each
// page reaches OnError once with the context's error, and never the
// server.
func suspectCancelSeam() seam {
	b := &suspectNode{Memory: backend.NewMemory(), probing: make(chan struct{}, 16), release: make(chan struct{})}
	return seam{
		name:  "StdlibContext cancel: the verdict on a suspect backend node, Async",
		pages: 4,
		site:  seamSiteSpec{robots: "User-agent: *\nCrawl-delay: 1\n", page: func(_ *seamSite, _ string, _ int, w http.ResponseWriter) { fmt.Fprint(w, "ok") }},
		setup: func(t *testing.T, s *seamRun) {
			t.Cleanup(func() { close(b.release) })
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			s.cancel = cancel
			s.c = colly.NewCollector(colly.StdlibContext(ctx), colly.Async(true), colly.UserAgent("AcmeBot/1.0 (+https://acme.example/bot)"))
			if err := s.c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 4}); err != nil {
				t.Fatal(err)
			}
			s.ext = Apply(s.c, quiet(), WithBackend(b))
			s.record()
		},
		crawl: func(t *testing.T, s *seamRun) {
			for _, u := range s.pages {
				_ = s.c.Visit(u)
			}
			<-b.probing // the first page's call failed, and its verdict is awaited
			s.cancelAndWait(t, s.c.Wait)
		},
		check: func(t *testing.T, s *seamRun) {
			if s.took > cancelBound {
				t.Errorf("Wait returned %v after the cancel, want within %v", s.took, cancelBound)
			}
			if requests, _ := s.site.counts(); len(requests) != 0 {
				t.Errorf("the server saw %v, want no page", requests)
			}
			cancelled := map[string]int{}
			for _, e := range s.errors() {
				if !errors.Is(e.err, context.Canceled) {
					t.Errorf("OnError(%s, %d, %v), want the context's error", e.path, e.status, e.err)
				}
				cancelled[e.path]++
			}
			for _, u := range s.pages {
				if p := strings.TrimPrefix(u, s.site.URL); cancelled[p] != 1 {
					t.Errorf("%s reached OnError with the context's error %d times, want once", p, cancelled[p])
				}
			}
		},
	}
}

// hopCancelSeam: a redirect hop deferred to keep a Crawl-delay of 30 s
// (ErrRedirectDeferred) is re-issued as a request of its own, which waits
// for its slot; the cancel ends that wait at once, and the hop reaches
// OnError once with the context's error, never the server. Until the
// deferral the clock steps (the first pace costs nothing); from then on
// its sleeps are parked until the cancel.
func hopCancelSeam() seam {
	var parked atomic.Bool
	park := newParkedSleep()
	return seam{
		name:  "StdlibContext cancel: a redirect hop's deferral, Async",
		pages: 0,
		site: seamSiteSpec{robots: "User-agent: *\nCrawl-delay: 30\n",
			page: func(_ *seamSite, path string, _ int, w http.ResponseWriter) {
				if path == "/r" {
					w.Header().Set("Location", "/target")
					w.WriteHeader(http.StatusFound)
					return
				}
				fmt.Fprint(w, "ok")
			}},
		setup: func(t *testing.T, s *seamRun) {
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			s.cancel = cancel
			s.c = colly.NewCollector(colly.StdlibContext(ctx), colly.Async(true), colly.UserAgent("AcmeBot/1.0 (+https://acme.example/bot)"))
			// Registered before Apply, so that it runs before the
			// Extension's hook re-issues the hop.
			s.c.OnError(func(_ *colly.Response, err error) {
				if errors.Is(err, ErrRedirectDeferred) {
					parked.Store(true)
				}
			})
			sleep := func(ctx context.Context, d time.Duration) error {
				if parked.Load() {
					return park.sleep(ctx, d)
				}
				return s.clk.sleep(ctx, d)
			}
			s.ext = Apply(s.c, quiet(), WithClock(s.clk.now), withSleep(sleep), withRand(noJitter))
			s.record()
		},
		crawl: func(t *testing.T, s *seamRun) {
			_ = s.c.Visit(s.url("/r"))
			park.waitEntered(t, 1)
			s.cancelAndWait(t, s.c.Wait)
		},
		check: func(t *testing.T, s *seamRun) {
			if s.took > cancelBound {
				t.Errorf("Wait returned %v after the cancel, want within %v", s.took, cancelBound)
			}
			if requests, _ := s.site.counts(); fmt.Sprint(requests) != fmt.Sprint(map[string]int{"/r": 1}) {
				t.Errorf("the server saw %v, want /r once", requests)
			}
			var deferred, cancelled int
			for _, e := range s.errors() {
				switch {
				case errors.Is(e.err, ErrRedirectDeferred) && e.path == "/r":
					deferred++
				case errors.Is(e.err, context.Canceled) && e.path == "/target":
					cancelled++
				default:
					t.Errorf("OnError(%s, %d, %v)", e.path, e.status, e.err)
				}
			}
			if deferred != 1 || cancelled != 1 {
				t.Errorf("OnError saw %d deferrals of /r and %d cancels of /target, want one each", deferred, cancelled)
			}
		},
	}
}

// seam returns cc's row. A first page (/p0), when the row has one, is
// fetched first; when it is answered, the other pages are visited and
// wait (in the back-off, the pace, the fleet's queue or the hold); then
// the collector's context is cancelled. Collector.Wait must return within cancelBound; each
// waiting page must reach OnError once, with the context's error, and
// never the server; nothing may probe, requeue, or count a failed probe.
func (cc cancelCase) seam() seam {
	var park *parkedSleep
	var firstDone chan struct{}
	// A row with a first page fetches it first and pauses the host
	// with its answer; in the others every page waits (for the pace,
	// which robots.txt's own fetch started, or for the hold).
	hasFirst := cc.first != nil
	pages := cc.waiting
	if hasFirst {
		pages++
	}
	return seam{
		name:  "StdlibContext cancel: " + cc.name,
		pages: pages,
		site: seamSiteSpec{robots: cc.robots, robotsStatus: cc.status,
			page: func(_ *seamSite, path string, n int, w http.ResponseWriter) {
				if path == "/p0" && n == 1 && cc.first != nil {
					cc.first(w)
					return
				}
				fmt.Fprint(w, "ok")
			}},
		setup: func(t *testing.T, s *seamRun) {
			ctx, cancel := context.WithCancel(context.Background())
			t.Cleanup(cancel)
			s.cancel = cancel
			s.c = colly.NewCollector(colly.StdlibContext(ctx), colly.Async(cc.async), colly.UserAgent("AcmeBot/1.0 (+https://acme.example/bot)"))
			if cc.async {
				if err := s.c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 4}); err != nil {
					t.Fatal(err)
				}
			}
			opts := []Option{quiet(), WithClock(s.clk.now)}
			park = newParkedSleep()
			if cc.opts != nil {
				opts = append(opts, cc.opts(park)...)
			}
			if cc.backend {
				opts = append(opts, WithBackend(backend.NewMemory()))
			}
			s.ext = Apply(s.c, opts...)
			s.record()
			firstDone = make(chan struct{})
			var once sync.Once
			s.c.OnResponseHeaders(func(r *colly.Response) {
				if r.Request.URL.Path == "/p0" {
					once.Do(func() { close(firstDone) })
				}
			})
		},
		crawl: func(t *testing.T, s *seamRun) {
			var visits sync.WaitGroup
			visit := func(u string) {
				if cc.async {
					_ = s.c.Visit(u)
					return
				}
				visits.Go(func() { _ = s.c.Visit(u) })
			}
			rest := s.pages
			if hasFirst {
				visit(s.pages[0])
				<-firstDone
				rest = s.pages[1:]
			}
			for _, u := range rest {
				visit(u)
			}
			if cc.opts != nil {
				park.waitEntered(t, cc.waiting)
			}
			s.cancelAndWait(t, func() { visits.Wait(); s.c.Wait() }) // the sync Visits first: Colly's Wait may not race their WaitGroup Add
		},
		check: func(t *testing.T, s *seamRun) {
			if s.took > cancelBound {
				t.Errorf("Wait returned %v after the cancel, want within %v", s.took, cancelBound)
			}
			requests, _ := s.site.counts()
			want := map[string]int{}
			if hasFirst {
				want["/p0"] = 1
			}
			if fmt.Sprint(requests) != fmt.Sprint(want) {
				t.Errorf("the server saw %v, want %v", requests, want)
			}
			cancelled := map[string]int{}
			for _, e := range s.errors() {
				switch {
				case errors.Is(e.err, context.Canceled):
					cancelled[e.path]++
				case e.path == "/p0" && e.status == http.StatusServiceUnavailable:
				default:
					t.Errorf("OnError(%s, %d, %v), want the context's error", e.path, e.status, e.err)
				}
			}
			for _, u := range s.pages {
				p := strings.TrimPrefix(u, s.site.URL)
				if p == "/p0" && hasFirst {
					continue
				}
				if cancelled[p] != 1 {
					t.Errorf("%s reached OnError with the context's error %d times, want once", p, cancelled[p])
				}
			}
			st := s.ext.Stats()
			if st.Probes != 0 || st.Pauses[PauseProbeFailed] != 0 || st.BackoffRequeued != 0 {
				t.Errorf("after the cancel: %d probes, %d probe_failed pauses, %d requeued; want none", st.Probes, st.Pauses[PauseProbeFailed], st.BackoffRequeued)
			}
		},
	}
}

// seamIdiom is a retry handler users write, registered on c for run s.
type seamIdiom struct {
	name     string
	anyError bool // retries errors the Extension's aborts are among
	install  func(c *colly.Collector, s *seamRun)
}

// seamIdioms are the idioms users write: retry once on any error, up to
// N times on any error (counted in r.Ctx), only on 429/503, and Colly's
// Retry called from OnResponse.
func seamIdioms() []seamIdiom {
	return []seamIdiom{
		{name: "no retry", install: func(*colly.Collector, *seamRun) {}},
		{name: "retry once on any error", anyError: true, install: func(c *colly.Collector, s *seamRun) {
			c.OnError(func(r *colly.Response, _ error) {
				if r.Ctx.GetAny("retried") == nil {
					r.Ctx.Put("retried", true)
					s.retried(r.Request.Retry())
				}
			})
		}},
		{name: "retry up to 3 times on any error, counted in r.Ctx", anyError: true, install: func(c *colly.Collector, s *seamRun) {
			c.OnError(func(r *colly.Response, _ error) {
				if n, _ := r.Ctx.GetAny("retries").(int); n < 3 {
					r.Ctx.Put("retries", n+1)
					s.retried(r.Request.Retry())
				}
			})
		}},
		{name: "retry only on 429 and 503", install: func(c *colly.Collector, s *seamRun) {
			c.OnError(func(r *colly.Response, _ error) {
				if r.StatusCode == http.StatusTooManyRequests || r.StatusCode == http.StatusServiceUnavailable {
					s.retried(r.Request.Retry())
				}
			})
		}},
		{name: "Retry from OnResponse on 429 and 503", install: func(c *colly.Collector, s *seamRun) {
			c.ParseHTTPErrorResponse = true
			c.OnResponse(func(r *colly.Response) {
				if r.StatusCode == http.StatusTooManyRequests || r.StatusCode == http.StatusServiceUnavailable {
					s.retried(r.Request.Retry())
				}
			})
		}},
	}
}

// retrySeams crosses each retry idiom with a pause that catches requests
// past the OnRequest hook's check of the pause: Async, Parallelism 4,
// Crawl-delay 0.1, eight pages; the first page request to arrive is
// answered 429 Retry-After: 1 once the seven others wait for their turn
// in the OnRequest hook (turn.go in internal/pacing), past the check, so
// that each finds its host paused at the wire, in its LimitRule slot,
// and is sent again by the Extension. (The next three page requests are
// held at the server until the 429 is answered, for a pacer that would
// let several on the wire at once.) Each idiom
// runs registered after Apply and, for those retrying any error, before
// it. The clock is a step clock: the pace and the pause cost no real time.
func retrySeams() []seam {
	var rows []seam
	for _, id := range seamIdioms() {
		rows = append(rows, retrySeam(id, false, 0))
		if id.anyError {
			rows = append(rows, retrySeam(id, true, 0))
		}
	}
	return rows
}

// retrySeam returns the row of idiom id, registered before Apply when
// before, on a collector with colly.MaxRequests(limit) when limit > 0.
func retrySeam(id seamIdiom, before bool, limit uint32) seam {
	var run *seamRun
	var arrivals atomic.Int64
	release := make(chan struct{})
	var released sync.Once
	var first atomic.Value // the path answered 429
	name := "retry idiom: " + id.name
	if before {
		name += ", registered before Apply"
	}
	if limit > 0 {
		name = fmt.Sprintf("MaxRequests(%d), %s", limit, name)
	}
	return seam{
		name:  name,
		pages: 8,
		site: seamSiteSpec{robots: "User-agent: *\nCrawl-delay: 0.1\n",
			page: func(_ *seamSite, path string, n int, w http.ResponseWriter) {
				switch i := arrivals.Add(1); {
				case i == 1:
					run.waitPaced(len(run.pages) - 1)
					first.Store(path)
					run.site.mu.Lock()
					run.site.pausedAt = run.clk.now()
					run.site.mu.Unlock()
					w.Header().Set("Retry-After", "1")
					w.WriteHeader(http.StatusTooManyRequests)
					return
				case i <= 4 && n == 1:
					<-release
				}
				fmt.Fprint(w, "ok")
			}},
		setup: func(t *testing.T, s *seamRun) {
			run = s
			// A row that fails before the 429 was seen must not leave pages
			// held at the server: its Close would wait for them forever.
			t.Cleanup(func() { released.Do(func() { close(release) }) })
			opts := []colly.CollectorOption{colly.Async(true), colly.UserAgent("AcmeBot/1.0 (+https://acme.example/bot)")}
			if limit > 0 {
				opts = append(opts, colly.MaxRequests(limit))
			}
			s.c = colly.NewCollector(opts...)
			if err := s.c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 4}); err != nil {
				t.Fatal(err)
			}
			if before {
				id.install(s.c, s)
			}
			s.ext = Apply(s.c, quiet(), WithClock(s.clk.now), withSleep(s.clk.sleep), withRand(noJitter))
			s.record()
			if !before {
				id.install(s.c, s)
			}
			// The 429 has paused the host when this hook sees it (the
			// Extension's runs first): the three requests held at the
			// server may be answered.
			s.c.OnResponseHeaders(func(r *colly.Response) {
				if r.StatusCode == http.StatusTooManyRequests {
					released.Do(func() { close(release) })
				}
			})
		},
		crawl: func(t *testing.T, s *seamRun) {
			for _, u := range s.pages {
				_ = s.c.Visit(u)
			}
			s.c.Wait()
		},
		check: func(t *testing.T, s *seamRun) {
			requests, ok := s.site.counts()
			st := s.ext.Stats()
			lost, _ := first.Load().(string)
			retries429 := id.name != "no retry"
			switch {
			case limit > 0 && st.BackoffRequeued != 0:
				t.Errorf("%d requests sent again under MaxRequests, want none (each would count against the limit)", st.BackoffRequeued)
			case limit == 0 && st.BackoffRequeued == 0:
				t.Fatalf("no request was sent again by the Extension: the row tests nothing (server saw %v)", requests)
			}
			if limit > 0 {
				total, want := 0, len(s.pages)
				for _, n := range requests {
					total += n
				}
				if retries429 {
					want++
				}
				if total != want {
					t.Errorf("the server saw %d page requests under MaxRequests(%d), want %d: %v", total, limit, want, requests)
				}
			}
			for _, u := range s.pages {
				p := strings.TrimPrefix(u, s.site.URL)
				want := 1
				if p == lost && !retries429 {
					want = 0 // answered 429 and not retried: the idiom's choice
				}
				if ok[p] != want {
					t.Errorf("%s: %d answers 2xx (of %d requests), want %d", p, ok[p], requests[p], want)
				}
				s.mu.Lock()
				got := s.responses[p]
				s.mu.Unlock()
				if got != want {
					t.Errorf("%s: OnResponse called %d times for a 2xx, want %d", p, got, want)
				}
			}
			aborted := 0
			for _, e := range s.errors() {
				if errors.Is(e.err, colly.ErrAbortedBeforeRequest) && e.status == 0 {
					aborted++
				}
			}
			if uint64(aborted) != st.BackoffRequeued {
				t.Errorf("OnError saw %d originals aborted before the wire, want one per request sent again (%d)", aborted, st.BackoffRequeued)
			}
			s.mu.Lock()
			retryErrs := append([]error(nil), s.retryErrs...)
			s.mu.Unlock()
			for _, err := range retryErrs {
				if !errors.Is(err, ErrRequeued) {
					t.Errorf("a retry returned %v, want nil or ErrRequeued", err)
				}
			}
			checkGradualReturn(t, s.site)
			if id.anyError && limit == 0 && st.RetriesDropped == 0 {
				t.Errorf("RetriesDropped = 0: the idiom's retries of the originals were not dropped")
			}
			if uint64(len(retryErrs)) != st.RetriesDropped {
				t.Errorf("RetriesDropped = %d, want the %d retries that returned ErrRequeued", st.RetriesDropped, len(retryErrs))
			}
		},
	}
}

// checkGradualReturn checks, by the Extension's clock, the return after
// the pause of the run's first answer (429 Retry-After: 1, no jitter): no
// page reaches the server before the pause ends, and after the probe the
// next two starts are spaced by at least a quarter of the pause, then an
// eighth (docs/politeness.md). The step clock moves once per wait, never
// less than asked, so these are lower bounds a start too early breaks.
func checkGradualReturn(t *testing.T, site *seamSite) {
	t.Helper()
	site.mu.Lock()
	at := append([]time.Time(nil), site.at...)
	order := append([]string(nil), site.order...)
	site.mu.Unlock()
	// The pacer's gate lets one request at a time on the wire to a paced
	// host, until its response headers, which pause the host before the
	// next may go: the second arrival is the probe. Arrival times are
	// read on the step clock, which sleeps move forward: they are never
	// earlier than the start's grant.
	const probe = 1
	if len(at) <= probe {
		return
	}
	if end := site.pausedAt.Add(time.Second); at[probe].Before(end) {
		t.Errorf("the probe arrived %v after the 429, before the pause of 1s ended", at[probe].Sub(site.pausedAt))
	}
	defer func() {
		if t.Failed() {
			for i, a := range at {
				t.Logf("%s at %v", order[i], a.Sub(site.pausedAt))
			}
		}
	}()
	if probe < 0 {
		return // every other page was sent before the pause began
	}
	// The recovery's gaps count from the grants, which come before each
	// start's own pace: the sound bound at the server is cumulative,
	// from the probe.
	want := time.Duration(0)
	for k, gap := range []time.Duration{250 * time.Millisecond, 125 * time.Millisecond} {
		want += gap
		i := probe + k + 1
		if i >= len(at) {
			break
		}
		if got := at[i].Sub(at[probe]); got < want {
			t.Errorf("start %d after the probe came %v after it, want at least %v (the gradual return)", k+1, got, want)
		}
	}
}

// limitSeams crosses colly.MaxRequests with the pause that catches
// requests in their slot: the Extension sends nothing again under a
// request limit (the held requests wait in their slot), so the limit
// counts exactly the pages and the idiom's retries, no page is lost to
// it, and the gradual return holds.
func limitSeams() []seam {
	ids := seamIdioms()
	return []seam{
		retrySeam(ids[0], false, 8),
		retrySeam(ids[3], false, 9),
		retrySeam(ids[1], false, 9),
	}
}

// linkPage answers a page whose body links to next (none when "").
func linkPage(w http.ResponseWriter, next string) {
	w.Header().Set("Content-Type", "text/html")
	if next == "" {
		fmt.Fprint(w, "<html><body>end</body></html>")
		return
	}
	fmt.Fprintf(w, `<html><body><a href="%s">next</a></body></html>`, next)
}

// featureCrawl is a row of featureSeams: options on the collector, the
// visits, and what the server and the callbacks must see.
type featureCrawl struct {
	name     string
	async    bool
	setup    func(t *testing.T, c *colly.Collector)
	visits   []string       // paths visited, in order
	requests map[string]int // page requests the server must see
	onResp   map[string]int // OnResponse calls that must be seen
	minGap   time.Duration  // by the Extension's clock, between page requests
}

// featureSeams crosses Apply with MaxDepth, AllowURLRevisit, CacheDir,
// Async with Wait and an abort by a later OnRequest callback, on a site whose /chain/N pages link to /chain/N+1 and
// whose robots.txt states Crawl-delay: 2 (a step clock: the pace costs no
// real time, and the gaps are read on it).
func featureSeams() []seam {
	follow := func(c *colly.Collector) {
		c.OnHTML("a[href]", func(e *colly.HTMLElement) { _ = e.Request.Visit(e.Attr("href")) })
	}
	crawls := []featureCrawl{
		{name: "MaxDepth 2: the third page of a chain is never requested",
			setup:    func(_ *testing.T, c *colly.Collector) { c.MaxDepth = 2; follow(c) },
			visits:   []string{"/chain/1"},
			requests: map[string]int{"/chain/1": 1, "/chain/2": 1},
			onResp:   map[string]int{"/chain/1": 1, "/chain/2": 1}, minGap: 2 * time.Second},
		{name: "AllowURLRevisit: a page visited twice is fetched twice, paced",
			setup:    func(_ *testing.T, c *colly.Collector) { c.AllowURLRevisit = true },
			visits:   []string{"/p0", "/p0"},
			requests: map[string]int{"/p0": 2}, onResp: map[string]int{"/p0": 2}, minGap: 2 * time.Second},
		{name: "no revisit: a page visited twice is fetched once",
			setup:    func(*testing.T, *colly.Collector) {},
			visits:   []string{"/p0", "/p0"},
			requests: map[string]int{"/p0": 1}, onResp: map[string]int{"/p0": 1}},
		{name: "CacheDir: a page revisited is answered from the cache, not the server",
			setup: func(t *testing.T, c *colly.Collector) {
				c.CacheDir = t.TempDir()
				c.AllowURLRevisit = true
			},
			visits:   []string{"/p0", "/p0"},
			requests: map[string]int{"/p0": 1}, onResp: map[string]int{"/p0": 2}},
		{name: "Async with Wait: every page once, paced, Wait returns after the last",
			async:    true,
			setup:    func(*testing.T, *colly.Collector) {},
			visits:   []string{"/p0", "/p1", "/p2", "/p3", "/p4", "/p5"},
			requests: map[string]int{"/p0": 1, "/p1": 1, "/p2": 1, "/p3": 1, "/p4": 1, "/p5": 1},
			onResp:   map[string]int{"/p0": 1, "/p1": 1, "/p2": 1, "/p3": 1, "/p4": 1, "/p5": 1}, minGap: 2 * time.Second},
		// An aborted request was given its host's turn (internal/pacing's
		// turn.go) and never reaches the gate: the turn ends a delay
		// later, and the crawl goes on, paced.
		{name: "Async, a later OnRequest aborting every other page: the rest fetched once, paced",
			async: true,
			setup: func(_ *testing.T, c *colly.Collector) {
				c.OnRequest(func(r *colly.Request) {
					var n int
					if _, err := fmt.Sscanf(r.URL.Path, "/p%d", &n); err == nil && n%2 == 1 {
						r.Abort()
					}
				})
			},
			visits:   []string{"/p0", "/p1", "/p2", "/p3", "/p4", "/p5"},
			requests: map[string]int{"/p0": 1, "/p2": 1, "/p4": 1},
			onResp:   map[string]int{"/p0": 1, "/p2": 1, "/p4": 1}, minGap: 2 * time.Second},
	}
	var rows []seam
	for _, fc := range crawls {
		rows = append(rows, seam{
			name: fc.name,
			site: seamSiteSpec{robots: "User-agent: *\nCrawl-delay: 2\n",
				page: func(_ *seamSite, path string, _ int, w http.ResponseWriter) {
					var n int
					if _, err := fmt.Sscanf(path, "/chain/%d", &n); err == nil {
						linkPage(w, fmt.Sprintf("/chain/%d", n+1))
						return
					}
					linkPage(w, "")
				}},
			setup: func(t *testing.T, s *seamRun) {
				s.c = colly.NewCollector(colly.Async(fc.async), colly.UserAgent("AcmeBot/1.0 (+https://acme.example/bot)"))
				if fc.async {
					if err := s.c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 4}); err != nil {
						t.Fatal(err)
					}
				}
				s.ext = Apply(s.c, quiet(), WithClock(s.clk.now), withSleep(s.clk.sleep), withRand(noJitter))
				s.record()
				fc.setup(t, s.c)
			},
			crawl: func(t *testing.T, s *seamRun) {
				for _, p := range fc.visits {
					_ = s.c.Visit(s.url(p))
				}
				s.c.Wait()
			},
			check: func(t *testing.T, s *seamRun) {
				requests, _ := s.site.counts()
				if fmt.Sprint(requests) != fmt.Sprint(fc.requests) {
					t.Errorf("the server saw %v, want %v", requests, fc.requests)
				}
				s.mu.Lock()
				resp := fmt.Sprint(s.responses)
				s.mu.Unlock()
				if resp != fmt.Sprint(fc.onResp) {
					t.Errorf("OnResponse saw %v, want %v", resp, fc.onResp)
				}
				if errs := s.errors(); len(errs) != 0 {
					t.Errorf("OnError saw %+v, want nothing", errs)
				}
				s.site.mu.Lock()
				at := append([]time.Time(nil), s.site.at...)
				s.site.mu.Unlock()
				for i := 1; i < len(at); i++ {
					if gap := at[i].Sub(at[i-1]); gap < fc.minGap {
						t.Errorf("page request %d came %v after the one before, want at least %v (the Crawl-delay)", i, gap, fc.minGap)
					}
				}
			},
		})
	}
	return rows
}

// The seams of Attach with the Colly features that make more collectors
// or change one after Apply: a Clone before or after Apply, SetStorage
// before or after, a User-Agent changed after Apply. Each row crawls a
// real httptest server and asserts at the server and at the callbacks.

// attachSite serves /nf, a page that says nofollow and links to /t1, and
// plain pages elsewhere; robots.txt is 404. It counts every request by
// path and User-Agent.
type attachSite struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int // path → requests
	uas  []string       // User-Agent of each page request, in order
}

func newAttachSite(t *testing.T) *attachSite {
	t.Helper()
	s := &attachSite{hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.uas = append(s.uas, r.UserAgent())
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/nf" {
			w.Header().Set("X-Robots-Tag", "nofollow")
			fmt.Fprint(w, `<html><body><a href="/t1">t1</a></body></html>`)
			return
		}
		fmt.Fprint(w, `<html><body>plain</body></html>`)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *attachSite) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func (s *attachSite) userAgents() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.uas...)
}

// seamLog keeps the Warn and Info records of one Extension, as text.
type seamLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *seamLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *seamLog) logger(level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: level}))
}

// count returns how many records hold sub.
func (l *seamLog) count(sub string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.buf.String(), sub)
}

func (l *seamLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// funcStorage is a user's storage of a type Go cannot compare (it holds
// a slice), used by value.
type funcStorage struct {
	*storage.InMemoryStorage
	hook []func()
}

const seamUA = "Mozilla/5.0 (compatible; SeamBot/1.0; +https://seam.example/bot)"

// TestSeamsAttach: the collector named crawler visits /nf, whose link
// /t1 it refuses (nofollow); then the collector named visitor visits
// /t1. However the second collector was made, /t1 is fetched once when
// the arrangement lets the Extension keep it reachable, and otherwise
// stays marked with one Warn saying so.
func TestSeamsAttach(t *testing.T) {
	t.Parallel()
	type pair struct {
		ext          *Extension
		c, detail    *colly.Collector
		crawler, vis *colly.Collector
	}
	const collyUA = "colly - https://github.com/gocolly/colly"
	newC := func() *colly.Collector { return colly.NewCollector(colly.UserAgent(seamUA)) }
	opts := func(l *seamLog) []Option {
		return []Option{WithDefaultDelay(0), WithLogger(l.logger(slog.LevelWarn))} // the subject is not the pace
	}
	setStorage := func(t *testing.T, c *colly.Collector) {
		if err := c.SetStorage(&storage.InMemoryStorage{}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name      string
		arrange   func(t *testing.T, l *seamLog) pair
		reachable bool // the visitor fetches /t1
		warned    bool // one Warn says the link may stay marked

		// Rows of the identity judged on what is sent (arrange nil): the
		// collector's User-Agent at Apply, the one set after Apply, and
		// the identity warnings due.
		uaAtApply, uaAfter string
		contact, deflt     int
	}{
		{name: "Clone before Apply", arrange: func(t *testing.T, l *seamLog) pair {
			c := newC()
			d := c.Clone()
			ext := Apply(c, opts(l)...)
			ext.Attach(d)
			return pair{ext: ext, c: c, detail: d, crawler: c, vis: d}
		}, reachable: true, warned: false},
		{name: "Clone before Apply, the clone attached first", arrange: func(t *testing.T, l *seamLog) pair {
			c := newC()
			d := c.Clone()
			ext := Apply(d, opts(l)...)
			ext.Attach(c)
			return pair{ext: ext, c: d, detail: c, crawler: c, vis: d}
		}, reachable: true, warned: false},
		{name: "Clone after Apply", arrange: func(t *testing.T, l *seamLog) pair {
			c := newC()
			ext := Apply(c, opts(l)...)
			d := c.Clone()
			ext.Attach(d)
			return pair{ext: ext, c: c, detail: d, crawler: c, vis: d}
		}, reachable: true, warned: false},
		{name: "Clone after Apply, the clone refuses", arrange: func(t *testing.T, l *seamLog) pair {
			c := newC()
			ext := Apply(c, opts(l)...)
			d := c.Clone()
			ext.Attach(d)
			return pair{ext: ext, c: c, detail: d, crawler: d, vis: c}
		}, reachable: true, warned: false},
		{name: "SetStorage before Apply, then Clone", arrange: func(t *testing.T, l *seamLog) pair {
			c := newC()
			setStorage(t, c)
			ext := Apply(c, opts(l)...)
			d := c.Clone()
			ext.Attach(d)
			return pair{ext: ext, c: c, detail: d, crawler: c, vis: d}
		}, reachable: true, warned: false},
		{name: "a clone with its own storage, set before Attach", arrange: func(t *testing.T, l *seamLog) pair {
			c := newC()
			ext := Apply(c, opts(l)...)
			d := c.Clone()
			setStorage(t, d)
			ext.Attach(d)
			return pair{ext: ext, c: c, detail: d, crawler: d, vis: d}
		}, reachable: true, warned: false},
		{name: "SetStorage after Apply", arrange: func(t *testing.T, l *seamLog) pair {
			c := newC()
			ext := Apply(c, opts(l)...)
			setStorage(t, c)
			return pair{ext: ext, c: c, crawler: c, vis: c}
		}, reachable: false, warned: true},
		{name: "SetStorage after Attach, on the clone", arrange: func(t *testing.T, l *seamLog) pair {
			c := newC()
			ext := Apply(c, opts(l)...)
			d := c.Clone()
			ext.Attach(d)
			setStorage(t, d)
			return pair{ext: ext, c: c, detail: d, crawler: d, vis: d}
		}, reachable: false, warned: true},
		{name: "Clone before Apply, a storage Go cannot compare", arrange: func(t *testing.T, l *seamLog) pair {
			c := newC()
			if err := c.SetStorage(funcStorage{InMemoryStorage: &storage.InMemoryStorage{}, hook: []func(){}}); err != nil {
				t.Fatal(err)
			}
			d := c.Clone()
			ext := Apply(c, opts(l)...)
			ext.Attach(d)
			return pair{ext: ext, c: c, detail: d, crawler: c, vis: d}
		}, reachable: false, warned: true},
		// A User-Agent changed after Apply is judged as sent.
		{name: "identity fixed after Apply", uaAtApply: collyUA, uaAfter: seamUA},
		{name: "identity set to Colly's default after Apply", uaAtApply: seamUA, uaAfter: collyUA, deflt: 1},
		{name: "identity without contact after Apply", uaAtApply: seamUA, uaAfter: "SeamBot/1.1", contact: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newAttachSite(t)
			var l seamLog
			if tt.arrange == nil {
				c := colly.NewCollector(colly.UserAgent(tt.uaAtApply))
				Apply(c, WithDefaultDelay(0), WithLogger(l.logger(slog.LevelWarn)))
				c.UserAgent = tt.uaAfter
				for _, p := range []string{"/a", "/b"} {
					if err := c.Visit(s.URL + p); err != nil {
						t.Fatal(err)
					}
				}
				if got := s.userAgents(); len(got) != 2 || got[0] != tt.uaAfter || got[1] != tt.uaAfter {
					t.Errorf("the server saw User-Agents %q, want %q twice", got, tt.uaAfter)
				}
				if n := l.count("carries no contact"); n != tt.contact {
					t.Errorf("%d contact warnings, want %d:\n%s", n, tt.contact, l.String())
				}
				if n := l.count("framework's default"); n != tt.deflt {
					t.Errorf("%d default-token warnings, want %d:\n%s", n, tt.deflt, l.String())
				}
				if strings.Contains(l.String(), tt.uaAtApply) && tt.uaAtApply != tt.uaAfter {
					t.Errorf("the User-Agent of Apply, never sent, was judged:\n%s", l.String())
				}
				return
			}
			p := tt.arrange(t, &l)
			var blocked blockLog
			p.ext.OnBlocked(blocked.record)
			p.crawler.OnHTML("a[href]", func(e *colly.HTMLElement) { _ = e.Request.Visit(e.Attr("href")) })

			if err := p.crawler.Visit(s.URL + "/nf"); err != nil {
				t.Fatal(err)
			}
			if urls, vs := blocked.get(); len(urls) != 1 || urls[0] != "GET /t1" || vs[0].Reason != ReasonNofollow {
				t.Fatalf("OnBlocked saw %v %+v, want /t1 refused as a link of /nf", urls, vs)
			}
			err := p.vis.Visit(s.URL + "/t1")
			var av *colly.AlreadyVisitedError
			if tt.reachable {
				if err != nil {
					t.Errorf("the visitor's Visit(/t1): %v, want it fetched", err)
				}
				// Fetched now, it is marked as Colly marks it: not twice.
				if err := p.crawler.Visit(s.URL + "/t1"); !errors.As(err, &av) {
					t.Errorf("a second Visit(/t1): %v, want already visited", err)
				}
			} else if !errors.As(err, &av) {
				t.Errorf("the visitor's Visit(/t1): %v, want already visited", err)
			}
			if got, want := s.count("/t1"), map[bool]int{true: 1}[tt.reachable]; got != want {
				t.Errorf("the server saw /t1 %d times, want %d", got, want)
			}
			if got := s.count("/nf"); got != 1 {
				t.Errorf("the server saw /nf %d times", got)
			}
			if got, want := l.count("may stay marked visited"), map[bool]int{true: 1}[tt.warned]; got != want {
				t.Errorf("%d warnings about the storage, want %d:\n%s", got, want, l.String())
			}
		})
	}
}

// TestSeamsPageCache: WithPageCache crossed with what a user does to the
// collector after Apply (a transport replaced, Colly's own CacheDir, a
// later OnRequest callback that aborts or sets a header, cookies, the
// retry idiom, an abort in OnResponseHeaders). Each row crawls the page cache's
// loopback site (cacheSite, pagecache_test.go) and asserts at the server
// and at the callbacks.
func TestSeamsPageCache(t *testing.T) {
	t.Parallel()
	rows := []struct {
		name string
		run  func(t *testing.T)
	}{
		// SetProxyFunc after Apply replaces the
		// cache's transport: one Warn says so at the first request, and every
		// page goes out paced; none is lost.
		{"a transport replaced after Apply (SetProxyFunc)", func(t *testing.T) {
			clk := &stepClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
			s := newCacheSite(t, clk, "User-agent: *\nCrawl-delay: 1\n")
			dir := t.TempDir()
			urls := s.urls("fresh")
			crawlCached(t, s, urls, nil, WithPageCache(dir))
			second := crawlCached(t, s, urls, func(c *colly.Collector, _ *Extension) { c.SetProxyFunc(http.ProxyFromEnvironment) }, WithPageCache(dir))
			if len(second.errs) != 0 || second.requests != 3 || len(second.bodies) != 3 {
				t.Errorf("errors %q, %d requests and %d pages, want no error, 3 requests and 3 pages", second.errs, second.requests, len(second.bodies))
			}
			if second.moved < time.Second {
				t.Errorf("the requests that went out waited %v of pace", second.moved)
			}
			if n := strings.Count(second.logs, "transport is not the page cache's"); n != 1 {
				t.Errorf("%d warnings of the replaced transport, want 1", n)
			}
			// Wrapped after Apply, the cache stays.
			third := crawlCached(t, s, urls, func(c *colly.Collector, e *Extension) { c.WithTransport(e.PageTransport(http.DefaultTransport)) }, WithPageCache(dir))
			if third.requests != 0 || len(third.errs) != 0 {
				t.Errorf("wrapped: %d requests, errors %q", third.requests, third.errs)
			}
		}},
		// a page Colly serves from its own CacheDir
		// waits no pace; beside WithPageCache it gets one warning.
		{"Colly's CacheDir, alone and beside WithPageCache", func(t *testing.T) {
			clk := &stepClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
			s := newCacheSite(t, clk, "User-agent: *\nCrawl-delay: 1\n")
			dir := t.TempDir()
			cacheDir := func(c *colly.Collector, _ *Extension) { c.CacheDir = dir }
			crawlCached(t, s, s.urls("nostore"), cacheDir)
			second := crawlCached(t, s, s.urls("nostore"), cacheDir)
			if second.requests != 0 || second.moved != 0 || len(second.bodies) != 3 {
				t.Errorf("second run: %d requests, %v of pace, %d pages; want 0, 0, 3", second.requests, second.moved, len(second.bodies))
			}
			both := crawlCached(t, s, s.urls("nostore"), cacheDir, WithPageCache(t.TempDir()))
			if n := strings.Count(both.logs, "CacheDir is set beside WithPageCache"); n != 1 {
				t.Errorf("%d warnings of CacheDir beside WithPageCache, want 1", n)
			}
		}},
		// a request a later OnRequest callback
		// aborts after the cache claimed it leaves no mark behind for long.
		{"a request aborted after the page cache claimed it", func(t *testing.T) {
			clk := &stepClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
			s := newCacheSite(t, clk, "User-agent: *\nCrawl-delay: 0\n")
			dir := t.TempDir()
			urls := s.urls("fresh")[:1]
			crawlCached(t, s, urls, nil, WithPageCache(dir))
			var ext *Extension
			run := crawlCached(t, s, nil, func(c *colly.Collector, e *Extension) {
				ext = e
				c.OnRequest(func(r *colly.Request) { r.Abort() })
				for range pagecache.MaxMarks + 10 {
					_ = c.Visit(urls[0])
				}
			}, WithPageCache(dir))
			if n := ext.local.Len(); n > pagecache.MaxMarks {
				t.Errorf("%d marks left by aborted requests, want at most %d", n, pagecache.MaxMarks)
			}
			if run.requests != 0 {
				t.Errorf("%d requests", run.requests)
			}
		}},
		// pagecache_cases_test.go: the request as sent decides, and no page
		// is lost.
		{"cookies in the jar and Vary fields set by callbacks after Apply", seamPageCacheVary},
		{"a validator or no-cache set by a callback after Apply", seamPageCacheUserValidator},
		{"the retry idiom after a revalidation's 429", seamPageCacheRetry},
		{"an abort in OnResponseHeaders", seamPageCacheAbort},
		{"the transport setups of Apply's doc", seamPageCacheTransport},
		// pagecache_wire_test.go: a cached redirect followed through
		// Colly's redirect handler, and a transport set before Apply.
		{"a fresh 301 or 308 followed, refused, or to a fresh target", seamPageCacheRedirect},
		{"a proxy or transport set before Apply", seamPageCacheTransportBeforeApply},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			row.run(t)
		})
	}
}
