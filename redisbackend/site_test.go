package redisbackend

// The server side of the multi-process tests: a loopback site with a
// Crawl-delay that records when each request arrived, and checks on
// those arrivals.

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// arrival is one request as the site saw it.
type arrival struct {
	at     time.Time
	path   string
	worker string // from the User-Agent
}

// site is a loopback HTTP server with a robots.txt asking for delay
// between requests.
type site struct {
	*httptest.Server
	delay time.Duration

	// stallRobots, when set, makes the first robots.txt request hang
	// until the client goes away (the test kills it).
	stallRobots bool
	// robotsStalled is closed when the stalled request has arrived.
	robotsStalled chan struct{}
	// pageStalled is closed when the request stallOn asked to hang came.
	pageStalled chan struct{}

	mu        sync.Mutex
	arrivals  []arrival
	stalled   bool
	stallPath string // see stallOn; "" once it hung
}

// stallOn makes the first request for path hang, like the stalled
// robots.txt request, until the client goes away.
func (s *site) stallOn(path string) {
	s.mu.Lock()
	s.stallPath = path
	s.mu.Unlock()
}

// newSite starts a site for t.
func newSite(t *testing.T, delay time.Duration, stallRobots bool) *site {
	t.Helper()
	s := &site{delay: delay, stallRobots: stallRobots, robotsStalled: make(chan struct{}), pageStalled: make(chan struct{})}
	s.Server = httptest.NewServer(s)
	t.Cleanup(s.Close)
	return s
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a := arrival{at: time.Now(), path: r.URL.Path, worker: r.UserAgent()}
	s.mu.Lock()
	s.arrivals = append(s.arrivals, a)
	stall := s.stallRobots && !s.stalled && r.URL.Path == "/robots.txt"
	if stall {
		s.stalled = true
	}
	stallPage := s.stallPath != "" && r.URL.Path == s.stallPath
	if stallPage {
		s.stallPath = ""
	}
	s.mu.Unlock()
	switch {
	case stall:
		close(s.robotsStalled)
		<-r.Context().Done() // the lease holder is killed meanwhile
		return
	case stallPage:
		close(s.pageStalled)
		<-r.Context().Done() // the worker is killed meanwhile
		return
	}
	if r.URL.Path == "/robots.txt" {
		fmt.Fprintf(w, "User-agent: *\nDisallow: /private/\nCrawl-delay: %g\n", s.delay.Seconds())
		return
	}
	fmt.Fprintf(w, "<html><body>%s</body></html>", r.URL.Path)
}

// snapshot returns the arrivals so far, in order.
func (s *site) snapshot() []arrival {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := slices.Clone(s.arrivals)
	slices.SortFunc(a, func(x, y arrival) int { return x.at.Compare(y.at) })
	return a
}

// robotsRequests counts the robots.txt requests that arrived.
func (s *site) robotsRequests() int {
	n := 0
	for _, a := range s.snapshot() {
		if a.path == "/robots.txt" {
			n++
		}
	}
	return n
}

// gaps returns the gaps between consecutive arrivals (robots.txt
// included: it counts as the host's first request) and those shorter
// than the delay minus slack, described.
func (s *site) gaps(slack time.Duration) (all []time.Duration, short []string) {
	as := s.snapshot()
	for i := 1; i < len(as); i++ {
		g := as[i].at.Sub(as[i-1].at)
		all = append(all, g)
		if g < s.delay-slack {
			short = append(short, fmt.Sprintf("%v between %s %s and %s %s", g.Round(time.Millisecond),
				workerOf(as[i-1].worker), as[i-1].path, workerOf(as[i].worker), as[i].path))
		}
	}
	return all, short
}

// workerOf shortens a worker's User-Agent to its id.
func workerOf(ua string) string {
	if i := strings.LastIndex(ua, "worker "); i >= 0 {
		return strings.TrimSuffix(ua[i+len("worker "):], ")")
	}
	return ua
}

// gapSummary describes gaps: count, minimum and median.
func gapSummary(gaps []time.Duration) string {
	if len(gaps) == 0 {
		return "no gaps"
	}
	s := slices.Clone(gaps)
	slices.Sort(s)
	return fmt.Sprintf("%d gaps, min %v, median %v", len(s), s[0].Round(time.Millisecond), s[len(s)/2].Round(time.Millisecond))
}
