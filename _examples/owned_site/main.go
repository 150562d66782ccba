// Command owned_site shows WithOverride: the rules of a site you own are not
// applied (its Crawl-delay still is), while a third-party site with the very
// same robots.txt is crawled politely. Offline: both sites run on loopback.
//
//	go run ./_examples/owned_site
package main

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

// robots is the robots.txt both sites serve; delay is its Crawl-delay.
const (
	robots = "User-agent: *\nDisallow: /admin/\nDisallow: /staging/\nCrawl-delay: 0.2\n"
	delay  = 200 * time.Millisecond
)

// pages are visited on both sites.
var pages = []string{"/", "/products", "/admin/orders", "/staging/new-home"}

// site is a demo web site that records when each page request arrived.
type site struct {
	name string
	srv  *httptest.Server

	mu      sync.Mutex
	arrived []time.Time
}

func newSite(name string) *site {
	s := &site{name: name}
	s.srv = httptest.NewServer(s)
	return s
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		fmt.Fprint(w, robots)
		return
	}
	s.mu.Lock()
	s.arrived = append(s.arrived, time.Now())
	s.mu.Unlock()
	fmt.Fprintf(w, "<html><body>%s: %s</body></html>", s.name, r.URL.Path)
}

// gaps returns the times between consecutive page requests, truncated to
// 10 µs (never rounded up, so that a gap printed as 200ms is 200 ms or
// more), and the smallest of them.
func (s *site) gaps() (all []string, least time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := 1; i < len(s.arrived); i++ {
		g := s.arrived[i].Sub(s.arrived[i-1])
		if i == 1 || g < least {
			least = g
		}
		all = append(all, g.Truncate(10*time.Microsecond).String())
	}
	return all, least
}

func main() {
	ours := newSite("our shop")
	defer ours.srv.Close()
	theirs := newSite("third party")
	defer theirs.srv.Close()
	ourHost := hostOf(ours.srv.URL)

	c := colly.NewCollector(colly.UserAgent("ShopAuditBot/1.0 (+https://example.com/audit-bot)"))
	// Exact host (with its port here, as both demo sites share 127.0.0.1);
	// "*.example.com" patterns are accepted too.
	ext := robotsext.Apply(c, robotsext.WithOverride(ourHost))

	fmt.Printf("Owned (WithOverride): %s  <- %s\n", ourHost, ours.name)
	fmt.Printf("Not owned:            %s  <- %s\n", hostOf(theirs.srv.URL), theirs.name)
	fmt.Printf("Both serve the same robots.txt:\n  %s\n\n", strings.ReplaceAll(strings.TrimSpace(robots), "\n", "\n  "))

	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		fmt.Printf("BLOCKED  %-48s %s, line %d\n", r.URL, v.Reason, v.Line)
	})
	c.OnResponse(func(r *colly.Response) {
		fmt.Printf("FETCHED  %s\n", r.Request.URL)
	})

	for _, s := range []*site{ours, theirs} {
		for _, p := range pages {
			if err := c.Visit(s.srv.URL + p); err != nil {
				log.Printf("visit %s: %v", s.srv.URL+p, err)
			}
		}
	}
	c.Wait()

	fmt.Println()
	for _, s := range []*site{ours, theirs} {
		v, err := ext.Check(s.srv.URL + "/admin/orders")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-12s /admin/orders -> allowed=%v (%s)\n", s.name, v.Allowed, v.Reason)
	}

	fmt.Printf("\nCrawl-delay %v is applied to both sites, the owned one included:\n", delay)
	for _, s := range []*site{ours, theirs} {
		all, least := s.gaps()
		verdict := ">= Crawl-delay: kept"
		if least < delay {
			verdict = "< Crawl-delay: NOT kept"
		}
		fmt.Printf("  %-12s gaps between page requests: %s; smallest %v %s\n",
			s.name, strings.Join(all, ", "), least.Truncate(10*time.Microsecond), verdict)
	}
	st := ext.Stats()
	fmt.Printf("\noverride decisions: %d, blocked: %d\n", st.Overrides, st.Blocked[robotsext.ReasonDisallowRule])
}

// hostOf returns the host:port of a URL.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		log.Fatal(err)
	}
	return u.Host
}
