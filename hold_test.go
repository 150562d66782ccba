package robotsext

// End-to-end tests of WithDeferUnreachable: requests refused only because
// robots.txt is unreachable are held and decided by the first answer that
// comes, through real Colly collectors and loopback servers.

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
)

// flakyRobots fails its first fails requests, then serves body: by
// default with 503 and Retry-After: 1; with status set, that status and
// Retry-After: 1; with hangUp, by closing the connection without an answer
// (a network error to the client). It records when the first good answer
// was sent, and, by clock when set (else time.Now), when each request
// arrived.
type flakyRobots struct {
	fails  int32
	body   string
	status int
	hangUp bool
	clock  func() time.Time

	n        atomic.Int32
	mu       sync.Mutex
	goodAt   time.Time   // guarded by mu
	arrivals []time.Time // guarded by mu
}

func (f *flakyRobots) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now
	if f.clock != nil {
		now = f.clock
	}
	f.mu.Lock()
	f.arrivals = append(f.arrivals, now())
	f.mu.Unlock()
	if f.n.Add(1) <= f.fails {
		switch {
		case f.hangUp:
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				panic(err)
			}
			conn.Close()
		default:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(cmp.Or(f.status, http.StatusServiceUnavailable))
		}
		return
	}
	f.mu.Lock()
	if f.goodAt.IsZero() {
		f.goodAt = time.Now()
	}
	f.mu.Unlock()
	fmt.Fprint(w, f.body)
}

// gaps returns the time between consecutive requests, by f's clock.
func (f *flakyRobots) gaps() []time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	var gs []time.Duration
	for i := 1; i < len(f.arrivals); i++ {
		gs = append(gs, f.arrivals[i].Sub(f.arrivals[i-1]))
	}
	return gs
}

func (f *flakyRobots) firstGood() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.goodAt
}

// holdCrawlClock crawls pages of s with a collector (Async or not) whose
// Extension is made with opts, and returns the Extension and the blocked
// verdicts by path; the Extension runs on clk when it is not
// nil: its clock, and the sleeps of held requests, are clk's.
func holdCrawlClock(t *testing.T, s *accSite, async bool, pages []string, clk *stepClock, opts ...Option) (*Extension, map[string][]Verdict) {
	t.Helper()
	c, client := accCollector(t, "AcmeBot/2.1")
	c.Async = async
	if clk != nil {
		opts = append(opts, WithClock(clk.now), withSleep(clk.sleep))
	}
	ext := Apply(c, append([]Option{client}, opts...)...)
	var mu sync.Mutex
	blocked := map[string][]Verdict{}
	ext.OnBlocked(func(r *colly.Request, v Verdict) {
		mu.Lock()
		blocked[r.URL.Path] = append(blocked[r.URL.Path], v)
		mu.Unlock()
	})
	accVisit(t, c, s.URL, pages...)
	c.Wait()
	return ext, blocked
}

