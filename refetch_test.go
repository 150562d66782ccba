package robotsext

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
)

// TestForgetCoalescedAndPaced drives one origin whose robots.txt asks for
// Crawl-delay: 5 through Check, on a hand-moved clock (no real sleeping),
// and notes each robots.txt fetch by that clock (issue 31, item 7): 300
// Forget calls while the first fetch is on the wire make exactly one more
// fetch (on main, none: the answer they predate was kept), 50 Forget calls
// with nothing on the wire make one, and every re-fetch waits the delay
// after the host's latest request (on main, none waited).
func TestForgetCoalescedAndPaced(t *testing.T) {
	t.Parallel()
	const delay = 5 * time.Second
	clk := &stepClock{t: time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)}
	mt, cl := mock()
	var mu sync.Mutex
	var at []time.Time // the clock at each robots.txt fetch
	onWire, release := make(chan struct{}), make(chan struct{})
	mt.RegisterResponder("GET", testRobots, func(req *http.Request) (*http.Response, error) {
		mu.Lock()
		at = append(at, clk.now())
		n := len(at)
		mu.Unlock()
		if n == 1 {
			close(onWire)
			<-release
		}
		return respond(200, "User-agent: *\nCrawl-delay: 5\n")(req)
	})
	ext := Apply(nil, WithHTTPClient(cl), WithClock(clk.now), withSleep(clk.sleep))
	page := testOrigin + "/page"
	ctx := context.Background()
	check := func() {
		t.Helper()
		if v, err := ext.Check(page); err != nil || !v.Allowed {
			t.Fatalf("Check: %+v, %v", v, err)
		}
	}
	forget := func(n int) {
		t.Helper()
		for range n {
			if err := ext.Forget(ctx, page); err != nil {
				t.Fatal(err)
			}
		}
	}
	fetches := func() []time.Time {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(at)
	}

	done := make(chan struct{})
	go func() { defer close(done); check() }()
	<-onWire
	forget(300) // while fetch 1 is on the wire
	close(release)
	<-done
	check() // fetch 2: the 300 Forgets, coalesced
	check() // cached
	forget(50)
	check() // fetch 3
	check() // cached

	got := fetches()
	if len(got) != 3 {
		t.Fatalf("%d robots.txt fetches, want 3 (one, one after the 300 Forgets on the wire, one after the 50 later ones)", len(got))
	}
	for i := 1; i < len(got); i++ {
		if gap := got[i].Sub(got[i-1]); gap < delay {
			t.Errorf("fetch %d came %v after fetch %d, want at least the Crawl-delay %v", i+1, gap, i, delay)
		}
	}
}

// chainSite starts a loopback server whose robots.txt is robots and whose
// /p1 … /pN each link to the next, so that a crawl asks for each page's
// origin only once the page before it has come, recording arrivals.
func chainSite(t *testing.T, robots string, pages int) (*httptest.Server, *arrivals) {
	t.Helper()
	a := &arrivals{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.mu.Lock()
		a.times, a.paths = append(a.times, time.Now()), append(a.paths, r.URL.Path)
		a.mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, robots)
			return
		}
		var n int
		fmt.Sscanf(r.URL.Path, "/p%d", &n)
		w.Header().Set("Content-Type", "text/html")
		if n < pages {
			fmt.Fprintf(w, `<html><body><a href="/p%d">next</a></body></html>`, n+1)
			return
		}
		io.WriteString(w, "<html><body>end</body></html>")
	}))
	t.Cleanup(srv.Close)
	return srv, a
}

// TestForgetStormDuringCrawl crawls a loopback site whose robots.txt asks
// for Crawl-delay: 0.1 through a real asynchronous collector, following a
// chain of pages, while another goroutine calls Forget every 2 ms (issue
// 31, item 7), and checks at the server that robots.txt was fetched at
// most once per page, each fetch (and every request) at least the delay
// after the one before. It measures the wall clock because the delay at
// the server is its subject; it sleeps about 2 s in all.
func TestForgetStormDuringCrawl(t *testing.T) {
	t.Parallel()
	const (
		cd    = 100 * time.Millisecond
		pages = 10
	)
	srv, a := chainSite(t, "User-agent: *\nCrawl-delay: 0.1\n", pages)
	c := colly.NewCollector(colly.Async(true), colly.UserAgent("AcmeBot/1.0"), colly.StdlibContext(crawlContext(t)))
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 4}); err != nil {
		t.Fatal(err)
	}
	ext := Apply(c)
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { _ = e.Request.Visit(e.Attr("href")) })
	stop := make(chan struct{})
	var forgets atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if err := ext.Forget(context.Background(), srv.URL); err != nil {
					t.Error(err)
					return
				}
				forgets.Add(1)
			}
		}
	}()
	start := time.Now()
	if err := c.Visit(srv.URL + "/p1"); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	close(stop)
	wg.Wait()
	elapsed := time.Since(start)

	times, paths := a.snapshot()
	var robots []time.Time
	minGap, minAll := time.Duration(-1), time.Duration(-1)
	for i, p := range paths {
		if i > 0 {
			if g := times[i].Sub(times[i-1]); minAll < 0 || g < minAll {
				minAll = g
			}
		}
		if p != "/robots.txt" {
			continue
		}
		if n := len(robots); n > 0 {
			if g := times[i].Sub(robots[n-1]); minGap < 0 || g < minGap {
				minGap = g
			}
		}
		robots = append(robots, times[i])
	}
	t.Logf("%d Forget calls in %v: %d requests, %d of them robots.txt; smallest gap between robots.txt fetches %v, between any two requests %v",
		forgets.Load(), elapsed.Round(time.Millisecond), len(paths), len(robots), minGap, minAll)
	if got := len(paths) - len(robots); got != pages {
		t.Errorf("%d pages reached the server, want %d", got, pages)
	}
	// robots.txt is fetched at most once before each page, and once more
	// for Forgets that came while the last fetch was on the wire.
	if max := pages + 1; len(robots) > max {
		t.Errorf("%d robots.txt fetches, want at most %d", len(robots), max)
	}
	if minAll >= 0 && minAll < cd-arrivalSlack {
		t.Errorf("two requests arrived %v apart, want at least the Crawl-delay %v", minAll, cd)
	}
}
