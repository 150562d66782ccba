package robotsext

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/internal/pacing"
)

// TestPauseCauses: PauseCause is the public face of pacing.Cause, which
// the back-off reports: the same values and the same labels, for every
// cause this version defines.
func TestPauseCauses(t *testing.T) {
	t.Parallel()
	want := []pacing.Cause{pacing.CauseTooManyRequests, pacing.CauseUnavailable, pacing.CauseServerErrors, pacing.CauseProbeFailed, pacing.CauseRateLimit}
	got := PauseCauses()
	if len(got) != len(want) {
		t.Fatalf("PauseCauses() = %v, want %d causes", got, len(want))
	}
	for i, c := range got {
		if uint8(c) != uint8(want[i]) || c.String() != want[i].String() {
			t.Errorf("PauseCauses()[%d] = %d %q, want pacing's %d %q", i, c, c, want[i], want[i])
		}
	}
	if last := got[len(got)-1]; int(last) >= pacing.MaxCauses {
		t.Errorf("%v = %d is not counted (pacing.MaxCauses %d)", last, last, pacing.MaxCauses)
	}
	if s := PauseCause(9).String(); s != "cause_9" {
		t.Errorf("PauseCause(9) = %q, want cause_9", s)
	}
}

// overload is a site whose pages answer an overload status for a window
// that starts with the first page request, then 200. It counts page
// requests during the window and after, and the paths answered 200.
type overload struct {
	*httptest.Server
	window time.Duration
	status int
	ra     func(now time.Time) string // Retry-After; "" for none

	mu     sync.Mutex
	start  time.Time
	during int             // page requests that arrived in the window
	after  int             // page requests after it
	ok     map[string]bool // paths answered 200
}

func newOverload(t *testing.T, window time.Duration, status int, ra func(time.Time) string) *overload {
	t.Helper()
	s := &overload{window: window, status: status, ra: ra, ok: map[string]bool{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nAllow: /\nCrawl-delay: 0\n") // the subject is the back-off, not the pace
			return
		}
		now := time.Now()
		s.mu.Lock()
		if s.start.IsZero() {
			s.start = now
		}
		in := now.Sub(s.start) < s.window
		if in {
			s.during++
		} else {
			s.after++
			s.ok[r.URL.Path] = true
		}
		s.mu.Unlock()
		if in {
			if v := s.ra(now); v != "" {
				w.Header().Set("Retry-After", v)
			}
			w.WriteHeader(s.status)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *overload) counts() (during, after, ok int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.during, s.after, len(s.ok)
}

// scenario is one of issue 27's cases: a collector against an overloaded
// host, with or without the retry idiom most Colly users write.
type scenario struct {
	name      string
	async     bool
	pages     int
	status    int
	ra        func(time.Time) string
	retries   int // the retry idiom's cap of attempts per URL; 0: no retry
	opts      []Option
	maxDuring int // with the back-off: at most this many requests in the window
	wantOK    int // with the back-off: at least this many pages answered 200
}

// run crawls s's pages and returns the site's counts.
func (sc scenario) run(t *testing.T, backoff bool) (during, after, ok int) {
	during, after, ok, _ = sc.runFleet(t, backoff, 1, nil)
	return during, after, ok
}

// runFleet crawls sc's pages with workers collectors, each with an
// Extension of its own sharing be (nil: none), the pages dealt out in
// turn, and returns the site's counts and the sum of the Extensions'
// Stats' pauses and probes.
func (sc scenario) runFleet(t *testing.T, backoff bool, workers int, be backend.Backend) (during, after, ok int, st Stats) {
	t.Helper()
	site := newOverload(t, time.Second, sc.status, sc.ra)
	var cs []*colly.Collector
	var exts []*Extension
	for range workers {
		c := colly.NewCollector(colly.UserAgent("AcmeBot/1.0"), colly.Async(sc.async))
		if sc.async {
			if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 4}); err != nil {
				t.Fatal(err)
			}
		}
		opts := append([]Option{quiet()}, sc.opts...)
		if !backoff {
			opts = append(opts, WithoutBackoff())
		}
		if be != nil {
			opts = append(opts, WithBackend(be))
		}
		exts = append(exts, Apply(c, opts...))
		var mu sync.Mutex
		attempts := map[string]int{}
		if sc.retries > 0 {
			c.OnError(func(r *colly.Response, err error) {
				if r.StatusCode != http.StatusTooManyRequests && r.StatusCode < 500 {
					return
				}
				u := r.Request.URL.String()
				mu.Lock()
				attempts[u]++
				n := attempts[u]
				mu.Unlock()
				if n < sc.retries {
					_ = r.Request.Retry()
				}
			})
		}
		cs = append(cs, c)
	}
	var wg sync.WaitGroup
	for w, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < sc.pages; i += workers {
				_ = c.Visit(fmt.Sprintf("%s/p/%d", site.URL, i))
			}
			c.Wait()
		}()
	}
	wg.Wait()
	st.Pauses = map[PauseCause]uint64{}
	for _, e := range exts {
		s := e.Stats()
		for c, n := range s.Pauses {
			st.Pauses[c] += n
		}
		st.Probes += s.Probes
		st.BackoffRequeued += s.BackoffRequeued
		st.BackendErrors += s.BackendErrors
	}
	during, after, ok = site.counts()
	return during, after, ok, st
}

