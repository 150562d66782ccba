package robotsext

import (
	"sync/atomic"
	"time"
)

// Histogram is a snapshot of a distribution of durations, for metrics
// systems: Stats carries one for the time requests waited for their
// host's pace and one for robots.txt fetches.
type Histogram struct {
	// Bounds are the buckets' upper bounds, ascending; a last bucket
	// without a bound takes what is longer.
	Bounds []time.Duration
	// Counts has one entry per bucket, len(Bounds)+1: Counts[i] counts
	// the observations longer than Bounds[i-1] and at most Bounds[i]
	// (not cumulative).
	Counts []uint64
	// Count is the number of observations and Sum their total.
	Count uint64
	Sum   time.Duration
}

// histogramBounds are the buckets of every Histogram: from 5 ms, where a
// loopback fetch ends, to a minute, the default maximum Crawl-delay.
var histogramBounds = [...]time.Duration{
	5 * time.Millisecond, 10 * time.Millisecond, 25 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 250 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2500 * time.Millisecond, 5 * time.Second, 10 * time.Second,
	30 * time.Second, time.Minute,
}

// histogram is a live Histogram: lock-free, no allocation per
// observation.
type histogram struct {
	counts [len(histogramBounds) + 1]atomic.Uint64
	sum    atomic.Int64 // nanoseconds
}

// observe counts one duration (negative ones as 0).
func (h *histogram) observe(d time.Duration) {
	d = max(d, 0)
	i := 0
	for i < len(histogramBounds) && d > histogramBounds[i] {
		i++
	}
	h.counts[i].Add(1)
	h.sum.Add(int64(d))
}

// snapshot returns the Histogram observed so far.
func (h *histogram) snapshot() Histogram {
	s := Histogram{Bounds: histogramBounds[:], Counts: make([]uint64, len(h.counts))}
	for i := range h.counts {
		s.Counts[i] = h.counts[i].Load()
		s.Count += s.Counts[i]
	}
	s.Sum = time.Duration(h.sum.Load())
	return s
}