// TestDeferUnreachableRecovers: robots.txt fails twice (503 with
// Retry-After: 1, 429 with Retry-After: 1, or a connection closed without
// an answer, a network error whose backoff is a minute, then two), then
// serves a file disallowing
// /private/. With WithDeferUnreachable every allowed page reaches the
// server exactly once and none before the first good answer, /private/ is
// refused once by its rule, robots.txt is asked again only after the
// origin's Retry-After or backoff, and Stats count the held and released
// requests. The control without the option loses every page. Every case
// runs on a hand-moved clock: the subject is what is held and released,
// and when robots.txt is asked again by the Extension's clock, not how
// long a real second is.
func TestDeferUnreachableRecovers(t *testing.T) {
	t.Parallel()
	var pages []string
	for i := range 12 {
		pages = append(pages, fmt.Sprintf("/p/%d", i))
	}
	pages = append(pages, "/private/x")
	failures := []struct {
		name     string
		robots   func() *flakyRobots
		wantGaps []time.Duration // between robots.txt requests, at least, by the clock
	}{
		{"503 Retry-After", func() *flakyRobots { return &flakyRobots{} },
			[]time.Duration{time.Second, time.Second}},
		{"429 Retry-After", func() *flakyRobots { return &flakyRobots{status: http.StatusTooManyRequests} },
			[]time.Duration{time.Second, time.Second}},
		{"connection closed", func() *flakyRobots { return &flakyRobots{hangUp: true} },
			[]time.Duration{time.Minute, 2 * time.Minute}},
	}
	for _, fl := range failures {
		for _, async := range []bool{false, true} {
			for _, deferred := range []bool{true, false} {
				name := fmt.Sprintf("%s/async=%v/defer=%v", fl.name, async, deferred)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					robots := fl.robots()
					robots.fails, robots.body = 2, "User-agent: *\nDisallow: /private/\n"
					clk := &stepClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
					robots.clock = clk.now
					s := newAccSite(t, robots.ServeHTTP)
					var opts []Option
					if deferred {
						// Held requests sleeping at once each move the
						// clock: the bound leaves room for all of them.
						opts = append(opts, WithDeferUnreachable(10*time.Minute))
					}
					ext, blocked := holdCrawlClock(t, s, async, pages, clk, opts...)
					got := s.pages()
					st := ext.Stats()
					if !deferred {
						if len(got) != 0 || len(blocked) != len(pages) {
							t.Errorf("control: server saw %d pages, %d blocked; want 0 and %d (every page lost)", len(got), len(blocked), len(pages))
						}
						for p, vs := range blocked {
							if len(vs) != 1 || vs[0].Reason != ReasonUnreachable {
								t.Errorf("control: OnBlocked for %s: %+v; want once, unreachable", p, vs)
							}
						}
						t.Logf("control: %d of %d pages reached the server", len(got), len(pages)-1)
						return
					}
					want := slices.Sorted(slices.Values(pages[:len(pages)-1]))
					if !slices.Equal(got, want) {
						t.Errorf("server saw %q, want each allowed page once: %q", got, want)
					}
					good := robots.firstGood()
					for _, h := range s.all() {
						if h.path != "/robots.txt" && h.at.Before(good) {
							t.Errorf("%s reached the server before the first good robots.txt answer", h.path)
						}
					}
					if vs := blocked["/private/x"]; len(vs) != 1 || vs[0].Reason != ReasonDisallowRule || vs[0].Line != 2 {
						t.Errorf("OnBlocked for /private/x: %+v; want once, by the rule on line 2", vs)
					}
					if len(blocked) != 1 {
						t.Errorf("OnBlocked for %d paths, want only /private/x: %v", len(blocked), blocked)
					}
					if st.Held == 0 || st.Released != st.Held || st.GaveUp != 0 {
						t.Errorf("Stats Held %d, Released %d, GaveUp %d; want every held request released", st.Held, st.Released, st.GaveUp)
					}
					gaps := robots.gaps()
					if len(gaps) != len(fl.wantGaps) {
						t.Errorf("robots.txt requested %d times, want %d (two failures, then the good answer)", len(gaps)+1, len(fl.wantGaps)+1)
					}
					for i, g := range gaps[:min(len(gaps), len(fl.wantGaps))] {
						if g < fl.wantGaps[i] {
							t.Errorf("robots.txt attempt %d came %v after the one before, want ≥ %v (Retry-After or backoff kept)", i+2, g, fl.wantGaps[i])
						}
					}
					t.Logf("kept %d of %d pages; held %d requests; robots.txt requested %d times, %v apart",
						len(got), len(pages)-1, st.Held, robots.n.Load(), gaps)
				})
			}
		}
	}
}

// TestDeferUnreachableGivesUp: a robots.txt that never recovers refuses
// each held URL once the bound has passed, with the unreachable Verdict
// and its RetryAt, reported to OnBlocked once per URL. On a hand-moved
// clock: the bound is measured by the Extension's clock.
func TestDeferUnreachableGivesUp(t *testing.T) {
	t.Parallel()
	for _, async := range []bool{false, true} {
		t.Run(fmt.Sprintf("async=%v", async), func(t *testing.T) {
			t.Parallel()
			clk := &stepClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
			robots := &flakyRobots{fails: 1 << 30, clock: clk.now}
			s := newAccSite(t, robots.ServeHTTP)
			pages := []string{"/a", "/b", "/c"}
			const bound = 2500 * time.Millisecond
			start := clk.now()
			ext, blocked := holdCrawlClock(t, s, async, pages, clk, WithDeferUnreachable(bound))
			took := clk.now().Sub(start)
			if got := s.pages(); len(got) != 0 {
				t.Errorf("server saw %q, want nothing", got)
			}
			for _, p := range pages {
				vs := blocked[p]
				if len(vs) != 1 || vs[0].Reason != ReasonUnreachable || vs[0].RetryAt.IsZero() {
					t.Errorf("OnBlocked for %s: %+v; want once, unreachable, with RetryAt", p, vs)
				}
			}
			st := ext.Stats()
			if st.GaveUp != uint64(len(pages)) || st.Released != 0 {
				t.Errorf("Stats GaveUp %d, Released %d; want %d and 0", st.GaveUp, st.Released, len(pages))
			}
			// Each attempt within the bound was made (one a second).
			if n := robots.n.Load(); n < 2 {
				t.Errorf("robots.txt requested %d times within %v, want the attempts the backoff allows", n, bound)
			}
			if took < bound {
				t.Errorf("refused after %v by the clock, before the bound %v", took, bound)
			}
			t.Logf("refused after %v by the clock; robots.txt requested %d times", took.Round(time.Millisecond), robots.n.Load())
		})
	}
}

