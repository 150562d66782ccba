package robotsext

// Tests of the faults issue in one process: no head-of-line blocking
// behind a paced host, waits from a Backend checked against the delay,
// failures answered from the worker's own latest start, and one pace for
// a host written with and without a trailing dot.

import (
	"context"
	"errors"
	"fmt"
	"github.com/robotsext/robotsext/backend"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
)

// TestNoHeadOfLineBlocking queues the pages of a paced host (Crawl-delay
// 0.3 s) before those of an unpaced host on a collector whose only
// LimitRule allows 2 requests at a time, and checks that every unpaced
// page is answered while the paced host's pages are still waiting for
// their pace: waiting for a pace must not hold one of Colly's parallelism
// slots. The pace runs on a hand-moved clock that stands still until the
// unpaced pages are all answered, so the test does not depend on how fast
// this machine serves them, nor waits the paced host's real seconds. When
// the wait holds a slot (it sits in OnRequestHeaders, after Colly took the
// slot), the two slots stay with the paced queue, the unpaced pages are
// never answered while the clock stands still, and the test fails after
// 20 s.
func TestNoHeadOfLineBlocking(t *testing.T) {
	t.Parallel()
	const paced, unpaced = 6, 10
	modes := []struct {
		name string
		opts func(now func() time.Time) []Option
	}{
		{"no backend", func(func() time.Time) []Option { return nil }},
		{"MemoryBackend", func(now func() time.Time) []Option {
			mb := backend.NewMemory()
			mb.Now = now // the fleet's pace on the same hand-moved clock
			return []Option{WithBackend(mb)}
		}},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			slow := newAccSite(t, accBody("User-agent: *\nCrawl-delay: 0.3\n"))
			fast := newAccSite(t, accBody("User-agent: *\nAllow: /\nCrawl-delay: 0\n")) // unpaced: no default pace either
			c, client := accCollector(t, "AcmeBot/2.1")
			if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 2}); err != nil {
				t.Fatal(err)
			}
			clk := &stillClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), moves: make(chan struct{})}
			ext := Apply(c, append([]Option{client, WithClock(clk.now), withSleep(clk.sleep)}, m.opts(clk.now)...)...)
			fastDone := make(chan struct{})
			var answered atomic.Int32
			c.OnResponse(func(r *colly.Response) {
				if strings.HasPrefix(r.Request.URL.Path, "/u/") && answered.Add(1) == unpaced {
					close(fastDone)
				}
			})
			// Both robots.txt files cached first, so that only the pace
			// differs between the hosts; the paced host's fetch counts
			// as its first request, so each of its pages waits.
			for _, s := range []*accSite{slow, fast} {
				if _, err := ext.Check(s.URL + "/"); err != nil {
					t.Fatal(err)
				}
			}
			for i := range paced {
				accVisit(t, c, slow.URL, fmt.Sprintf("/p/%d", i))
			}
			for i := range unpaced {
				accVisit(t, c, fast.URL, fmt.Sprintf("/u/%d", i))
			}
			select {
			case <-fastDone:
			case <-time.After(20 * time.Second):
				t.Errorf("%d of %d unpaced pages answered in 20 s while the paced host waited: the paced queue held Colly's parallelism slots",
					answered.Load(), unpaced)
			}
			early := len(slow.all()) - 1 // robots.txt aside
			close(clk.moves)             // the paced host's pace may pass now
			c.Wait()

			if early != 0 {
				t.Errorf("%d pages of the paced host went out before its pace could pass", early)
			}
			var slowPages, fastPages int
			for _, h := range slow.all() {
				if h.path != "/robots.txt" {
					slowPages++
				}
			}
			for _, h := range fast.all() {
				if h.path != "/robots.txt" {
					fastPages++
				}
			}
			if slowPages != paced || fastPages != unpaced {
				t.Fatalf("servers saw %d paced and %d unpaced pages, want %d and %d", slowPages, fastPages, paced, unpaced)
			}
		})
	}
}

// starterFunc is a Backend whose Start answers with fn; the rest is a
// MemoryBackend's.
type starterFunc struct {
	*backend.Memory
	fn func(host, token string, delay time.Duration) (time.Duration, bool, error)
	// Queue and ClaimTurn hide Memory's: a starterFunc is a Starter and
	// a Claimer, not a Queuer, whose requests would not ask Start.
	Queue, ClaimTurn struct{}
}

func (s starterFunc) Start(_ context.Context, host, token string, delay time.Duration) (time.Duration, bool, error) {
	return s.fn(host, token, delay)
}

