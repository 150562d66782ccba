package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"
)

// crawlDelay is the demo site's Crawl-delay.
const crawlDelay = 500 * time.Millisecond

// site is the demo site: a robots.txt with a Crawl-delay and a private
// section, and pages that say who asked for them. It records when each
// request arrived, and from which worker.
type site struct {
	*httptest.Server

	mu       sync.Mutex
	robots   int
	arrivals []arrival
}

type arrival struct {
	at     time.Time
	worker string
	path   string
}

func startSite() *site {
	s := &site{}
	s.Server = httptest.NewServer(s)
	return s
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	if r.URL.Path == "/robots.txt" {
		s.robots++
	}
	s.arrivals = append(s.arrivals, arrival{time.Now(), workerOf(r.UserAgent()), r.URL.Path})
	s.mu.Unlock()
	if r.URL.Path == "/robots.txt" {
		fmt.Fprintf(w, "User-agent: *\nDisallow: /private/\nCrawl-delay: %g\n", crawlDelay.Seconds())
		return
	}
	fmt.Fprintf(w, "<html><body>%s</body></html>", r.URL.Path)
}

// workerOf returns the worker id a User-Agent names.
func workerOf(ua string) string {
	if _, id, ok := strings.Cut(ua, "worker "); ok {
		return "worker " + strings.TrimSuffix(id, ")")
	}
	return ua
}

// report prints what the site saw: how often robots.txt was asked for,
// and every request with the gap since the previous one.
func (s *site) report(w io.Writer) {
	s.mu.Lock()
	as := slices.Clone(s.arrivals)
	robots := s.robots
	s.mu.Unlock()
	slices.SortFunc(as, func(a, b arrival) int { return a.at.Compare(b.at) })

	fmt.Fprintf(w, "the site saw (Crawl-delay %v):\n", crawlDelay)
	fmt.Fprintf(w, "  robots.txt requests: %d\n", robots)
	var gaps []time.Duration
	for i, a := range as {
		gap := ""
		if i > 0 {
			g := a.at.Sub(as[i-1].at)
			gaps = append(gaps, g)
			gap = "+" + g.Truncate(time.Millisecond).String()
		}
		fmt.Fprintf(w, "  %8s  %-9s %s\n", gap, a.worker, a.path)
	}
	if len(gaps) > 0 {
		// Truncated, never rounded up, so that a gap printed as 500ms is
		// 500 ms or more.
		least := slices.Min(gaps)
		verdict := ">= Crawl-delay: kept"
		if least < crawlDelay {
			verdict = "< Crawl-delay: NOT kept"
		}
		fmt.Fprintf(w, "  gaps between requests, all workers together: smallest %v %s (%s)\n",
			least.Truncate(10*time.Microsecond), verdict, formatGaps(gaps))
	}
}
