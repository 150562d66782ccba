package robotsext

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// robotsCounter is a server for many hosts that counts the robots.txt
// requests of each.
type robotsCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (rc *robotsCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/robots.txt" {
		tinyPage(w)
		return
	}
	rc.mu.Lock()
	rc.n[r.Host]++
	rc.mu.Unlock()
	io.WriteString(w, "User-agent: *\nDisallow: /private\n")
}

// TestInUseOriginsKept proves the hook's pins: with room for one origin,
// a crawl that goes back and forth between two hosts fetches each one's
// robots.txt once, since an origin stays in use for a while after its
// request left the hook and is evicted only once no other is left.
// Without the pins, every turn evicted the other host and fetched its
// robots.txt again.
func TestInUseOriginsKept(t *testing.T) {
	t.Parallel()
	rc := &robotsCounter{n: map[string]int{}}
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	cr := newCrawler(t, srv, false, WithCacheSize(1))
	cr.visit(t, "http://a.test/1", "http://b.test/1", "http://a.test/2", "http://b.test/2", "http://a.test/3")
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.n["a.test"] != 1 || rc.n["b.test"] != 1 {
		t.Errorf("robots.txt requests per host %v, want one each", rc.n)
	}
	if s := cr.ext.Stats(); s.Evictions != 0 || s.Origins != 2 {
		t.Errorf("Stats: %d evictions, %d origins; want 0 and 2 (the bound waits for origins in use)", s.Evictions, s.Origins)
	}
}

// hangingRobots is a server for many hosts: the robots.txt of a host
// named hang* is accepted, reported on hung, and answered 503 only once
// stop is closed; other hosts answer at once, and each of their pages is
// reported on pages. The channels hold hanging and normal reports.
func hangingRobots(t *testing.T, hanging, normal int) (srv *httptest.Server, hung chan struct{}, stop chan struct{}, pages chan string) {
	t.Helper()
	hung, stop, pages = make(chan struct{}, hanging), make(chan struct{}), make(chan string, normal)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.Host, "hang") && r.URL.Path == "/robots.txt":
			hung <- struct{}{}
			select {
			case <-stop:
			case <-r.Context().Done():
			}
			w.WriteHeader(http.StatusServiceUnavailable)
		case r.URL.Path == "/robots.txt":
			io.WriteString(w, "User-agent: *\nDisallow: /private\n")
		default:
			tinyPage(w)
			if !strings.HasPrefix(r.Host, "hang") {
				pages <- r.Host
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv, hung, stop, pages
}

// TestHangingRobotsStallNoOne proves that hosts whose robots.txt hangs do
// not keep other hosts' robots.txt from being fetched through a crawl:
// with a pool of two fetches, two hosts hang (their robots.txt is accepted
// and never answered, and WithTimeout is a minute), and twenty other hosts
// are crawled meanwhile. It runs on the real clock, since the move out of
// the pool is the Fetcher's own wait for headers (lifecycle.MinSlowAfter
// here), which the root does not let a test move: the normal hosts' pages
// come about 100 ms after the hangs start. Before the move, they waited
// for the hangs to end, a minute later.
func TestHangingRobotsStallNoOne(t *testing.T) {
	t.Parallel()
	const normal = 20
	srv, hung, stop, pages := hangingRobots(t, 2, normal)
	cr := newCrawler(t, srv, true, WithFetchConcurrency(2), WithTimeout(time.Minute))
	for _, u := range hostURLs("hang", 2, "/") {
		if err := cr.c.Visit(u); err != nil {
			t.Fatal(err)
		}
	}
	<-hung
	<-hung // the pool is full of hangs
	for _, u := range hostURLs("ok", normal, "/") {
		if err := cr.c.Visit(u); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.After(30 * time.Second) // only a failing run waits this long
	for i := range normal {
		select {
		case <-pages:
		case <-deadline:
			t.Fatalf("%d of %d normal hosts' pages fetched while two robots.txt hung", i, normal)
		}
	}
	close(stop)
	cr.c.Wait()
	if s := cr.ext.Stats(); s.Fetches[OutcomeOK] != normal {
		t.Errorf("%d robots.txt fetched OK, want %d", s.Fetches[OutcomeOK], normal)
	}
}

// TestManyHangingRobotsStallNoOne proves that hanging robots.txt hosts
// queued ahead of others cost them almost nothing, at the default pool of
// 32: 600 hosts whose robots.txt is accepted and never answered are
// visited first, then 100 normal hosts, all routed to one real server.
// A fetch without response headers after its wait (here 100 ms, since
// every timed answer is quick on loopback) stops counting against the
// pool, and 32 × 32 such fetches may be out at once, so the normal hosts'
// pages all come within seconds. It runs on the real clock, since the
// crawl goes through Colly; the 20 s bound is a failing run's, far above
// the ~2 s a passing run takes (6 s under -race on a loaded machine). Before, a fetch counted for 1 s and only
// 8 × 32 of them could turn slow: the normal hosts waited for the hangs'
// timeout (a minute here).
func TestManyHangingRobotsStallNoOne(t *testing.T) {
	t.Parallel()
	const hanging, normal = 600, 100
	srv, hung, stop, pages := hangingRobots(t, hanging, normal)
	cr := newCrawler(t, srv, true, WithTimeout(time.Minute))
	released := false
	release := func() {
		if !released {
			released = true
			close(stop)
			cr.c.Wait()
		}
	}
	defer release()
	for _, u := range hostURLs("hang", hanging, "/") {
		if err := cr.c.Visit(u); err != nil {
			t.Fatal(err)
		}
	}
	for range defaultFetchConcurrency {
		<-hung // the pool is full of hangs
	}
	start := time.Now()
	for _, u := range hostURLs("ok", normal, "/") {
		if err := cr.c.Visit(u); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.After(20 * time.Second) // only a failing run waits this long
	for i := range normal {
		select {
		case <-pages:
		case <-deadline:
			t.Fatalf("%d of %d normal hosts' pages fetched in 20 s behind %d hanging robots.txt", i, normal, hanging)
		}
	}
	t.Logf("%d normal hosts' pages in %v behind %d hanging robots.txt", normal, time.Since(start), hanging)
	release()
	if s := cr.ext.Stats(); s.Fetches[OutcomeOK] != normal {
		t.Errorf("%d robots.txt fetched OK, want %d", s.Fetches[OutcomeOK], normal)
	}
}