// queueFunc is a backend.Memory whose Queue answers with fn's wait and
// repair for each page (the robots.txt request is still recorded with
// Start), for the checks of a Queuer's answers.
type queueFunc struct {
	*backend.Memory
	fn func(host, token string, delay time.Duration) (time.Duration, bool, error)
}

func (q queueFunc) Queue(_ context.Context, host, token string, _ int64, delay, _ time.Duration) (backend.Turn, error) {
	w, repaired, err := q.fn(host, token, delay)
	return backend.Turn{Wait: w, Repaired: repaired}, err
}

// warnLog collects the messages logged at Warn.
type warnLog struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnLog) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (w *warnLog) Handle(_ context.Context, r slog.Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, r.Message)
	return nil
}
func (w *warnLog) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w *warnLog) WithGroup(string) slog.Handler      { return w }

func (w *warnLog) count(substr string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, m := range w.msgs {
		if strings.Contains(m, substr) {
			n++
		}
	}
	return n
}

// TestBackendWaitsAreBounded: a Backend asking for an hour's wait on a
// host whose delay is 0.1 s (a pace written an hour ahead), or reporting
// that it repaired the host's state, does not stall the host: the crawl
// ends paced locally, each answer is counted in Stats.BackendAnomalies,
// and one Warn per host says so.
func TestBackendWaitsAreBounded(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		queue    bool // the Backend is a Queuer, whose Queue answers
		answer   func() (time.Duration, bool, error)
		wantWarn string
	}{
		{"an hour ahead", false, func() (time.Duration, bool, error) { return time.Hour, false, nil }, "longer than the host's delay"},
		{"repaired", false, func() (time.Duration, bool, error) { return 0, true, nil }, "was replaced"},
		{"queue an hour ahead", true, func() (time.Duration, bool, error) { return time.Hour, false, nil }, "longer than the host's queue allows"},
		{"queue repaired", true, func() (time.Duration, bool, error) { return 0, true, nil }, "was replaced"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newAccSite(t, accBody("User-agent: *\nCrawl-delay: 0.1\n"))
			c, client := accCollector(t, "AcmeBot/2.1")
			var calls sync.Map
			answer := func(host, token string, delay time.Duration) (time.Duration, bool, error) {
				if delay == 0 { // the robots.txt request's mark
					return 0, false, nil
				}
				calls.Store(token, true)
				return tt.answer()
			}
			var b backend.Backend = starterFunc{Memory: backend.NewMemory(), fn: answer}
			if tt.queue {
				b = queueFunc{backend.NewMemory(), answer}
			}
			logs := &warnLog{}
			ext := Apply(c, client, WithBackend(b), WithLogger(slog.New(logs)))
			const pages = 4
			for i := range pages {
				accVisit(t, c, s.URL, fmt.Sprintf("/p/%d", i))
			}
			begin := time.Now()
			done := make(chan struct{})
			go func() { c.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				t.Fatal("the crawl did not end: the host is stalled by the backend's wait")
			}
			if got := len(s.pages()); got != pages {
				t.Errorf("server saw %d pages, want %d", got, pages)
			}
			st := ext.Stats()
			t.Logf("%d pages (Crawl-delay 0.1 s) took %v; Stats.BackendAnomalies %d; %d warnings",
				pages, time.Since(begin).Round(time.Millisecond), st.BackendAnomalies, logs.count(tt.wantWarn))
			if st.BackendAnomalies == 0 {
				t.Errorf("Stats.BackendAnomalies = 0, want the anomalies counted")
			}
			if n := logs.count(tt.wantWarn); n != 1 {
				t.Errorf("%d warnings containing %q, want exactly 1 for the host (all: %q)", n, tt.wantWarn, logs.msgs)
			}
			if strings.HasSuffix(tt.name, "an hour ahead") {
				// Paced locally: the gaps are still kept.
				accCheckGaps(t, s.all(), 100*time.Millisecond)
			}
		})
	}
}

