// Command queue runs the setup crawler fleets use: an Async collector whose
// LimitRule allows several requests at once, fed from a queue
// (github.com/gocolly/colly/v2/queue) that the pages' links are added to.
// robotsext.Apply is the only line robots.txt needs. The crawl covers three
// demo sites: one asks for a Crawl-delay of 250 ms, one for 100 ms, and one
// has no robots.txt (a 404, which RFC 9309 reads as "everything allowed"),
// which robotsext paces by its default pace: one request at a time, 1 s
// apart, 150 ms here (robotsext.WithDefaultDelay) so that the example runs
// in a couple of seconds.
//
// It prints the queue's rounds, each URL fetched or blocked, then per site
// what its server saw: robots.txt requests, page requests, when the last
// page was answered, and the smallest gap between two requests, measured
// as they arrived, next to the delay robots.txt asked for. A request
// waiting for a paced site waits in robotsext's OnRequest hook, before
// Colly's LimitRule gives it one of the 8 parallelism slots, so a site's
// waiting pages never hold up the others': each site's pages are spaced
// by its own delay, all three at once.
//
// Offline: the sites run on loopback. In a fleet, each worker process runs
// the same loop with the queue's storage in Redis
// (github.com/gocolly/redisstorage) and
// robotsext.WithBackend(redisbackend.New(client)), so that the workers
// fetch each robots.txt once and keep each site's Crawl-delay together.
//
//	go run ./_examples/queue
package main

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/gocolly/colly/v2/queue"
	"github.com/robotsext/robotsext"
)

// pagesPerSite is how many article pages each site's home page links to.
const pagesPerSite = 6

// defaultDelay is the pace of the site without robots.txt in this demo.
const defaultDelay = 150 * time.Millisecond

// site is one demo web site. It records when each request arrived.
type site struct {
	name   string
	robots string        // robots.txt body; "" answers 404
	delay  time.Duration // the Crawl-delay robots.txt asks for; 0: none
	srv    *httptest.Server

	mu         sync.Mutex
	robotsHits int         // robots.txt requests
	arrived    []time.Time // every request, robots.txt included, in arrival order
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.arrived = append(s.arrived, time.Now())
	if r.URL.Path == "/robots.txt" {
		s.robotsHits++
	}
	s.mu.Unlock()

	if r.URL.Path == "/robots.txt" {
		if s.robots == "" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, s.robots)
		return
	}
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprintf(w, "<html><body><h1>%s %s</h1>\n", s.name, r.URL.Path)
	if r.URL.Path == "/" {
		for i := range pagesPerSite {
			fmt.Fprintf(w, "<a href=\"/article/%d\">article %d</a>\n", i, i)
		}
		fmt.Fprintln(w, `<a href="/private/drafts">drafts</a>`)
	} else {
		// Every article links home again; Colly skips URLs it has visited.
		fmt.Fprintln(w, `<a href="/">home</a>`)
	}
	fmt.Fprintln(w, "</body></html>")
}

// smallestGap returns the shortest time between consecutive arrivals, and
// false when there were fewer than two.
func (s *site) smallestGap() (time.Duration, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	gap, ok := time.Duration(0), false
	for i := 1; i < len(s.arrived); i++ {
		if g := s.arrived[i].Sub(s.arrived[i-1]); !ok || g < gap {
			gap, ok = g, true
		}
	}
	return gap, ok
}

