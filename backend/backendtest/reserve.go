package backendtest

// This file checks Reserve, the per-host pace. Every check reads the waits
// Reserve returns, never the wall clock: with a delay of an hour, the
// milliseconds between two calls cannot be mistaken for a gap. Each call
// returns booked−now by the backend's clock, so two waits differ by the
// gap between their bookings minus the time between the calls; the checks
// allow exactly that time, measured around the calls.

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// paceDelay is the Crawl-delay of the Reserve checks: long enough that no
// test duration blurs it, and Reserve never sleeps, so it costs nothing.
const paceDelay = time.Hour

// reserveSeq calls Reserve once per delay in order and returns the waits,
// and how long the calls took altogether (the slack any two waits can
// differ by beyond the gap between their bookings).
func reserveSeq(t *testing.T, b backend.Backend, host string, delays ...time.Duration) ([]time.Duration, time.Duration) {
	t.Helper()
	waits := make([]time.Duration, len(delays))
	start := time.Now()
	for i, d := range delays {
		w, err := b.Reserve(ctx(t), host, d)
		if err != nil {
			t.Fatalf("Reserve(%q, %v) #%d: %v", host, d, i, err)
		}
		waits[i] = w
	}
	return waits, time.Since(start)
}

// checkWaits fails t unless each wait is want[i] up to slack (waits are
// measured from each call's own now, so later calls see a shorter wait
// for the same booking, never a longer one).
func checkWaits(t *testing.T, what string, waits, want []time.Duration, slack time.Duration) {
	t.Helper()
	for i, w := range waits {
		if w > want[i] || w < want[i]-slack {
			t.Errorf("%s: Reserve #%d waits %v; want %v (minus at most %v spent in the calls); all waits %v",
				what, i, w, want[i], slack, waits)
		}
	}
}

// testReserveFreshHost: a host never booked starts at once, whatever its
// delay.
func testReserveFreshHost(t *testing.T, b backend.Backend) {
	for _, d := range []time.Duration{0, time.Millisecond, time.Second, paceDelay} {
		host := "fresh-" + d.String() + ".example"
		waits, _ := reserveSeq(t, b, host, d)
		if waits[0] != 0 {
			t.Errorf("first Reserve(%q, %v) waits %v; want 0", host, d, waits[0])
		}
	}
}

// testReserveSequential: successive bookings are one delay apart, each
// after the latest booked start, not after now.
func testReserveSequential(t *testing.T, b backend.Backend) {
	begin := time.Now()
	waits, slack := reserveSeq(t, b, "seq.example", paceDelay, paceDelay, paceDelay, paceDelay)
	checkWaits(t, "four bookings", waits, []time.Duration{0, paceDelay, 2 * paceDelay, 3 * paceDelay}, slack)

	// A shorter delay counts from the latest booking too: the robots.txt
	// may have changed its Crawl-delay meanwhile. The slack is all the
	// time since the first booking, the checks between included.
	waits, _ = reserveSeq(t, b, "seq.example", time.Minute)
	checkWaits(t, "a shorter delay", waits, []time.Duration{3*paceDelay + time.Minute}, time.Since(begin))
}

// testReserveConcurrent: N concurrent bookings for one host are pairwise
// at least a delay apart: no two callers get the same slot.
func testReserveConcurrent(t *testing.T, b backend.Backend) {
	const n = 16
	host := "concurrent.example"
	waits := make([]time.Duration, n)
	var start, done sync.WaitGroup
	start.Add(1)
	begin := time.Now()
	for i := range n {
		done.Go(func() {
			start.Wait()
			w, err := b.Reserve(ctx(t), host, paceDelay)
			if err != nil {
				t.Errorf("Reserve: %v", err)
			}
			waits[i] = w
		})
	}
	start.Done()
	done.Wait()
	slack := time.Since(begin)
	if t.Failed() {
		return
	}
	slices.Sort(waits)
	if waits[0] > slack || waits[0] < 0 {
		t.Errorf("the earliest of %d concurrent bookings waits %v; want about 0 (≤ %v)", n, waits[0], slack)
	}
	for i := 1; i < n; i++ {
		if gap := waits[i] - waits[i-1]; gap < paceDelay-slack || gap > paceDelay+slack {
			t.Errorf("bookings %d and %d are %v apart; want %v ± %v (all waits %v)", i-1, i, gap, paceDelay, slack, waits)
		}
	}
}

// testReserveZeroDelay: a delay of 0 books max(now, latest): it waits for
// a slot already booked but adds no delay of its own, and the start it
// books counts for the next delayed request. What a delay of 0 leaves on
// a host without a pace is left to the backend: MemoryBackend keeps
// nothing, redisbackend keeps a mark the next delay counts from.
func testReserveZeroDelay(t *testing.T, b backend.Backend) {
	tests := []struct {
		name   string
		delays []time.Duration
		want   []time.Duration
	}{
		{"zero delays alone delay nothing", []time.Duration{0, 0, 0}, []time.Duration{0, 0, 0}},
		{"after a booking now", []time.Duration{paceDelay, 0, 0}, []time.Duration{0, 0, 0}},
		{"marks a start the next delay counts from", []time.Duration{paceDelay, 0, paceDelay}, []time.Duration{0, 0, paceDelay}},
		{"waits for a future slot, adds nothing", []time.Duration{paceDelay, paceDelay, 0, 0}, []time.Duration{0, paceDelay, paceDelay, paceDelay}},
		{"then the next delay counts from that slot", []time.Duration{paceDelay, paceDelay, 0, paceDelay}, []time.Duration{0, paceDelay, paceDelay, 2 * paceDelay}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			host := "zero" + string(rune('a'+i)) + ".example"
			waits, slack := reserveSeq(t, b, host, tc.delays...)
			checkWaits(t, tc.name, waits, tc.want, slack)
		})
	}
}

// testReserveHostsIndependent: one host's bookings never delay another's,
// including hosts that differ only by port.
func testReserveHostsIndependent(t *testing.T, b backend.Backend) {
	hosts := []string{"a.example", "b.example", "a.example:8080", "a.example:8443", "sub.a.example"}
	for _, h := range hosts {
		waits, slack := reserveSeq(t, b, h, paceDelay, paceDelay)
		checkWaits(t, h, waits, []time.Duration{0, paceDelay}, slack)
	}
}