// TestRobotsStartRepairIsLoud: a pace already broken when robots.txt is
// fetched (the Starter repairs it while recording the robots.txt request
// as the host's first start) is an anomaly like one met by a page: counted
// in Stats.BackendAnomalies and logged at Warn once per host, however many
// repairs follow.
func TestRobotsStartRepairIsLoud(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name          string
		pagesRepaired bool // the Backend repairs the pace at each page's Start too
		wantAnomalies func(n uint64) bool
	}{
		{"only at the robots.txt request", false, func(n uint64) bool { return n == 1 }},
		{"at every start", true, func(n uint64) bool { return n > 1 }},
	}
	const pages = 3
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newAccSite(t, accBody("User-agent: *\nCrawl-delay: 0.05\n"))
			c, client := accCollector(t, "AcmeBot/2.1")
			var mu sync.Mutex
			marks := 0
			b := starterFunc{Memory: backend.NewMemory(), fn: func(host, token string, delay time.Duration) (time.Duration, bool, error) {
				if delay == 0 { // the robots.txt request's mark
					mu.Lock()
					marks++
					mu.Unlock()
					return 0, true, nil
				}
				return 0, tt.pagesRepaired, nil
			}}
			logs := &warnLog{}
			ext := Apply(c, client, WithBackend(b), WithLogger(slog.New(logs)))
			for i := range pages {
				accVisit(t, c, s.URL, fmt.Sprintf("/p/%d", i))
			}
			c.Wait()
			mu.Lock()
			n := marks
			mu.Unlock()
			if n != 1 {
				t.Fatalf("the robots.txt request was recorded %d times, want 1: the test proves nothing", n)
			}
			if got := len(s.pages()); got != pages {
				t.Errorf("server saw %d pages, want %d", got, pages)
			}
			const warn = "was replaced"
			st := ext.Stats()
			t.Logf("Stats.BackendAnomalies %d; %d warnings", st.BackendAnomalies, logs.count(warn))
			if !tt.wantAnomalies(st.BackendAnomalies) {
				t.Errorf("Stats.BackendAnomalies = %d: the repair at the robots.txt request is not counted as it should be", st.BackendAnomalies)
			}
			if n := logs.count(warn); n != 1 {
				t.Errorf("%d warnings containing %q, want exactly 1 for the host (all: %q)", n, warn, logs.msgs)
			}
		})
	}
}

// TestBackendFailurePacedFromLatestStart: when the Backend fails right
// after a request went out, the next request of this worker is paced
// locally from that start at the delay times the fleet size, not sent at
// once.
func TestBackendFailurePacedFromLatestStart(t *testing.T) {
	t.Parallel()
	s := newAccSite(t, accBody("User-agent: *\nCrawl-delay: 0.1\n"))
	c, client := accCollector(t, "AcmeBot/2.1")
	var mu sync.Mutex
	n := 0
	b := &fleetOf3{starterFunc{Memory: backend.NewMemory()}}
	b.fn = func(host, token string, delay time.Duration) (time.Duration, bool, error) {
		mu.Lock()
		defer mu.Unlock()
		if n++; n > 2 {
			return 0, false, errors.New("backend down")
		}
		return 0, false, nil
	}
	ext := Apply(c, client, WithBackend(b))
	for i := range 3 {
		accVisit(t, c, s.URL, fmt.Sprintf("/p/%d", i))
	}
	c.Wait()
	if ext.Stats().BackendErrors == 0 {
		t.Fatal("the backend never failed: the test proves nothing")
	}
	var pages []accHit
	for _, h := range s.all() {
		if h.path != "/robots.txt" {
			pages = append(pages, h)
		}
	}
	if len(pages) != 3 {
		t.Fatalf("server saw %d pages, want 3", len(pages))
	}
	// The second page was granted by the backend (0.1 s after the
	// first); the third comes after the failure: delay × 3 after the
	// second.
	gap := pages[2].at.Sub(pages[1].at)
	t.Logf("gap after the failure %v (delay 0.1 s × fleet size 3)", gap.Round(time.Millisecond))
	if gap < 300*time.Millisecond-accSlack {
		t.Errorf("gap after the failure %v, want ≥ 0.3 s (delay × fleet size 3 from the latest start)", gap)
	}
}

// fleetOf3 reports a fleet of three workers.
type fleetOf3 struct{ starterFunc }

func (*fleetOf3) FleetSize() int { return 3 }

