package redisbackend

// No head-of-line blocking through a real Redis: a request waiting for a
// paced host's start must not hold one of Colly's parallelism slots, with
// the pace kept in Redis as without a backend (the root package's
// TestNoHeadOfLineBlocking covers no backend and backend.Memory).

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

// holHit is one request as a holSite saw it.
type holHit struct {
	at   time.Time
	path string
}

// holSite is a loopback server answering robots.txt with a fixed body and
// every other path with a small page, recording each request's arrival.
type holSite struct {
	*httptest.Server
	robots string

	mu   sync.Mutex
	hits []holHit // in arrival order
}

func newHolSite(t *testing.T, robots string) *holSite {
	t.Helper()
	s := &holSite{robots: robots}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *holSite) serve(w http.ResponseWriter, r *http.Request) {
	h := holHit{at: time.Now(), path: r.URL.Path}
	s.mu.Lock()
	s.hits = append(s.hits, h)
	s.mu.Unlock()
	if r.URL.Path == "/robots.txt" {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, s.robots)
		return
	}
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprint(w, "<html><body>page</body></html>")
}

// all returns the requests received, in arrival order.
func (s *holSite) all() []holHit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.hits)
}

// TestNoHeadOfLineBlockingRedis queues the pages of a paced host
// (Crawl-delay 0.3 s) before those of an unpaced host on an Async
// collector whose only LimitRule allows 2 requests at a time, with the
// pace kept in a real redis-server, and checks at the servers that every
// unpaced page arrived within 1 s of being queued, before the paced
// host's third page, while the paced pages kept the delay. When the wait
// for a start holds a slot (it sits in OnRequestHeaders, after Colly took
// the slot), the two slots stay with the paced queue and the unpaced
// pages get one only as the paced requests ahead of them are sent, each
// 0.3 s after the last: with the wait moved there, the last of them
// reached its server 1.25 to 1.56 s after being queued (in 4 runs), and
// both checks failed.
func TestNoHeadOfLineBlockingRedis(t *testing.T) {
	t.Parallel()
	const (
		paced, unpaced = 6, 10
		delay          = 300 * time.Millisecond
		bound          = time.Second           // queue to wire, for an unpaced page
		slack          = 20 * time.Millisecond // a paced gap may look this much shorter
	)
	srv := startRedisServer(t)
	b := New(newClient(t, "unix", srv.Sock), WithPrefix(fmt.Sprintf("hol%d:", time.Now().UnixNano())), WithHeartbeat(-1))

	slow := newHolSite(t, "User-agent: *\nCrawl-delay: 0.3\n")
	fast := newHolSite(t, "User-agent: *\nAllow: /\nCrawl-delay: 0\n") // unpaced: no default pace either
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	c := colly.NewCollector(colly.Async(true), colly.StdlibContext(ctx), colly.UserAgent("AcmeBot/2.1"))
	c.WithTransport(tr)
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 2}); err != nil {
		t.Fatal(err)
	}
	ext := robotsext.Apply(c, robotsext.WithBackend(b), robotsext.WithHTTPClient(&http.Client{Transport: tr}))
	// Both robots.txt files cached first, so that only the pace differs
	// between the hosts.
	for _, s := range []*holSite{slow, fast} {
		if _, err := ext.Check(s.URL + "/"); err != nil {
			t.Fatal(err)
		}
	}

	queuedAt := map[string]time.Time{} // unpaced page path -> when it was queued
	first := time.Now()
	for i := range paced {
		if err := c.Visit(fmt.Sprintf("%s/p/%d", slow.URL, i)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range unpaced {
		p := fmt.Sprintf("/u/%d", i)
		queuedAt[p] = time.Now()
		if err := c.Visit(fast.URL + p); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	go func() { c.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the crawl did not end")
	}

	// The paced host: robots.txt counts as its first start, as the
	// backend records it.
	slowHits := slow.all()
	var slowPages []time.Time
	var short []string
	minGap := time.Duration(1<<63 - 1)
	for i, h := range slowHits {
		if h.path != "/robots.txt" {
			slowPages = append(slowPages, h.at)
		}
		if i > 0 {
			g := h.at.Sub(slowHits[i-1].at)
			minGap = min(minGap, g)
			if g < delay-slack {
				short = append(short, fmt.Sprintf("%v before %s", g.Round(time.Millisecond), h.path))
			}
		}
	}
	var waits []time.Duration // queue to wire, per unpaced page
	var lastFast time.Time
	for _, h := range fast.all() {
		if h.path == "/robots.txt" {
			continue
		}
		q, ok := queuedAt[h.path]
		if !ok {
			t.Errorf("unexpected request for %s at the unpaced host", h.path)
			continue
		}
		waits = append(waits, h.at.Sub(q))
		if h.at.After(lastFast) {
			lastFast = h.at
		}
	}
	if len(slowPages) != paced || len(waits) != unpaced {
		t.Fatalf("servers saw %d paced and %d unpaced pages, want %d and %d", len(slowPages), len(waits), paced, unpaced)
	}
	slices.Sort(waits)
	const us = 10 * time.Microsecond
	t.Logf("the %d unpaced pages, queued behind %d paced ones, reached their server %v to %v after being queued (median %v); the last arrived %v after the first paced page was queued, %v before the paced host's third page; paced pages span %v, smallest gap %v (Crawl-delay %v)",
		unpaced, paced, waits[0].Round(us), waits[len(waits)-1].Round(us), waits[len(waits)/2].Round(us),
		lastFast.Sub(first).Round(us), slowPages[2].Sub(lastFast).Round(time.Millisecond),
		slowPages[len(slowPages)-1].Sub(slowPages[0]).Round(time.Millisecond), minGap.Round(time.Millisecond), delay)
	if worst := waits[len(waits)-1]; worst > bound {
		t.Errorf("an unpaced page reached its server %v after being queued, want within %v: the paced queue held Colly's parallelism slots", worst, bound)
	}
	if !lastFast.Before(slowPages[2]) {
		t.Errorf("the last unpaced page arrived %v after the paced host's third page: the paced queue held Colly's parallelism slots",
			lastFast.Sub(slowPages[2]))
	}
	if len(short) > 0 {
		t.Errorf("the paced host (Crawl-delay %v) saw %d gaps shorter than %v: %v", delay, len(short), delay-slack, short)
	}
}