func httpDateIn(d time.Duration) func(time.Time) string {
	return func(now time.Time) string { return now.Add(d).UTC().Format(http.TimeFormat) }
}

func fixedRA(v string) func(time.Time) string { return func(time.Time) string { return v } }

// TestBackoffScenarios runs issue 27's cases against real servers whose
// overload lasts one second of real time, with and without the back-off.
// They measure real time because the subject is what reaches a real
// server while it is overloaded: the window must be wall-clock time, and
// one second keeps each case short (they run in parallel).
func TestBackoffScenarios(t *testing.T) {
	t.Parallel()
	cases := []scenario{
		{name: "async P4 vs 503 Retry-After 1", async: true, pages: 200, status: 503, ra: fixedRA("1"),
			maxDuring: 12, wantOK: 190},
		{name: "retry idiom (30) vs 503 Retry-After 1, 40 pages", async: true, pages: 40, status: 503, ra: fixedRA("1"),
			retries: 30, maxDuring: 12, wantOK: 40},
		{name: "sync retry idiom vs 429 HTTP-date", pages: 10, status: 429, ra: httpDateIn(2 * time.Second),
			retries: 30, maxDuring: 4, wantOK: 10},
		{name: "retry idiom vs a run of 502", async: true, pages: 20, status: 502, ra: fixedRA(""),
			retries: 30, opts: []Option{WithBackoffBase(400 * time.Millisecond)}, maxDuring: 16, wantOK: 20},
	}
	for _, sc := range cases {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			bd, ba, bok := sc.run(t, false)
			ad, aa, aok := sc.run(t, true)
			t.Logf("%s: without back-off %d requests in the overload, %d after, %d pages 200; with it %d, %d, %d",
				sc.name, bd, ba, bok, ad, aa, aok)
			if ad > sc.maxDuring {
				t.Errorf("with the back-off, %d requests reached the overloaded host, want ≤ %d", ad, sc.maxDuring)
			}
			if aok < sc.wantOK {
				t.Errorf("with the back-off, %d pages answered 200, want ≥ %d", aok, sc.wantOK)
			}
			if bd <= ad {
				t.Errorf("without the back-off %d requests in the overload, with it %d: no difference", bd, ad)
			}
		})
	}
}

