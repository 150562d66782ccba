package robotsext

import (
	"time"

	"github.com/robotsext/robotsext/internal/tally"
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

// snapshot returns the Histogram h observed so far.
func snapshot(h *tally.Durations) Histogram {
	s := Histogram{Bounds: tally.Bounds[:]}
	s.Counts, s.Count, s.Sum = h.Snapshot()
	return s
}
