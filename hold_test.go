package robotsext

// End-to-end tests of WithDeferUnreachable: requests refused only because
// robots.txt is unreachable are held and decided by the first answer that
// comes, through real Colly collectors and loopback servers.

import (
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

// flakyRobots answers 503 with Retry-After: 1 to its first fails requests,
// then serves body. It records when the first good answer was sent.
type flakyRobots struct {
	fails  int32
	body   string
	n      atomic.Int32
	mu     sync.Mutex
	goodAt time.Time // guarded by mu
}

func (f *flakyRobots) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.n.Add(1) <= f.fails {
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	f.mu.Lock()
	if f.goodAt.IsZero() {
		f.goodAt = time.Now()
	}
	f.mu.Unlock()
	fmt.Fprint(w, f.body)
}

func (f *flakyRobots) firstGood() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.goodAt
}

// holdCrawl crawls pages of s with a collector (Async or not) whose
// Extension is made with opts, and returns the Extension and the blocked
// verdicts by path.
func holdCrawl(t *testing.T, s *accSite, async bool, pages []string, opts ...Option) (*Extension, map[string][]Verdict) {
	t.Helper()
	c, client := accCollector(t, "AcmeBot/2.1")
	c.Async = async
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

// TestDeferUnreachableRecovers: robots.txt answers 503 (Retry-After: 1)
// twice, then a file disallowing /private/. With WithDeferUnreachable
// every allowed page reaches the server exactly once and none before the
// first good answer, /private/ is refused once by its rule, and Stats
// count the held and released requests. The control without the option
// loses every page.
func TestDeferUnreachableRecovers(t *testing.T) {
	t.Parallel()
	var pages []string
	for i := range 12 {
		pages = append(pages, fmt.Sprintf("/p/%d", i))
	}
	pages = append(pages, "/private/x")
	for _, async := range []bool{false, true} {
		for _, deferred := range []bool{true, false} {
			name := fmt.Sprintf("async=%v/defer=%v", async, deferred)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				robots := &flakyRobots{fails: 2, body: "User-agent: *\nDisallow: /private/\n"}
				s := newAccSite(t, robots.ServeHTTP)
				var opts []Option
				if deferred {
					opts = append(opts, WithDeferUnreachable(10*time.Second))
				}
				ext, blocked := holdCrawl(t, s, async, pages, opts...)
				got := s.pages()
				st := ext.Stats()
				if !deferred {
					if len(got) != 0 || len(blocked) != len(pages) {
						t.Errorf("control: server saw %d pages, %d blocked; want 0 and %d (every page lost)", len(got), len(blocked), len(pages))
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
				t.Logf("kept %d of %d pages; held %d requests; robots.txt requested %d times", len(got), len(pages)-1, st.Held, robots.n.Load())
			})
		}
	}
}

// TestDeferUnreachableGivesUp: a robots.txt that never recovers refuses
// each held URL once the bound has passed, with the unreachable Verdict
// and its RetryAt, reported to OnBlocked once per URL.
func TestDeferUnreachableGivesUp(t *testing.T) {
	t.Parallel()
	for _, async := range []bool{false, true} {
		t.Run(fmt.Sprintf("async=%v", async), func(t *testing.T) {
			t.Parallel()
			robots := &flakyRobots{fails: 1 << 30}
			s := newAccSite(t, robots.ServeHTTP)
			pages := []string{"/a", "/b", "/c"}
			const bound = 2500 * time.Millisecond
			start := time.Now()
			ext, blocked := holdCrawl(t, s, async, pages, WithDeferUnreachable(bound))
			took := time.Since(start)
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
			t.Logf("refused after %v; robots.txt requested %d times", took.Round(time.Millisecond), robots.n.Load())
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
// their baseline after Wait.
func TestDeferUnreachableThousands(t *testing.T) {
	if testing.Short() {
		t.Skip("2,000 requests")
	}
	robots := &flakyRobots{fails: 2, body: "User-agent: *\nAllow: /\n"}
	s := newAccSite(t, robots.ServeHTTP)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	c := colly.NewCollector(colly.Async(true), colly.StdlibContext(t.Context()))
	c.WithTransport(tr)
	ext := Apply(c, WithHTTPClient(&http.Client{Transport: tr}), WithDeferUnreachable(20*time.Second))
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