// TestBackoffNoHeadOfLine: while one host is paused, requests to another
// host sharing the collector's only LimitRule (Parallelism 2, every
// domain) are not held up: every page of the healthy host is answered
// while the paused host is still paused. The pause runs on a hand-moved
// clock that stands still until the healthy pages are all answered, so
// the test does not depend on how fast the machine serves them: were the
// paused host's requests waiting inside the LimitRule's slots, the healthy
// pages would never be answered.
func TestBackoffNoHeadOfLine(t *testing.T) {
	t.Parallel()
	var sickMu sync.Mutex
	var sick503, sick200 int
	sick := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nAllow: /\nCrawl-delay: 0\n") // no pace: the gaps are the back-off's
			return
		}
		sickMu.Lock()
		defer sickMu.Unlock()
		if sick503 == 0 {
			sick503++
			w.Header().Set("Retry-After", "60")
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		sick200++
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(sick.Close)
	var mu sync.Mutex
	var phases []string
	var ext *Extension
	healthyDone := make(chan struct{})
	healthy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nAllow: /\nCrawl-delay: 0\n") // no pace: the gaps are the back-off's
			return
		}
		info, _ := ext.Origin(sick.URL + "/")
		mu.Lock()
		phases = append(phases, info.Pause)
		if len(phases) == 30 {
			close(healthyDone)
		}
		mu.Unlock()
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(healthy.Close)
	clk := &stillClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), moves: make(chan struct{})}
	c := colly.NewCollector(colly.UserAgent("AcmeBot/1.0"), colly.Async(true))
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 2}); err != nil {
		t.Fatal(err)
	}
	ext = Apply(c, quiet(), WithClock(clk.now), withSleep(clk.sleep))
	// The sick host first: its first answer pauses it (the Extension's
	// hook runs before this one), and the rest of its pages wait in the
	// OnRequest hook, taking no slot.
	answered := make(chan struct{})
	c.OnResponseHeaders(func(r *colly.Response) {
		if r.Request.URL.Path == "/first" {
			close(answered)
		}
	})
	_ = c.Visit(sick.URL + "/first")
	<-answered
	for i := range 10 {
		_ = c.Visit(fmt.Sprintf("%s/p/%d", sick.URL, i))
	}
	for i := range 30 {
		_ = c.Visit(fmt.Sprintf("%s/h/%d", healthy.URL, i))
	}
	select {
	case <-healthyDone:
	case <-time.After(30 * time.Second):
		mu.Lock()
		n := len(phases)
		mu.Unlock()
		t.Errorf("%d pages of the healthy host answered in 30 s while the other host was paused, want 30", n)
	}
	sickMu.Lock()
	early := sick200
	sickMu.Unlock()
	if early != 0 {
		t.Errorf("%d pages of the paused host answered before its pause could end", early)
	}
	close(clk.moves) // the pause may end now
	c.Wait()
	mu.Lock()
	defer mu.Unlock()
	for i, p := range phases {
		if p != "paused" {
			t.Fatalf("healthy page %d answered while the other host was %q, want every one during its pause", i, p)
		}
	}
	sickMu.Lock()
	defer sickMu.Unlock()
	if sick503 != 1 || sick200 != 10 {
		t.Fatalf("sick host: %d answers 503, %d pages 200; want 1 and 10", sick503, sick200)
	}
}

// stillClock is a hand-moved clock that stands still until moves is
// closed. A sleep of d from t waits for that (or for its context), then
// moves the clock on to t+d unless it is already later: sleeps that
// overlap move it once, as on a real clock.
type stillClock struct {
	mu    sync.Mutex
	t     time.Time
	moves chan struct{}
}