// TestTrailingDotSharesPaceE2E crawls one server as "site.test" and as
// "site.test." (a dialer sends both to it): the two names are two
// origins, each with its robots.txt, but one pace, so no two requests
// reach the server closer than the Crawl-delay.
func TestTrailingDotSharesPaceE2E(t *testing.T) {
	t.Parallel()
	s := newAccSite(t, accBody("User-agent: *\nCrawl-delay: 0.15\n"))
	addr := s.Listener.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	t.Cleanup(tr.CloseIdleConnections)
	c := colly.NewCollector(colly.Async(true), colly.StdlibContext(t.Context()))
	c.WithTransport(tr)
	Apply(c, WithHTTPClient(&http.Client{Transport: tr}))
	for i := range 3 {
		accVisit(t, c, "http://site.test:"+port, fmt.Sprintf("/a/%d", i))
		accVisit(t, c, "http://site.test.:"+port, fmt.Sprintf("/b/%d", i))
	}
	c.Wait()
	if n := len(s.pages()); n != 6 {
		t.Fatalf("server saw %d pages, want 6", n)
	}
	if n := len(s.robotsHits()); n != 2 {
		t.Errorf("robots.txt requested %d times, want 2 (one per origin)", n)
	}
	// The two robots.txt requests go out together (neither origin knows
	// the delay yet, as for http and https of one host); the pages are
	// paced as one host's.
	var pages []accHit
	for _, h := range s.all() {
		if h.path != "/robots.txt" {
			pages = append(pages, h)
		}
	}
	minGap, _ := accCheckGaps(t, pages, 150*time.Millisecond)
	t.Logf("smallest gap between pages %v across both names (Crawl-delay 150ms)", minGap)
}

// stuckLease is a Backend whose robots.txt lease is always held by another
// worker (renewed for ever) and that never has a record: the Lease answer
// a broken or hostile fleet member can cause.
type stuckLease struct {
	loads, leases atomic.Int64
	wait          time.Duration
}

func (b *stuckLease) Load(context.Context, string) (*backend.Record, error) {
	b.loads.Add(1)
	return nil, nil
}

func (b *stuckLease) Lease(context.Context, string, time.Duration) (backend.Lease, bool, time.Duration, error) {
	b.leases.Add(1)
	return backend.Lease{}, false, b.wait, nil
}

func (b *stuckLease) Store(context.Context, string, backend.Lease, *backend.Record) error {
	return backend.ErrLeaseLost
}

func (b *stuckLease) Reserve(context.Context, string, time.Duration) (time.Duration, error) {
	return 0, nil
}

// A lease that never resolves costs at most one fetch timeout and the
// lease margin: then the request's robots.txt is fetched locally and
// obeyed, the Backend failure is counted, and the Backend is not asked in
// a tight loop meanwhile, even when it answers a wait of 0.
func TestStuckLeaseFallsBackToLocalFetch(t *testing.T) {
	t.Parallel()
	for _, wait := range []time.Duration{0, 200 * time.Millisecond, time.Hour} {
		t.Run(wait.String(), func(t *testing.T) {
			t.Parallel()
			s := newAccSite(t, accBody("User-agent: *\nDisallow: /blocked/\n"))
			b := &stuckLease{wait: wait}
			// Real time: the give-up deadline and the polls between are
			// the subject. The margin is cut from 5 s to keep it short;
			// the fetch timeout leaves the local fetch room on a loaded
			// machine under the race detector.
			const margin, timeout = 400 * time.Millisecond, 500 * time.Millisecond
			e := Apply(nil, WithUserAgent("AcmeBot"), WithBackend(b), WithTimeout(timeout),
				WithLogger(slog.New(slog.DiscardHandler)), func(c *config) { c.leaseMargin = margin })
			start := time.Now()
			done := make(chan struct{})
			var allowed, blocked Verdict
			var err1, err2 error
			go func() {
				defer close(done)
				allowed, err1 = e.Check(s.URL + "/page")
				blocked, err2 = e.Check(s.URL + "/blocked/x")
			}()
			select {
			case <-done:
			case <-time.After(time.Minute):
				t.Fatal("Check still waiting for the lease after a minute")
			}
			took := time.Since(start)
			if err1 != nil || err2 != nil || !allowed.Allowed || blocked.Allowed || blocked.Reason != ReasonDisallowRule {
				t.Errorf("verdicts %+v, %v and %+v, %v; want allowed, then refused by its rule", allowed, err1, blocked, err2)
			}
			if n := len(s.robotsHits()); n != 1 {
				t.Errorf("robots.txt requested %d times, want 1 (locally)", n)
			}
			if bound := timeout + margin; took < bound {
				t.Errorf("gave up on the lease after %v; want the whole %v an honest holder may take", took, bound)
			}
			if st := e.Stats(); st.BackendErrors < 1 {
				t.Errorf("Stats.BackendErrors = %d; want the stuck lease counted", st.BackendErrors)
			}
			// Polls back off from pollFirst to pollMax: a dozen calls in
			// half a second, not thousands.
			if n := b.leases.Load() + b.loads.Load(); n > 60 {
				t.Errorf("%d Backend calls while waiting; want polling with backoff", n)
			}
			t.Logf("wait %v: gave up after %v with %d Lease and %d Load calls", wait, took.Round(time.Millisecond), b.leases.Load(), b.loads.Load())
		})
	}
}
