// Package backendtest is the contract every backend.Backend must pass.
// A backend's own tests call Run with a constructor:
//
//	func TestContract(t *testing.T) {
//		backendtest.Run(t, func(t *testing.T) backend.Backend {
//			return mybackend.New(...) // fresh, or at least with a fresh key space
//		})
//	}
//
// Run checks what the Extension relies on: absent records load as nil;
// a lease is exclusive, reports how long its holder keeps it and is granted
// again once it expires; Store is fenced by the lease; records round-trip
// field by field; Reserve books max(now, latest+delay) atomically per host
// and independently across hosts; cancelled contexts fail; keys with
// ports, IPv6 literals and long names work. For a backend that implements
// the optional interfaces it checks them too (the subtests of the others
// skip): Starter grants a host's next start once its delay has passed,
// confirms the token it granted the latest start and lets exactly one of many concurrent
// callers through; Claimer keeps a host claimed until the Unclaim or the
// claim's expiry and times the next start from the Unclaim; Queuer gives
// each waiting request its own place, a step after the one before, skips
// a ticket that never comes back after one step, and answers for the
// host's back-off in the same step (no start while paused, one probe);
// LeaseRenewer extends only the lease in force; Forgetter
// deletes a record and its lease and logs the purge in order for every
// reader's cursor; PauseWatcher lists every paused host once, then the
// pauses begun since.
//
// The checks are free of timing assumptions wherever the contract allows:
// pacing is verified from the waits Reserve returns (with a delay of an
// hour, so that the few milliseconds the calls themselves take cannot
// blur a gap), never from sleeps. Only lease expiry has to be observed in
// real time; it uses leases of tens of milliseconds and polls for seconds,
// so a slow machine makes the test slower, never wrong. Subtests run in
// parallel, each with a backend of its own from newBackend.
package backendtest

import (
	"context"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// Run runs the Backend contract as subtests of t. newBackend is called once
// per subtest and must return a backend that shares no state with those of
// other subtests (a fresh instance, or one with a key prefix of its own);
// it may register cleanups on the t it is given.
func Run(t *testing.T, newBackend func(t *testing.T) backend.Backend) {
	t.Helper()
	tests := []struct {
		name string
		fn   func(t *testing.T, b backend.Backend)
	}{
		{"LoadUnknown", testLoadUnknown},
		{"LeaseExclusive", testLeaseExclusive},
		{"LeaseReportsRemaining", testLeaseReportsRemaining},
		{"LeaseRejectsNonPositiveTTL", testLeaseRejectsNonPositiveTTL},
		{"LeaseExpires", testLeaseExpires},
		{"StoreReleases", testStoreReleases},
		{"StoreOverwrites", testStoreOverwrites},
		{"StoreFencing", testStoreFencing},
		{"StoreExpiredLease", testStoreExpiredLease},
		{"StoreNilRecord", testStoreNilRecord},
		{"RecordRoundTrip", testRecordRoundTrip},
		{"StoreLeavesRecord", testStoreLeavesRecord},
		{"ReserveFreshHost", testReserveFreshHost},
		{"ReserveSequential", testReserveSequential},
		{"ReserveConcurrent", testReserveConcurrent},
		{"ReserveZeroDelay", testReserveZeroDelay},
		{"ReserveHostsIndependent", testReserveHostsIndependent},
		{"CancelledContext", testCancelledContext},
		{"OddKeys", testOddKeys},
		{"ConcurrentMixed", testConcurrentMixed},
		{"StartSequence", testStartSequence},
		{"StartHostsIndependent", testStartHostsIndependent},
		{"StartConcurrent", testStartConcurrent},
		{"StartAfterDelay", testStartAfterDelay},
		{"StartCancelled", testStartCancelled},
		{"HoldSequence", testClaimSequence},
		{"HoldUntilRelease", testClaimUntilUnclaim},
		{"HoldExpires", testClaimExpires},
		{"HoldBrokenExpiry", testClaimBrokenExpiry},
		{"HoldConcurrent", testClaimConcurrent},
		{"HoldOddCalls", testClaimOddCalls},
		{"RenewExtends", testRenewExtends},
		{"RenewLost", testRenewLost},
		{"RenewCancelled", testRenewCancelled},
		{"ForgetDrops", testForgetDrops},
		{"ForgetOrder", testForgetOrder},
		{"PurgesUnknownCursor", testPurgesUnknownCursor},
		{"ForgetCancelled", testForgetCancelled},
		{"PauseHealthy", testPauseHealthy},
		{"PauseRetryAfter", testPauseRetryAfter},
		{"PauseCapped", testPauseCapped},
		{"PauseOneProbe", testPauseOneProbe},
		{"PauseProbeFails", testPauseProbeFails},
		{"PauseConcurrentProbe", testPauseConcurrentProbe},
		{"QueueSequence", testQueueSequence},
		{"QueueSpreads", testQueueSpreads},
		{"QueueSkipsDeadTicket", testQueueSkipsDeadTicket},
		{"QueueServiceTime", testQueueServiceTime},
		{"QueueOddCalls", testQueueOddCalls},
		{"QueueBrokenClaim", testQueueBrokenClaim},
		{"QueuePaused", testQueuePaused},
		{"QueueProbe", testQueueProbe},
		{"PausesSince", testPausesSince},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, newBackend(t))
		})
	}
}

// callTimeout bounds each backend call of the contract, so that a hung
// backend fails the test instead of stalling it.
const callTimeout = 10 * time.Second

// ctx returns a context for one backend call, cancelled when t ends.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), callTimeout)
	t.Cleanup(cancel)
	return c
}

// testLoadUnknown: an origin nothing was stored for loads as nil, nil.
func testLoadUnknown(t *testing.T, b backend.Backend) {
	for _, origin := range []string{"https://unknown.example", "http://unknown.example", "https://unknown.example:8443"} {
		rec, err := b.Load(ctx(t), origin)
		if err != nil || rec != nil {
			t.Errorf("Load(%q) = %v, %v; want nil, nil", origin, rec, err)
		}
	}
}

// mustLease takes origin's lease for ttl and fails t when it is not granted.
func mustLease(t *testing.T, b backend.Backend, origin string, ttl time.Duration) backend.Lease {
	t.Helper()
	l, ok, wait, err := b.Lease(ctx(t), origin, ttl)
	if err != nil || !ok {
		t.Fatalf("Lease(%q, %v) = %+v, %v, %v, %v; want it granted", origin, ttl, l, ok, wait, err)
	}
	if l.Token == "" {
		t.Fatalf("Lease(%q) granted with an empty token", origin)
	}
	return l
}

// mustStore stores rec under l and fails t on an error.
func mustStore(t *testing.T, b backend.Backend, origin string, l backend.Lease, rec *backend.Record) {
	t.Helper()
	if err := b.Store(ctx(t), origin, l, rec); err != nil {
		t.Fatalf("Store(%q) with the held lease: %v", origin, err)
	}
}

// mustLoad loads origin's record and fails t on an error.
func mustLoad(t *testing.T, b backend.Backend, origin string) *backend.Record {
	t.Helper()
	rec, err := b.Load(ctx(t), origin)
	if err != nil {
		t.Fatalf("Load(%q): %v", origin, err)
	}
	return rec
}