func (c *stillClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *stillClock) sleep(ctx context.Context, d time.Duration) error {
	wake := c.now().Add(max(d, 0))
	select {
	case <-c.moves:
	case <-ctx.Done():
		return ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if wake.After(c.t) {
		c.t = wake
	}
	return nil
}

// TestBackoffRefusedPastTheBound: a host pausing for longer than
// WithBackoffWait allows refuses the requests at once, each reported to
// OnBlocked with ReasonBackoff and the pause's end as RetryAt; nothing is
// lost, nothing waits.
func TestBackoffRefusedPastTheBound(t *testing.T) {
	t.Parallel()
	site := newOverload(t, time.Hour, 429, fixedRA("120"))
	c := colly.NewCollector(colly.UserAgent("AcmeBot/1.0"))
	ext := Apply(c, quiet(), WithBackoffWait(time.Minute), withRand(noJitter)) // the pause exactly as asked
	var mu sync.Mutex
	var refused []Verdict
	ext.OnBlocked(func(r *colly.Request, v Verdict) {
		mu.Lock()
		refused = append(refused, v)
		mu.Unlock()
	})
	errs := 0
	c.OnError(func(*colly.Response, error) { errs++ })
	start := time.Now()
	for i := range 10 {
		_ = c.Visit(fmt.Sprintf("%s/p/%d", site.URL, i))
	}
	during, _, _ := site.counts()
	if during != 1 || errs != 1 || len(refused) != 9 {
		t.Fatalf("%d requests sent, %d errors, %d refused; want 1, 1, 9", during, errs, len(refused))
	}
	for _, v := range refused {
		if v.Allowed || v.Reason != ReasonBackoff || v.RetryAt.Before(start.Add(119*time.Second)) || v.RetryAt.After(time.Now().Add(120*time.Second)) {
			t.Fatalf("refusal %+v: want ReasonBackoff with RetryAt 120 s on", v)
		}
	}
	st := ext.Stats()
	if st.BackoffRefused != 9 || st.Blocked[ReasonBackoff] != 9 || st.Pauses[PauseTooManyRequests] != 1 || st.PausedHosts != 1 {
		t.Fatalf("stats: refused %d, blocked %d, pauses %v, paused hosts %d", st.BackoffRefused, st.Blocked[ReasonBackoff], st.Pauses, st.PausedHosts)
	}
	info, ok := ext.Origin(site.URL)
	if !ok || info.Pause != "paused" || info.PauseCause != PauseTooManyRequests || info.PauseEnds.Before(start.Add(119*time.Second)) {
		t.Fatalf("Origin: %+v", info)
	}
}

// TestBackoffSignals: which answers pause a host. A synchronous collector
// visits the paths in order against a server answering each path's
// status; the host pauses (WithBackoffWait small, so that later requests
// are refused rather than waiting) or not.
func TestBackoffSignals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		visits []string // "status" or "status:path"
		shadow bool
		cause  PauseCause
	}{
		{"404s and 403s are no signal", []string{"404:a", "404:b", "403:c", "410:d", "404:e"}, false, 0},
		{"one broken URL among working ones", []string{"500:x", "200:a", "500:x", "200:b", "500:x", "200:c", "500:x"}, false, 0},
		{"one broken URL retried", []string{"500:x", "500:x", "500:x", "500:x", "500:x"}, false, 0},
		{"a run of 502 on three URLs", []string{"502:a", "502:b", "502:c"}, false, PauseServerErrors},
		{"two 500s then a 200 then two: no run", []string{"500:a", "500:b", "200:c", "500:d", "500:e"}, false, 0},
		{"one 429", []string{"429:a"}, false, PauseTooManyRequests},
		{"one 503", []string{"503:a"}, false, PauseUnavailable},
		{"shadow mode pauses nothing", []string{"503:a", "503:b"}, true, PauseUnavailable},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					fmt.Fprint(w, "User-agent: *\nAllow: /\n")
					return
				}
				var code int
				fmt.Sscanf(r.URL.Query().Get("s"), "%d", &code)
				w.WriteHeader(code)
			}))
			t.Cleanup(srv.Close)
			c := colly.NewCollector(colly.UserAgent("AcmeBot/1.0"), colly.AllowURLRevisit())
			opts := []Option{quiet(), WithBackoffWait(time.Millisecond), WithBackoffBase(time.Hour), WithDefaultDelay(0)} // the signals, not the pace
			if tc.shadow {
				opts = append(opts, WithShadowMode())
			}
			ext := Apply(c, opts...)
			for _, v := range tc.visits {
				code, path, _ := strings.Cut(v, ":")
				_ = c.Visit(srv.URL + "/" + path + "?s=" + code)
			}
			_ = c.Visit(srv.URL + "/last?s=200")
			st := ext.Stats()
			paused := st.BackoffRefused > 0
			if want := tc.cause != 0 && !tc.shadow; paused != want {
				t.Fatalf("the last request refused: %v, want %v (stats %+v)", paused, want, st.Pauses)
			}
			if tc.cause != 0 && st.Pauses[tc.cause] != 1 {
				t.Fatalf("pauses %v, want one for %v", st.Pauses, tc.cause)
			}
			if tc.cause == 0 && len(st.Pauses) != 0 {
				t.Fatalf("pauses %v, want none", st.Pauses)
			}
		})
	}
}

// TestBackoffFleetMemory: three workers (Extensions of their own, Async
// collectors) share a backend.Memory against a host answering 429
// Retry-After 1 for a second of real time, with the retry idiom: the
// pause one worker sees holds for all, one pause is logged and counted
// for the fleet, and the fleet sends one probe. Real time, as in
// TestBackoffScenarios.
func TestBackoffFleetMemory(t *testing.T) {
	t.Parallel()
	sc := scenario{async: true, pages: 60, status: 429, ra: fixedRA("1"), retries: 30}
	bd, _, bok, _ := sc.runFleet(t, false, 3, backend.NewMemory())
	ad, _, aok, st := sc.runFleet(t, true, 3, backend.NewMemory())
	t.Logf("3 workers vs 429 Retry-After 1: without back-off %d requests in the overload, %d pages 200; with it %d, %d (pauses %v, probes %d, requeued %d)",
		bd, bok, ad, aok, st.Pauses, st.Probes, st.BackoffRequeued)
	if ad > 16 || aok != sc.pages {
		t.Errorf("with the back-off %d requests in the overload and %d pages 200; want ≤ 16 and %d", ad, aok, sc.pages)
	}
	if st.Pauses[PauseTooManyRequests] != 1 || st.Probes != 1 {
		t.Errorf("the fleet counted %v pauses and %d probes; want one of each", st.Pauses, st.Probes)
	}
	if st.BackendErrors != 0 {
		t.Errorf("%d backend errors", st.BackendErrors)
	}
}

