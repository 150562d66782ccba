package lifecycle

// This file holds the fetch slots: how many requests of a Fetcher are on
// the wire at once, and how a slow one stops holding up the others.

import (
	"context"
	"sync"
	"time"
)

const (
	// DefaultSlowAfter is FetcherConfig.SlowAfter's default: a robots.txt
	// answer on loopback or across a continent comes whole well within it.
	DefaultSlowAfter = time.Second

	// SlowFactor bounds the slow fetches: at most SlowFactor times
	// FetcherConfig.Concurrency fetches run past SlowAfter outside the
	// pool at once.
	SlowFactor = 8
)

// slots bounds the fetches in flight. A fetch takes one of the pool's
// places for as long as it is quick; one still running SlowAfter after it
// started (a host that hangs before its headers, or trickles its body)
// moves to a place among the slow, so that the pool goes on serving other
// hosts. The slow places are bounded too (SlowFactor × the pool): past
// them a slow fetch keeps its place in the pool. So at most (1 +
// SlowFactor) × Concurrency fetches, with a connection each, are in flight.
// The zero value is not usable; newSlots makes one.
type slots struct {
	pool, slow chan struct{}
	after      time.Duration
	// afterFunc runs f once d has passed, as time.AfterFunc does, and
	// returns the call that cancels it; tests move the time by hand.
	afterFunc func(d time.Duration, f func()) (stop func() bool)
}

// newSlots makes the slots of n quick fetches (at least one), and
// SlowFactor × n slow ones, a fetch turning slow after after (≤ 0:
// DefaultSlowAfter). afterFunc nil: the real clock.
func newSlots(n int, after time.Duration, afterFunc func(time.Duration, func()) func() bool) *slots {
	n = max(n, 1)
	if after <= 0 {
		after = DefaultSlowAfter
	}
	if afterFunc == nil {
		afterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	return &slots{pool: make(chan struct{}, n), slow: make(chan struct{}, SlowFactor*n), after: after, afterFunc: afterFunc}
}

// slot is one fetch's place, in the pool or among the slow.
type slot struct {
	s    *slots
	stop func() bool
	mu   sync.Mutex
	slow bool // guarded by mu: the place is among the slow
	done bool // guarded by mu: released
}

// acquire takes a place in the pool, waiting as long as ctx allows. The
// caller releases it once its fetch ended.
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
	sl := &slot{s: s}
	sl.mu.Lock() // the timer may fire before stop is set
	sl.stop = s.afterFunc(s.after, sl.turnSlow)
	sl.mu.Unlock()
	return sl, nil
}

// turnSlow moves a fetch still running from the pool to a slow place,
// when one is free.
func (sl *slot) turnSlow() {
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if sl.done || sl.slow {
		return
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