// TestDeferUnreachableBounded: past the limit of held requests, a request
// is refused at once, as without the option; the collector's context
// ending releases the held ones, and the goroutines return to baseline
// after Wait.
func TestDeferUnreachableBounded(t *testing.T) {
	t.Parallel()
	robots := &flakyRobots{fails: 1 << 30}
	s := newAccSite(t, robots.ServeHTTP)
	ctx, cancel := context.WithCancel(t.Context())
	c := colly.NewCollector(colly.Async(true), colly.StdlibContext(ctx))
	tr := accTransport(t)
	c.WithTransport(tr)
	ext := Apply(c, WithHTTPClient(&http.Client{Transport: tr}), WithDeferUnreachable(time.Hour))
	ext.maxHeld = 5
	var refused atomic.Int32
	ext.OnBlocked(func(*colly.Request, Verdict) { refused.Add(1) })
	for i := range 8 {
		if err := c.Visit(fmt.Sprintf("%s/p/%d", s.URL, i)); err != nil {
			t.Fatal(err)
		}
	}
	// Three are refused at once; five stay held until the context ends.
	deadline := time.Now().Add(10 * time.Second)
	for refused.Load() < 3 || ext.held.Load() < 5 {
		if time.Now().After(deadline) {
			t.Fatalf("refused %d, held %d; want 3 and 5", refused.Load(), ext.held.Load())
		}
		runtime.Gosched()
		time.Sleep(time.Millisecond)
	}
	cancel()
	c.Wait()
	st := ext.Stats()
	if st.HoldFull != 3 || st.Held != 5 || ext.held.Load() != 0 || st.Cancelled != 5 {
		t.Errorf("Stats HoldFull %d, Held %d, Cancelled %d, held now %d; want 3, 5, 5, 0", st.HoldFull, st.Held, st.Cancelled, ext.held.Load())
	}
	if refused.Load() != 3 {
		t.Errorf("OnBlocked called %d times, want 3 (the held ones were released by the context, not refused)", refused.Load())
	}
}

// TestDeferUnreachableThousands holds 2,000 URLs of one origin through an
// outage of two robots.txt attempts: all reach the server once the file
// is back, memory per held request stays small, and goroutines return to
// their baseline after Wait. The Extension runs on a hand-moved clock
// that stands still until the test has measured: the subject is how much
// the held requests cost, not how long a real second (each attempt's
// Retry-After) is, and the requests stay held however slowly this
// machine queues 2,000 of them.
func TestDeferUnreachableThousands(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 requests")
	}
	// The subject is the hold, not the pace: the site asks for none.
	robots := &flakyRobots{fails: 2, body: "User-agent: *\nAllow: /\nCrawl-delay: 0\n"}
	s := newAccSite(t, robots.ServeHTTP)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	// Released, the 2,000 pages share a few connections: dialling one
	// each (and serving it) is most of the test's time under -race, and
	// not its subject, which is what a held request costs while held.
	tr.MaxConnsPerHost = 8
	t.Cleanup(tr.CloseIdleConnections)
	c := colly.NewCollector(colly.Async(true), colly.StdlibContext(t.Context()))
	c.WithTransport(tr)
	clk := &stillClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC), moves: make(chan struct{})}
	robots.clock = clk.now
	sleep := func(ctx context.Context, d time.Duration) error {
		// A timer each, as the real clock's sleep (sleepCtx) holds, so
		// that the bytes per held request are the real ones.
		tm := time.NewTimer(d)
		defer tm.Stop()
		return clk.sleep(ctx, d)
	}
	ext := Apply(c, WithHTTPClient(&http.Client{Transport: tr}), WithDeferUnreachable(20*time.Second),
		WithClock(clk.now), withSleep(sleep))
	before := runtime.NumGoroutine()
	var ms0 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	const n = 2000
	for i := range n {
		if err := c.Visit(fmt.Sprintf("%s/p/%d", s.URL, i)); err != nil {
			t.Fatal(err)
		}
	}
	// Measure while they are held.
	deadline := time.Now().Add(10 * time.Second)
	for ext.held.Load() < n && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	held := ext.held.Load()
	var ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms1)
	perReq := (int64(ms1.HeapInuse+ms1.StackInuse) - int64(ms0.HeapInuse+ms0.StackInuse)) / max(held, 1)
	close(clk.moves) // the Retry-After of each failed attempt may pass now
	c.Wait()
	if got := len(s.pages()); got != n {
		t.Errorf("server saw %d pages, want %d", got, n)
	}
	if held < n {
		t.Errorf("only %d of %d requests were held at once", held, n)
	}
	// Idle keep-alive connections keep a few goroutines of the
	// transport; close them before counting.
	tr.CloseIdleConnections()
	deadline = time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before+8 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if g := runtime.NumGoroutine(); g > before+8 {
		t.Errorf("%d goroutines after Wait, %d before the crawl", g, before)
	}
	if perReq > 16<<10 {
		t.Errorf("%d bytes per held request (heap and stacks, Colly's goroutine included), want ≤ 16 KiB", perReq)
	}
	t.Logf("%d requests held at once, %d bytes each (heap + stack, Colly's own goroutine included); goroutines %d before, %d after",
		held, perReq, before, runtime.NumGoroutine())
}
