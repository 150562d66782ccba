package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// site is one demo web site on loopback. It records every request as it
// arrives, so that the report shows what the server saw rather than what
// the workers believe they did.
type site struct {
	name   string
	robots string              // robots.txt body; "" answers 404 (RFC 9309: everything allowed)
	rules  string              // robots.txt in a few words, for the report
	delay  time.Duration       // the Crawl-delay robots.txt asks for; 0: none
	pages  map[string][]string // path → the paths its page links to
	srv    *httptest.Server

	mu         sync.Mutex
	robotsHits int       // robots.txt requests; guarded by mu
	arrivals   []arrival // page requests (robots.txt excluded) in arrival order; guarded by mu
}

// arrival is one page request as the server saw it.
type arrival struct {
	at     time.Time
	path   string
	worker string // the worker id its User-Agent names
}

// demoSites returns the three sites the crawl starts from, not yet
// serving: news asks for a Crawl-delay and has pacedPages pages, shop
// disallows /private/ (which its pages link to), blog has no robots.txt.
func demoSites(pacedPages int, delay time.Duration) []*site {
	news := map[string][]string{}
	path := func(k int) string {
		if k == 0 {
			return "/"
		}
		return fmt.Sprintf("/story/%d", k)
	}
	for k := range pacedPages { // a binary tree: the frontier grows as pages are fetched
		links := []string{"/"}
		for _, child := range []int{2*k + 1, 2*k + 2} {
			if child < pacedPages {
				links = append(links, path(child))
			}
		}
		news[path(k)] = links
	}

	shop := map[string][]string{"/": {"/private/cart"}}
	for k := 1; k <= 5; k++ {
		shop["/"] = append(shop["/"], fmt.Sprintf("/item/%d", k))
		shop[fmt.Sprintf("/item/%d", k)] = []string{"/", fmt.Sprintf("/item/%d", k%5+1), "/private/orders"}
	}

	blog := map[string][]string{"/": {"/post/1", "/post/2", "/post/3"}}
	for k := 1; k <= 6; k++ {
		links := []string{"/"}
		for _, next := range []int{k + 1, k + 3} {
			if next <= 6 {
				links = append(links, fmt.Sprintf("/post/%d", next))
			}
		}
		blog[fmt.Sprintf("/post/%d", k)] = links
	}

	return []*site{
		{name: "news", delay: delay, pages: news,
			robots: fmt.Sprintf("User-agent: *\nCrawl-delay: %g\n", delay.Seconds()),
			rules:  fmt.Sprintf("Crawl-delay: %g", delay.Seconds())},
		{name: "shop", pages: shop,
			robots: "User-agent: *\nDisallow: /private/\n",
			rules:  "Disallow: /private/"},
		{name: "blog", pages: blog, rules: "no robots.txt (404)"},
	}
}

func (s *site) start() { s.srv = httptest.NewServer(s) }

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if r.URL.Path == "/robots.txt" {
		s.robotsHits++
	} else {
		s.arrivals = append(s.arrivals, arrival{time.Now(), r.URL.RequestURI(), workerOf(r.UserAgent())})
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
	links, ok := s.pages[r.URL.Path]
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, "<html><body><h1>%s %s</h1>\n", s.name, r.URL.Path)
	for _, l := range links {
		fmt.Fprintf(w, "<a href=%q>%s</a>\n", l, l)
	}
	fmt.Fprintln(w, "</body></html>")
}

// workerOf returns the worker id in a User-Agent such as
// "FleetQueueBot/1.0 (worker 2)", or "" when there is none.
func workerOf(ua string) string {
	_, id, ok := strings.Cut(ua, "(worker ")
	if !ok {
		return ""
	}
	id, _, _ = strings.Cut(id, ")")
	return id
}

// host returns the site's host:port.
func (s *site) host() string { return strings.TrimPrefix(s.srv.URL, "http://") }

// seen returns the robots.txt requests and the page requests the site has
// seen so far.
func (s *site) seen() (robots int, pages []arrival) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.robotsHits, append([]arrival(nil), s.arrivals...)
}

// smallestGap returns the shortest time between two consecutive page
// arrivals, and false when there were fewer than two.
func smallestGap(as []arrival) (time.Duration, bool) {
	gap, ok := time.Duration(0), false
	for i := 1; i < len(as); i++ {
		if g := as[i].at.Sub(as[i-1].at); !ok || g < gap {
			gap, ok = g, true
		}
	}
	return gap, ok
}
