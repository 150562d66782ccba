package robotsext

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
)

// TestAdaptivePace: with WithAdaptivePace(1), a synchronous crawl of a
// host whose latency goes from 100 ms to 200 ms and back asks it about
// half as often while it is slow and recovers after; 500s answered fast
// never shorten the delay; the Crawl-delay is the floor. The site states
// "Crawl-delay: 0", so that the default pace sets no floor here. The
// server's latency and the waits run on a hand-moved clock: no real
// sleeping.
func TestAdaptivePace(t *testing.T) {
	t.Parallel()
	clk := &stepClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	var mu sync.Mutex
	latency, status := 100*time.Millisecond, 200
	var arrivals []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nAllow: /\nCrawl-delay: 0\n")
			return
		}
		mu.Lock()
		arrivals = append(arrivals, clk.now())
		l, s := latency, status
		mu.Unlock()
		_ = clk.sleep(context.Background(), l) // the server's time to answer
		w.WriteHeader(s)
	}))
	t.Cleanup(srv.Close)
	c := colly.NewCollector(colly.UserAgent("AcmeBot/1.0"))
	ext := Apply(c, quiet(), WithClock(clk.now), withSleep(clk.sleep), WithAdaptivePace(1), WithoutBackoff())
	n := 0
	phase := func(l time.Duration, s, pages int) (rate float64, delay time.Duration) {
		mu.Lock()
		latency, status = l, s
		first := len(arrivals)
		mu.Unlock()
		for range pages {
			n++
			_ = c.Visit(fmt.Sprintf("%s/p/%d", srv.URL, n))
		}
		mu.Lock()
		defer mu.Unlock()
		// The rate of the phase's second half, once the delay has moved.
		a := arrivals[first+pages/2:]
		rate = float64(len(a)-1) / a[len(a)-1].Sub(a[0]).Seconds()
		info, _ := ext.Origin(srv.URL)
		return rate, info.AdaptiveDelay
	}
	fast, d1 := phase(100*time.Millisecond, 200, 12)
	slow, d2 := phase(200*time.Millisecond, 200, 12)
	back, d3 := phase(100*time.Millisecond, 200, 12)
	_, d4 := phase(10*time.Millisecond, 500, 6)
	t.Logf("requests/s: latency 100 ms %.2f (delay %v), 200 ms %.2f (%v), 100 ms again %.2f (%v); fast 500s leave the delay at %v",
		fast, d1, slow, d2, back, d3, d4)
	if slow > 0.6*fast || back < 1.6*slow {
		t.Errorf("rates %.2f, %.2f, %.2f requests/s: want about half while slow and back after", fast, slow, back)
	}
	if d4 < d3 {
		t.Errorf("fast errors shortened the delay from %v to %v", d3, d4)
	}
}

// TestAdaptivePaceFloorAndCap: the delay never falls below the host's
// Crawl-delay, or the default pace of a host that states none, nor rises
// above WithMaxCrawlDelay.
func TestAdaptivePaceFloorAndCap(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		robots  string
		latency time.Duration
		opts    []Option
		want    time.Duration
	}{
		{"Crawl-delay is the floor", "User-agent: *\nCrawl-delay: 2\n", 50 * time.Millisecond, nil, 2 * time.Second},
		{"the default pace is the floor of a silent host", "User-agent: *\nAllow: /\n", 50 * time.Millisecond, nil, DefaultDelay},
		{"WithDefaultDelay's is the floor", "User-agent: *\nAllow: /\n", 50 * time.Millisecond, []Option{WithDefaultDelay(3 * time.Second)}, 3 * time.Second},
		{"WithMaxCrawlDelay is the cap", "User-agent: *\nAllow: /\n", 30 * time.Second, []Option{WithMaxCrawlDelay(5 * time.Second)}, 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := &stepClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					fmt.Fprint(w, tc.robots)
					return
				}
				_ = clk.sleep(context.Background(), tc.latency)
			}))
			t.Cleanup(srv.Close)
			c := colly.NewCollector(colly.UserAgent("AcmeBot/1.0"))
			ext := Apply(c, append([]Option{quiet(), WithClock(clk.now), withSleep(clk.sleep), WithAdaptivePace(2)}, tc.opts...)...)
			for i := range 4 {
				_ = c.Visit(fmt.Sprintf("%s/p/%d", srv.URL, i))
			}
			if info, _ := ext.Origin(srv.URL); info.AdaptiveDelay != tc.want {
				t.Fatalf("adaptive delay %v, want %v", info.AdaptiveDelay, tc.want)
			}
		})
	}
}
