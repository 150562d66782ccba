// Command parallel runs an Async crawl over three demo hosts with different
// Crawl-delays. It shows one robots.txt fetch per host however many requests
// run at once, each host paced by its own delay while the hosts crawl in
// parallel, and a live progress line. Offline: the hosts run on loopback.
//
//	go run ./_examples/parallel
package main

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

const pagesPerHost = 6

// host is one demo site; it records when each page request arrived.
type host struct {
	name    string
	delay   string // Crawl-delay, seconds
	srv     *httptest.Server
	mu      sync.Mutex
	robots  int         // robots.txt requests
	arrived []time.Time // page requests
}

func (h *host) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r.URL.Path == "/robots.txt" {
		h.robots++
		fmt.Fprintf(w, "User-agent: *\nDisallow: /private/\nCrawl-delay: %s\n", h.delay)
		return
	}
	h.arrived = append(h.arrived, time.Now())
	fmt.Fprintf(w, "<html><body>%s %s</body></html>", h.name, r.URL.Path)
}

func main() {
	hosts := []*host{{name: "fast", delay: "0.1"}, {name: "medium", delay: "0.25"}, {name: "slow", delay: "0.5"}}
	for _, h := range hosts {
		h.srv = httptest.NewServer(h)
		defer h.srv.Close()
	}

	c := colly.NewCollector(colly.Async(true))
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 16}); err != nil {
		log.Fatal(err)
	}
	ext := robotsext.Apply(c)

	var mu sync.Mutex
	done := map[string]int{}
	blocked := 0
	progress := func() {
		var parts []string
		for _, h := range hosts {
			parts = append(parts, fmt.Sprintf("%s %d/%d", h.name, done[h.srv.URL], pagesPerHost))
		}
		fmt.Fprintf(os.Stderr, "\rfetched: %s, blocked: %d ", strings.Join(parts, ", "), blocked)
	}
	c.OnResponse(func(r *colly.Response) {
		mu.Lock()
		defer mu.Unlock()
		done[r.Request.URL.Scheme+"://"+r.Request.URL.Host]++
		progress()
	})
	ext.OnBlocked(func(*colly.Request, robotsext.Verdict) {
		mu.Lock()
		defer mu.Unlock()
		blocked++
		progress()
	})

	start := time.Now()
	for _, h := range hosts {
		for i := range pagesPerHost {
			_ = c.Visit(fmt.Sprintf("%s/page/%d", h.srv.URL, i))
		}
		_ = c.Visit(h.srv.URL + "/private/report")
	}
	c.Wait()
	fmt.Fprintln(os.Stderr)

	fmt.Printf("\n%-7s %-12s %-18s %s\n", "host", "Crawl-delay", "robots.txt fetches", "smallest gap between pages")
	for _, h := range hosts {
		h.mu.Lock()
		fmt.Printf("%-7s %-12s %-18d %v\n", h.name, h.delay+"s", h.robots, smallestGap(h.arrived).Round(time.Millisecond))
		h.mu.Unlock()
	}
	fmt.Printf("\nwhole crawl: %v (the hosts were crawled in parallel)\n", time.Since(start).Round(10*time.Millisecond))
	st := ext.Stats()
	fmt.Printf("LimitRules computed from robots.txt: %d, blocked requests: %d\n", len(ext.LimitRules()), st.Blocked[robotsext.ReasonDisallowRule])
}

func smallestGap(ts []time.Time) time.Duration {
	var best time.Duration = -1
	for i := 1; i < len(ts); i++ {
		if g := ts[i].Sub(ts[i-1]); best < 0 || g < best {
			best = g
		}
	}
	return best
}
