// Command parallel runs an Async crawl over three demo hosts with different
// Crawl-delays. It shows one robots.txt fetch per host however many requests
// run at once, each host paced by its own delay while the hosts crawl in
// parallel, and Attach: list pages are crawled by the collector given to
// Apply, detail pages by a Clone of it attached to the same Extension, and
// the two share each host's robots.txt and pace. On a terminal a live
// progress line is drawn; otherwise (a pipe, a file, CI) only the summary is
// printed. Offline: the hosts run on loopback.
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

// itemsPerHost is the number of detail pages each host's list page links
// to.
const itemsPerHost = 5

// host is one demo site; it records when each page request arrived.
type host struct {
	name  string
	delay string // Crawl-delay, seconds
	srv   *httptest.Server

	mu      sync.Mutex
	robots  int         // robots.txt requests
	arrived []time.Time // page requests, list and detail alike
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
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprintf(w, "<html><body><h1>%s %s</h1>\n", h.name, r.URL.Path)
	if r.URL.Path == "/list" {
		for i := range itemsPerHost {
			fmt.Fprintf(w, "<a href=\"/item/%d\">item %d</a>\n", i, i)
		}
		fmt.Fprintln(w, `<a href="/private/report">report</a>`)
	}
	fmt.Fprintln(w, "</body></html>")
}

// progress counts what the crawl did so far and, on a terminal, redraws
// one status line after each change.
type progress struct {
	mu       sync.Mutex
	live     bool // stdout is a terminal
	hosts    []*host
	lists    map[string]int // list pages fetched, by host URL
	details  map[string]int // detail pages fetched, by host URL
	blocked  int
	drawnLen int
}

func (p *progress) fetched(site string, detail bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if detail {
		p.details[site]++
	} else {
		p.lists[site]++
	}
	p.draw()
}

func (p *progress) block() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.blocked++
	p.draw()
}

// draw rewrites the status line in place; p.mu is held.
func (p *progress) draw() {
	if !p.live {
		return
	}
	var parts []string
	for _, h := range p.hosts {
		parts = append(parts, fmt.Sprintf("%s %d+%d/%d", h.name, p.lists[h.srv.URL], p.details[h.srv.URL], 1+itemsPerHost))
	}
	line := fmt.Sprintf("fetched (list+detail): %s, blocked: %d", strings.Join(parts, ", "), p.blocked)
	fmt.Printf("\r%-*s", p.drawnLen, line)
	p.drawnLen = len(line)
}

// done ends the status line.
func (p *progress) done() {
	if p.live {
		fmt.Println()
	}
}

func main() {
	hosts := []*host{{name: "fast", delay: "0.1"}, {name: "medium", delay: "0.2"}, {name: "slow", delay: "0.4"}}
	for _, h := range hosts {
		h.srv = httptest.NewServer(h)
		defer h.srv.Close()
	}

	// c crawls list pages; detail, a Clone, crawls the pages they link to.
	// Clone copies the settings but not the robots.txt hook: Attach adds
	// it, sharing ext's robots.txt cache and per-host pace.
	c := colly.NewCollector(colly.Async(true), colly.UserAgent("ParallelDemoBot/1.0 (+https://example.com/bot)"))
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 16}); err != nil {
		log.Fatal(err)
	}
	ext := robotsext.Apply(c)
	detail := c.Clone()
	ext.Attach(detail)

	p := &progress{live: isTerminal(os.Stdout), hosts: hosts, lists: map[string]int{}, details: map[string]int{}}
	site := func(r *colly.Request) string { return r.URL.Scheme + "://" + r.URL.Host }
	c.OnResponse(func(r *colly.Response) { p.fetched(site(r.Request), false) })
	detail.OnResponse(func(r *colly.Response) { p.fetched(site(r.Request), true) })
	ext.OnBlocked(func(*colly.Request, robotsext.Verdict) { p.block() })
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		_ = detail.Visit(e.Request.AbsoluteURL(e.Attr("href")))
	})

	start := time.Now()
	for _, h := range hosts {
		_ = c.Visit(h.srv.URL + "/list")
	}
	c.Wait()      // list pages done: every detail page is queued
	detail.Wait() // detail pages done
	p.done()

	fmt.Printf("\n%-7s %-12s %-19s %-6s %s\n", "host", "Crawl-delay", "robots.txt fetches", "pages", "smallest gap between two pages at the server")
	for _, h := range hosts {
		h.mu.Lock()
		gap, robots, pages := smallestGap(h.arrived), h.robots, len(h.arrived)
		h.mu.Unlock()
		delay, err := time.ParseDuration(h.delay + "s")
		if err != nil {
			log.Fatal(err)
		}
		kept := "kept"
		switch {
		case gap < 0:
			kept = "fewer than two pages"
		case gap < delay:
			kept = "SHORTER than the delay"
		}
		// Truncated, not rounded, so that a gap printed as 200ms is 200 ms
		// or more.
		fmt.Printf("%-7s %-12s %-19d %-6d %v (%s)\n", h.name, h.delay+"s", robots, pages, gap.Truncate(10*time.Microsecond), kept)
	}
	fmt.Printf("\nwhole crawl: %v (the hosts were crawled in parallel; list and detail pages of a host share one pace)\n",
		time.Since(start).Round(10*time.Millisecond))
	st := ext.Stats()
	fmt.Printf("LimitRules computed from robots.txt: %d, blocked requests: %d\n", len(ext.LimitRules()), st.Blocked[robotsext.ReasonDisallowRule])
}

// isTerminal reports whether f is a terminal, where a progress line that
// redraws itself reads well; in a pipe or a file it would be noise.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// smallestGap returns the shortest time between consecutive instants of
// ts, -1 when there are fewer than two.
func smallestGap(ts []time.Time) time.Duration {
	var best time.Duration = -1
	for i := 1; i < len(ts); i++ {
		if g := ts[i].Sub(ts[i-1]); best < 0 || g < best {
			best = g
		}
	}
	return best
}
