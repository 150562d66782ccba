package lifecycle

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// timers is a hand-moved clock for the slots' AfterFunc: every timer set
// waits until pass fires it.
type timers struct {
	mu    sync.Mutex
	due   []func()
	waits []time.Duration // every timer's duration, in the order set
}

func (tm *timers) afterFunc(d time.Duration, f func()) func() bool {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	tm.due = append(tm.due, f)
	tm.waits = append(tm.waits, d)
	return func() bool { return true }
}

// pass fires every timer set so far, as if SlowAfter had passed.
func (tm *timers) pass() {
	tm.mu.Lock()
	due := tm.due
	tm.due = nil
	tm.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// hangServer is a real server for many hosts: a host named hang-* accepts
// the robots.txt request and never answers (it reports the arrival on
// arrived), any other answers at once. Its client routes every host name
// to it with a DialContext.
func hangServer(t *testing.T) (cl *http.Client, arrived chan string) {
	t.Helper()
	arrived = make(chan string, 64)
	stop := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.Host, "hang-") {
			arrived <- r.Host
			select {
			case <-r.Context().Done():
			case <-stop:
			}
			return
		}
		io.WriteString(w, testRules)
	}))
	t.Cleanup(func() { close(stop); srv.Close() })
	addr := srv.Listener.Addr().String()
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}, arrived
}

// TestSlowFetchesFreeThePool proves that hosts whose robots.txt hangs do
// not keep other hosts' robots.txt from being fetched: with a pool of
// two, two hanging hosts take it; once SlowAfter has passed (by hand)
// they move among the slow, and a normal host's robots.txt is fetched
// while they still hang. Up to SlowFactor × the pool turn slow; past that
// cap, a hanging fetch keeps its place in the pool. Without the move, the
// normal fetch waits for a place the hanging ones never give back.
func TestSlowFetchesFreeThePool(t *testing.T) {
	t.Parallel()
	cl, arrived := hangServer(t)
	var tm timers
	cfg := fetcherConfig(cl, newClock())
	cfg.Concurrency, cfg.AfterFunc = 2, tm.afterFunc
	f := NewFetcher(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var hanging sync.WaitGroup
	hang := func(host string) {
		hanging.Add(1)
		go func() {
			defer hanging.Done()
			f.Fetch(ctx, Origin{Host: host}, RequestHeader(nil), nil, 1)
		}()
		<-arrived
	}
	normal := func(host string) <-chan *Robots {
		got := make(chan *Robots, 1)
		go func() {
			r, err := f.Fetch(ctx, Origin{Host: host}, RequestHeader(nil), nil, 1)
			if err != nil {
				t.Errorf("Fetch %s: %v", host, err)
			}
			got <- r
		}()
		return got
	}

	hang("hang-1.test")
	hang("hang-2.test")
	waiting := normal("ok-1.test") // the pool is full of hangs
	tm.pass()                      // SlowAfter passes: the hangs turn slow
	select {
	case r := <-waiting:
		if r.Outcome != backend.OutcomeOK {
			t.Errorf("ok-1.test: outcome %v, want OK", r.Outcome)
		}
	case <-time.After(30 * time.Second): // only a failing run waits
		t.Fatal("ok-1.test's robots.txt was not fetched while two hosts hung")
	}

	// Fill the slow places, then the pool: the cap holds.
	for i := 3; i <= SlowFactor*2+2; i++ { // 62 more turn slow, 2 fill the pool
		hang(fmt.Sprintf("hang-%d.test", i))
		tm.pass()
	}
	if p, s := len(f.slots.pool), len(f.slots.slow); p != 2 || s != SlowFactor*2 {
		t.Errorf("%d fetches in the pool and %d slow; want 2 and %d (the cap)", p, s, SlowFactor*2)
	}
	cancel()
	hanging.Wait()
	if p, s := len(f.slots.pool), len(f.slots.slow); p != 0 || s != 0 {
		t.Errorf("after the hangs ended, %d places in the pool and %d slow still taken", p, s)
	}
}

// TestSlowHeadersWait proves how long a fetch may wait for its response
// headers before it stops counting against the pool: MinSlowAfter before
// any answer was timed, SlowMedians × the median of the recent times to
// headers, never below MinSlowAfter nor above SlowAfter. Before, every
// fetch counted against the pool for the whole SlowAfter (1 s), so 600
// hanging hosts queued ahead held up the others for about 19 s.
func TestSlowHeadersWait(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	for _, tc := range []struct {
		name  string
		after time.Duration
		timed []time.Duration
		want  time.Duration
	}{
		{"none timed yet", 0, nil, MinSlowAfter},
		{"loopback answers", 0, []time.Duration{ms, 2 * ms, ms}, MinSlowAfter},
		{"answers across a continent", 0, []time.Duration{150 * ms, 200 * ms, 180 * ms}, 720 * ms},
		{"a few outliers do not move the median", 0, []time.Duration{50 * ms, 60 * ms, 9 * time.Second, 55 * ms, 8 * time.Second}, 240 * ms},
		{"slow answers: capped at SlowAfter", 0, []time.Duration{400 * ms, 500 * ms}, DefaultSlowAfter},
		{"SlowAfter below the floor wins", 50 * ms, nil, 50 * ms},
		{"only the last 32 count", 0, append(slices.Repeat([]time.Duration{900 * ms}, 40), slices.Repeat([]time.Duration{30 * ms}, slowSamples)...), 120 * ms},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newSlots(1, tc.after, nil)
			for _, d := range tc.timed {
				s.timeHeaders(d)
			}
			if got := s.headersWait(); got != tc.want {
				t.Errorf("headersWait = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSlowAfterHeaders proves that a fetch whose headers came counts
// against the pool until SlowAfter, not only until the headers' wait: its
// first timer extends the wait once (to what is left of SlowAfter), and
// the second moves it among the slow.
func TestSlowAfterHeaders(t *testing.T) {
	t.Parallel()
	var tm timers
	s := newSlots(1, 0, tm.afterFunc)
	sl, err := s.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sl.answered(true)
	tm.pass() // the headers' wait ends: the body is still read
	if len(s.pool) != 1 || len(s.slow) != 0 {
		t.Fatalf("after the headers' wait, %d in the pool and %d slow; want 1 and 0", len(s.pool), len(s.slow))
	}
	if len(tm.waits) != 2 || tm.waits[0] != MinSlowAfter || tm.waits[1] <= 0 || tm.waits[1] > DefaultSlowAfter {
		t.Fatalf("timers set %v; want MinSlowAfter, then what is left of SlowAfter", tm.waits)
	}
	tm.pass() // SlowAfter passes
	if len(s.pool) != 0 || len(s.slow) != 1 {
		t.Fatalf("after SlowAfter, %d in the pool and %d slow; want 0 and 1", len(s.pool), len(s.slow))
	}
	sl.release()
	if len(s.pool) != 0 || len(s.slow) != 0 {
		t.Errorf("after release, %d in the pool and %d slow still taken", len(s.pool), len(s.slow))
	}
}