func main() {
	sites := []*site{
		{name: "news", delay: 250 * time.Millisecond,
			robots: "User-agent: *\nDisallow: /private/\nCrawl-delay: 0.25\n"},
		{name: "shop", delay: 100 * time.Millisecond,
			robots: "User-agent: *\nDisallow: /private/\nCrawl-delay: 0.1\n"},
		{name: "blog", delay: defaultDelay}, // no robots.txt: the default pace
	}
	byHost := map[string]*site{}
	for _, s := range sites {
		s.srv = httptest.NewServer(s)
		defer s.srv.Close()
		byHost[strings.TrimPrefix(s.srv.URL, "http://")] = s
	}

	// The collector fleets run: Async, with up to 8 requests at once.
	c := colly.NewCollector(
		colly.Async(true),
		colly.UserAgent("QueueDemoBot/1.0 (+https://example.com/bot)"),
	)
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 8}); err != nil {
		log.Fatal(err)
	}
	// The default pace of a site whose robots.txt states none is
	// robotsext.DefaultDelay (1 s); a shorter one keeps the demo short.
	ext := robotsext.Apply(c, robotsext.WithDefaultDelay(defaultDelay))

	// The queue: its storage is memory here, Redis in a fleet. Links found
	// on a page are added to it, not visited directly, so that in a fleet
	// any worker may crawl them.
	storage := &queue.InMemoryQueueStorage{MaxSize: 10_000}
	frontier, err := queue.New(2, storage)
	if err != nil {
		log.Fatal(err)
	}
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		if err := frontier.AddURL(e.Request.AbsoluteURL(e.Attr("href"))); err != nil {
			log.Print(err)
		}
	})

	var mu sync.Mutex
	var lines []string
	lastAt := map[string]time.Duration{} // by site name: when its last page response came
	start := time.Now()
	c.OnResponse(func(r *colly.Response) {
		s := byHost[r.Request.URL.Host]
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, fmt.Sprintf("%s  FETCHED  %s", s.name, r.Request.URL.Path))
		lastAt[s.name] = time.Since(start)
	})
	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		s := byHost[r.URL.Host]
		mu.Lock()
		defer mu.Unlock()
		lines = append(lines, fmt.Sprintf("%s  BLOCKED  %s  (%s, line %d: %q)", s.name, r.URL.Path, v.Reason, v.Line, v.Rule))
	})

	for _, s := range sites {
		if err := frontier.AddURL(s.srv.URL + "/"); err != nil {
			log.Fatal(err)
		}
	}
	// With an Async collector, Run returns once it has handed every queued
	// request to the collector, not when they are done, while the pages'
	// links are queued as they are crawled. So: run, wait for the
	// collector, and run again while links were queued. A Queue runs once
	// (Colly v2.3.0 panics on a second Run), so each round runs a new one
	// over the same storage.
	var rounds []string
	for round := 1; round == 1 || !frontier.IsEmpty(); round++ {
		queued, _ := frontier.Size()
		at := time.Since(start).Truncate(time.Millisecond)
		mu.Lock()
		before := len(lines)
		mu.Unlock()
		q, err := queue.New(2, storage)
		if err != nil {
			log.Fatal(err)
		}
		if err := q.Run(c); err != nil {
			log.Fatal(err)
		}
		c.Wait()
		mu.Lock()
		decided := len(lines) - before
		mu.Unlock()
		// The rest were skipped by Colly: links to pages it had already
		// visited (every page links to the others), not robots.txt refusals.
		line := fmt.Sprintf("  round %d at %v: %d URLs queued, %d fetched or blocked", round, at, queued, decided)
		if skipped := queued - decided; skipped > 0 {
			line += fmt.Sprintf(", %d skipped by Colly as already visited", skipped)
		}
		rounds = append(rounds, line)
	}

	fmt.Println("The queue, run in rounds until no link is left; the last round finds only links to")
	fmt.Println("pages already crawled, which Colly skips, and queues nothing new:")
	for _, r := range rounds {
		fmt.Println(r)
	}
	fmt.Println()
	slices.Sort(lines)
	for _, l := range lines {
		fmt.Println(l)
	}

	fmt.Printf("\n%-5s %-12s %-11s %-6s %-12s %s\n",
		"site", "Crawl-delay", "robots.txt", "pages", "last page", "smallest gap between requests at the server (robots.txt included)")
	for _, s := range sites {
		s.mu.Lock()
		robotsHits, pages := s.robotsHits, len(s.arrived)-s.robotsHits
		s.mu.Unlock()
		asked, want := fmt.Sprint(s.delay), "asked"
		if s.robots == "" {
			asked, want = "none", "by default"
		}
		gap, ok := s.smallestGap()
		verdict := fmt.Sprintf(", %v %s: kept", s.delay, want)
		if ok && gap < s.delay {
			verdict = fmt.Sprintf(", %v %s: SHORTER", s.delay, want)
		}
		mu.Lock()
		last := lastAt[s.name]
		mu.Unlock()
		fmt.Printf("%-5s %-12s %-11d %-6d %-12s %s%s\n", s.name, asked, robotsHits, pages,
			last.Truncate(time.Millisecond), gap.Truncate(10*time.Microsecond), verdict)
	}
	st := ext.Stats()
	fmt.Printf("\nrobotsext: %d allowed, %d blocked, %d robots.txt fetches for %d sites\n",
		sum(st.Allowed), sum(st.Blocked), sum(st.Fetches), len(sites))
}

// sum adds up the counts of a Stats map.
func sum[K comparable](m map[K]uint64) uint64 {
	var n uint64
	for _, v := range m {
		n += v
	}
	return n
}