// failingPauser is a backend.Memory whose Pauser calls all fail, as a
// Backend that is down would.
type failingPauser struct{ *backend.Memory }

var errPauserDown = fmt.Errorf("pauser down")

func (failingPauser) Pause(context.Context, string, time.Duration, time.Duration, time.Duration) (time.Duration, bool, bool, bool, error) {
	return 0, false, false, false, errPauserDown
}
func (failingPauser) Ask(context.Context, string, string) (time.Duration, bool, bool, bool, error) {
	return 0, false, false, false, errPauserDown
}
func (failingPauser) Answered(context.Context, string, string) (bool, error) {
	return false, errPauserDown
}
func (failingPauser) Paused(context.Context, int) ([]string, error) { return nil, errPauserDown }

// TestBackoffBackendDown: when the Backend's Pauser fails, each worker
// backs off on its own (the failure counted as a backend error), and the
// host is still spared. Real time, as in TestBackoffScenarios.
func TestBackoffBackendDown(t *testing.T) {
	t.Parallel()
	sc := scenario{async: true, pages: 40, status: 503, ra: fixedRA("1"), retries: 30}
	during, _, ok, st := sc.runFleet(t, true, 1, failingPauser{backend.NewMemory()})
	t.Logf("Pauser down: %d requests in the overload, %d pages 200, %d backend errors, pauses %v", during, ok, st.BackendErrors, st.Pauses)
	if during > 8 || ok != sc.pages || st.BackendErrors == 0 || st.Pauses[PauseUnavailable] != 1 {
		t.Fatalf("%d requests in the overload, %d pages 200, %d backend errors, pauses %v; want ≤ 8, %d, some, one local pause",
			during, ok, st.BackendErrors, st.Pauses, sc.pages)
	}
}

// TestBackoffAbortedProbe proves that a probe aborted by an OnRequest
// callback registered after Apply (Colly's everyday URL filter) stalls
// its host for about 2 s plus two delays, not 30 s: one host at
// Crawl-delay 0.1 answers /p0 with 503 Retry-After: 1; /p1–/p4 are
// visited 0.3 s later, and the filter aborts the first of them to leave
// the hook (the probe, which never reaches the wire). The next request
// probes once the aborted one's time to reach the wire is over, and every
// page still due arrives within seconds. It runs on the real clock, as
// the crawl goes through Colly; the 20 s bound is a failing run's. Before,
// nothing reached the server until the probe expired, 31 s in.
func TestBackoffAbortedProbe(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			io.WriteString(w, "User-agent: *\nCrawl-delay: 0.1\n")
		case "/p0":
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			mu.Lock()
			got = append(got, r.URL.Path)
			mu.Unlock()
			tinyPage(w)
		}
	}))
	t.Cleanup(srv.Close)
	cr := newCrawler(t, srv, true)
	var aborted atomic.Bool
	cr.c.OnRequest(func(r *colly.Request) { // after Apply: runs once the hook let r go
		if r.URL.Path != "/p0" && aborted.CompareAndSwap(false, true) {
			r.Abort()
		}
	})
	start := time.Now()
	if err := cr.c.Visit("http://h.test/p0"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // the scenario's: the pages come during the pause
	for _, u := range []string{"/p1", "/p2", "/p3", "/p4"} {
		if err := cr.c.Visit("http://h.test" + u); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	go func() { cr.c.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second): // only a failing run waits this long
		t.Fatal("the host's pages still wait for a probe aborted 20 s ago")
	}
	took := time.Since(start)
	mu.Lock()
	defer mu.Unlock()
	t.Logf("pages %v fetched in %v", got, took)
	if len(got) != 3 || !aborted.Load() {
		t.Errorf("server saw %v (aborted one: %v); want the three pages not aborted", got, aborted.Load())
	}
}
