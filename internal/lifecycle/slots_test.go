package lifecycle

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// timers is a hand-moved clock for the slots' AfterFunc: every timer set
// waits until pass fires it.
type timers struct {
	mu  sync.Mutex
	due []func()
}

func (tm *timers) afterFunc(_ time.Duration, f func()) func() bool {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	tm.due = append(tm.due, f)
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
	for i := 3; i <= SlowFactor*2+2; i++ { // 14 more turn slow, 2 fill the pool
		hang("hang-" + string(rune('a'+i)) + ".test")
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
