package tally

// This file counts durations in fixed buckets, for the histograms of
// Stats.

import (
	"sync/atomic"
	"time"
)

// Bounds are the buckets' upper bounds, ascending, of every Durations:
// from 5 ms, where a loopback fetch ends, to a minute, the default
// maximum Crawl-delay. A last bucket without a bound takes what is longer.
var Bounds = [...]time.Duration{
	5 * time.Millisecond, 10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2500 * time.Millisecond, 5 * time.Second, 10 * time.Second,
	30 * time.Second, time.Minute,
}

// Durations is a live distribution of durations: lock-free, no
// allocation per observation. Its zero value has observed nothing.
type Durations struct {
	counts [len(Bounds) + 1]atomic.Uint64
	sum    atomic.Int64 // nanoseconds
}

// Observe counts one duration (negative ones as 0).
func (h *Durations) Observe(d time.Duration) {
	d = max(d, 0)
	i := 0
	for i < len(Bounds) && d > Bounds[i] {
		i++
	}
	h.counts[i].Add(1)
	h.sum.Add(int64(d))
}

// Snapshot returns what was observed so far: one count per bucket,
// len(Bounds)+1, not cumulative (counts[i] counts the durations longer
// than Bounds[i-1] and at most Bounds[i]), their total and their sum.
func (h *Durations) Snapshot() (counts []uint64, count uint64, sum time.Duration) {
	counts = make([]uint64, len(h.counts))
	for i := range h.counts {
		counts[i] = h.counts[i].Load()
		count += counts[i]
	}
	return counts, count, time.Duration(h.sum.Load())
}
