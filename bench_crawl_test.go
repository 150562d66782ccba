package robotsext

// The crawl-level benchmark: what obeying robots.txt costs a whole Colly
// crawl per request, against the same crawl with no robots.txt handling
// and with Colly's own check. A loopback httptest server answers every
// host name (a dialer sends them all to it), so that thousands of origins
// cost one listener. Origins are cached before timing (each one's
// robots.txt is fetched in a warm-up pass) and no host is paced (each
// states "Crawl-delay: 0"): the figure is the per-request overhead of
// deciding.
//
//	go test -run '^$' -bench BenchmarkCrawl -benchtime 20000x -count 6 .
//
// Each sub-benchmark reports cpu-ns/req (the process's CPU time per
// request, which a shared machine does not inflate the way it inflates
// wall time) next to ns/op and allocs/op. A mutex profile
// (-mutexprofile) of the Apply runs at Parallelism 64 shows whether any
// lock serialises requests to different hosts.

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
)

// crawlMode is how a benchmarked collector handles robots.txt.
type crawlMode int

const (
	crawlBare   crawlMode = iota // no robots.txt handling
	crawlColly                   // Colly's own check (IgnoreRobotsTxt = false)
	crawlRobots                  // Apply
)

func (m crawlMode) String() string {
	return [...]string{"bare", "colly", "robotsext"}[m]
}

// crawlServer is a loopback server answering robots.txt (allowing all but
// /private) and a tiny page for every host name.
func crawlServer(b *testing.B) (*httptest.Server, *http.Transport) {
	b.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\nCrawl-delay: 0\n")
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "ok")
	}))
	b.Cleanup(srv.Close)
	addr := srv.Listener.Addr().String()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 4
	tr.MaxIdleConns = 4096
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	b.Cleanup(tr.CloseIdleConnections)
	return srv, tr
}

// BenchmarkCrawl crawls origins host names with an Async collector at
// each parallelism, in each mode.
func BenchmarkCrawl(b *testing.B) {
	for _, origins := range []int{1, 100, 5000} {
		for _, par := range []int{1, 8, 64} {
			for _, mode := range []crawlMode{crawlBare, crawlColly, crawlRobots} {
				b.Run(fmt.Sprintf("origins=%d/par=%d/%v", origins, par, mode), func(b *testing.B) {
					benchCrawl(b, origins, par, mode)
				})
			}
		}
	}
}

func benchCrawl(b *testing.B, origins, par int, mode crawlMode) {
	srv, tr := crawlServer(b)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	hosts := make([]string, origins)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("http://h%d.test:%s", i, port)
	}
	c := colly.NewCollector(colly.Async(true), colly.AllowURLRevisit(), colly.UserAgent("BenchBot/1.0"))
	c.WithTransport(tr)
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: par}); err != nil {
		b.Fatal(err)
	}
	switch mode {
	case crawlBare:
		c.IgnoreRobotsTxt = true
	case crawlColly:
		c.IgnoreRobotsTxt = false
	case crawlRobots:
		Apply(c, WithHTTPClient(&http.Client{Transport: tr, Timeout: 10 * time.Second}), WithCacheSize(origins+16))
	}
	var errs atomic.Int64 // OnError runs on the request's goroutine
	c.OnError(func(*colly.Response, error) { errs.Add(1) })
	// Warm up: every origin's robots.txt fetched and a connection open.
	for _, h := range hosts {
		if err := c.Visit(h + "/warm"); err != nil {
			b.Fatal(err)
		}
	}
	c.Wait()
	b.ReportAllocs()
	cpu0 := processCPU()
	b.ResetTimer()
	for i := range b.N { // not b.Loop: the timer must run through Wait
		if err := c.Visit(fmt.Sprintf("%s/p/%d", hosts[i%origins], i)); err != nil {
			b.Fatal(err)
		}
	}
	c.Wait()
	b.StopTimer()
	if n := errs.Load(); n > 0 {
		b.Fatalf("%d requests failed", n)
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/req")
}
