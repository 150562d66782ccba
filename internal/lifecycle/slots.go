package lifecycle

// This file holds the fetch slots: how many requests of a Fetcher are on
// the wire at once, and how a slow one stops holding up the others.

import (
	"context"
	"slices"
	"sync"
	"time"
)

const (
	// DefaultSlowAfter is FetcherConfig.SlowAfter's default, the longest
	// a fetch counts against the pool: a robots.txt answer on loopback or
	// across a continent comes whole well within it.
	DefaultSlowAfter = time.Second

	// MinSlowAfter is the shortest a fetch waits for its response headers
	// before it stops counting against the pool, and the whole wait until
	// the Fetcher has timed an answer.
	MinSlowAfter = 100 * time.Millisecond

	// SlowMedians is how many times the recent median time to response
	// headers a fetch waits for its own before it stops counting against
	// the pool (at least MinSlowAfter, at most SlowAfter).
	SlowMedians = 4

	// SlowFactor bounds the slow fetches: at most SlowFactor times
	// FetcherConfig.Concurrency fetches run outside the pool at once.
	SlowFactor = 32

	// slowSamples is how many recent times to response headers the
	// median is taken over.
	slowSamples = 32
)

// slots bounds the fetches in flight. A fetch takes one of the pool's
// places for as long as it is quick. One that has no response headers
// after SlowMedians × the recent median time to headers (at least
// MinSlowAfter, at most SlowAfter), or is still reading its body
// SlowAfter after it started (a host that hangs, or trickles), moves to a
// place among the slow, so that the pool goes on serving other hosts: a
// hanging host costs those queued behind it about one such wait per
// Concurrency hangs. The slow places are bounded too (SlowFactor × the
// pool): past them a slow fetch keeps its place in the pool. So at most
// (1 + SlowFactor) × Concurrency fetches, with a connection each, are in
// flight. The zero value is not usable; newSlots makes one.
type slots struct {
	pool, slow chan struct{}
	after      time.Duration // the longest a fetch counts against the pool
	// afterFunc runs f once d has passed, as time.AfterFunc does, and
	// returns the call that cancels it; tests move the time by hand.
	afterFunc func(d time.Duration, f func()) (stop func() bool)
	now       func() time.Time

	mu     sync.Mutex
	timed  [slowSamples]time.Duration // guarded by mu: recent times to response headers, a ring
	nTimed int                        // guarded by mu: how many of timed are set
	next   int                        // guarded by mu: where the next time goes
}

// newSlots makes the slots of n quick fetches (at least one), and
// SlowFactor × n slow ones, a fetch counting against the pool at most
// after (≤ 0: DefaultSlowAfter). afterFunc nil: the real clock. The
// times to headers are read on the real clock, whatever the Fetcher's.
func newSlots(n int, after time.Duration, afterFunc func(time.Duration, func()) func() bool) *slots {
	n = max(n, 1)
	if after <= 0 {
		after = DefaultSlowAfter
	}
	if afterFunc == nil {
		afterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	return &slots{pool: make(chan struct{}, n), slow: make(chan struct{}, SlowFactor*n), after: after, afterFunc: afterFunc, now: time.Now}
}

// headersWait is how long a fetch started now may wait for its response
// headers before it stops counting against the pool: SlowMedians × the
// median of the recent times to headers, within [MinSlowAfter, after];
// MinSlowAfter before any answer was timed.
func (s *slots) headersWait() time.Duration {
	s.mu.Lock()
	var buf [slowSamples]time.Duration
	timed := buf[:s.nTimed]
	copy(timed, s.timed[:s.nTimed])
	s.mu.Unlock()
	w := MinSlowAfter
	if len(timed) > 0 {
		slices.Sort(timed)
		w = max(SlowMedians*timed[len(timed)/2], MinSlowAfter)
	}
	return min(w, s.after)
}

// timeHeaders records one fetch's time to its response headers.
func (s *slots) timeHeaders(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.timed[s.next] = d
	s.next = (s.next + 1) % slowSamples
	s.nTimed = min(s.nTimed+1, slowSamples)
}

// slot is one fetch's place, in the pool or among the slow.
type slot struct {
	s       *slots
	started time.Time
	mu      sync.Mutex
	stop    func() bool // guarded by mu: cancels the pending timer
	headers bool        // guarded by mu: the response headers came (or the request failed)
	longer  bool        // guarded by mu: the wait was extended to SlowAfter once
	slow    bool        // guarded by mu: the place is among the slow
	done    bool        // guarded by mu: released
}

// acquire takes a place in the pool, waiting as long as ctx allows. The
// caller reports the response headers with answered, and releases the
// place once its fetch ended.
func (s *slots) acquire(ctx context.Context) (*slot, error) {
	select {
	case s.pool <- struct{}{}:
	default:
		select {
		case s.pool <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	sl := &slot{s: s, started: s.now()}
	sl.mu.Lock() // the timer may fire before stop is set
	sl.stop = s.afterFunc(s.headersWait(), sl.expire)
	sl.mu.Unlock()
	return sl, nil
}

// answered records that the request returned: with its response headers
// when timed is true (their wait joins the recent times), or an error.
// A fetch reading its body counts against the pool until SlowAfter.
func (sl *slot) answered(timed bool) {
	d := sl.s.now().Sub(sl.started)
	sl.mu.Lock()
	sl.headers = true
	sl.mu.Unlock()
	if timed {
		sl.s.timeHeaders(d)
	}
}

// expire runs when the fetch's wait is over: without headers, or past
// SlowAfter, the fetch turns slow; with headers before SlowAfter, the
// wait is extended to SlowAfter, once.
func (sl *slot) expire() {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if sl.done || sl.slow {
		return
	}
	if sl.headers && !sl.longer {
		sl.longer = true
		if left := sl.s.after - sl.s.now().Sub(sl.started); left > 0 {
			sl.stop = sl.s.afterFunc(left, sl.expire)
			return
		}
	}
	select {
	case sl.s.slow <- struct{}{}:
		sl.slow = true
		<-sl.s.pool
	default: // every slow place is taken: keep the pool's
	}
}

// release gives the place back.
func (sl *slot) release() {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if sl.done {
		return
	}
	sl.done = true
	sl.stop()
	if sl.slow {
		<-sl.s.slow
	} else {
		<-sl.s.pool
	}
}
