package lifecycle

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// heldLease is a Backend whose robots.txt lease another worker holds
// (renewed, wait answers 3 s) while it fetches for fetchTook on clk;
// then its record is there. failAt lists the reads (1-based, Loads)
// that fail.
type heldLease struct {
	clk       *clock
	ready     time.Time // when the holder's record is stored
	rec       *backend.Record
	failAt    map[int64]bool
	loads     atomic.Int64
	leases    atomic.Int64
	adoptedAt atomic.Int64 // clk time of the read that found the record, Unix ns
}

func (b *heldLease) Load(context.Context, string) (*backend.Record, error) {
	n := b.loads.Add(1)
	if b.failAt[n] {
		return nil, errors.New("i/o timeout while the machine was starved")
	}
	if b.clk.Now().Before(b.ready) {
		return nil, nil
	}
	b.adoptedAt.CompareAndSwap(0, b.clk.Now().UnixNano())
	return b.rec, nil
}

func (b *heldLease) Lease(context.Context, string, time.Duration) (backend.Lease, bool, time.Duration, error) {
	b.leases.Add(1)
	return backend.Lease{}, false, leaseShort, nil
}

func (b *heldLease) Store(context.Context, string, backend.Lease, *backend.Record) error {
	return backend.ErrLeaseLost
}

func (b *heldLease) Reserve(context.Context, string, time.Duration) (time.Duration, error) {
	return 0, nil
}

// answering is a Health whose Backend answers every probe: a failed call
// is a suspicion that Settle clears.
type answering struct{ failed, settled atomic.Int32 }

func (h *answering) Up(string) bool { return true }
func (h *answering) Failed(error)   { h.failed.Add(1) }
func (h *answering) Settle(context.Context, error) bool {
	h.settled.Add(1)
	return true
}

// TestLeaseWaitBacksOff: a worker waiting for another's fetch of
// robots.txt reads the shared record on a step that doubles from
// pollFirst up to pollMax, so a wait of a second costs a handful of reads
// (it cost 8 reads and one more Load, 11 calls in all, on a step capped at
// 250 ms from 10 ms; 25 for a wait of 4.5 s), and adopts the record it read without reading it
// again; the record is adopted at most one step after it appeared. A
// read that fails once during the wait, while the Backend answers the
// probe the failure raised, is a suspicion: the wait goes on and the
// worker fetches nothing itself. The clock is moved by hand: Config.Sleep
// advances it.
func TestLeaseWaitBacksOff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		fetchTook time.Duration
		failAt    []int64
		maxCalls  int64 // Load and Lease calls in all
	}{
		{"a fetch of 1 s", time.Second, nil, 7},
		{"a fetch of 300 ms", 300 * time.Millisecond, nil, 5},
		{"a fetch of 4.5 s outlives the lease", 4500 * time.Millisecond, nil, 15},
		{"one read fails during the wait", time.Second, []int64{3}, 8},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			mt, cl := mock()
			start := clk.Now()
			b := &heldLease{clk: clk, ready: start.Add(tc.fetchTook), failAt: map[int64]bool{}}
			for _, n := range tc.failAt {
				b.failAt[n] = true
			}
			b.rec = &backend.Record{
				Latest:  backend.Answer{URL: testRobots, Status: 200, Outcome: backend.OutcomeOK, Body: []byte(testRules), FetchedAt: start, Expires: start.Add(time.Hour)},
				Expires: start.Add(time.Hour), GoodAt: start,
			}
			var h answering
			c := newTestCache(cl, clk, func(cfg *Config) {
				cfg.Backend, cfg.Health = b, &h
				cfg.Sleep = func(ctx context.Context, d time.Duration) error {
					clk.Advance(d)
					return ctx.Err()
				}
			})
			en, err := c.Get(context.Background(), testHost)
			if err != nil || en.Outcome != backend.OutcomeOK || en.Policy == nil {
				t.Fatalf("Get: %+v, %v; want the shared record adopted", en, err)
			}
			if n := mt.GetTotalCallCount(); n != 0 {
				t.Errorf("%d robots.txt requests; want none: the other worker fetched it", n)
			}
			calls := b.loads.Load() + b.leases.Load()
			if calls > tc.maxCalls {
				t.Errorf("%d Backend calls (%d Load, %d Lease); want at most %d", calls, b.loads.Load(), b.leases.Load(), tc.maxCalls)
			}
			late := time.Duration(b.adoptedAt.Load() - b.ready.UnixNano())
			if bound := min(tc.fetchTook, pollMax); late > bound {
				t.Errorf("record adopted %v after it appeared; want at most %v", late, bound)
			}
			if int(h.failed.Load()) != len(tc.failAt) || int(h.settled.Load()) != len(tc.failAt) {
				t.Errorf("%d failures reported and %d settled; want %d each", h.failed.Load(), h.settled.Load(), len(tc.failAt))
			}
			t.Logf("%d Load and %d Lease calls; adopted %v after the record appeared", b.loads.Load(), b.leases.Load(), late)
		})
	}
}
