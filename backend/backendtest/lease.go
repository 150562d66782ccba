package backendtest

// This file checks leases and the fencing of Store.

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// expiryTTL is the lease lifetime of the subtests that watch a lease
// expire, and expiryPoll how long they wait for it at most: short leases,
// generous waiting, so that a slow machine only makes them slower.
const (
	expiryTTL  = 30 * time.Millisecond
	expiryPoll = 10 * time.Second
)

// testLeaseExclusive: of N concurrent callers exactly one gets the lease,
// and the others learn how long it still runs.
func testLeaseExclusive(t *testing.T, b backend.Backend) {
	const (
		n   = 16
		ttl = time.Minute
	)
	origin := "https://exclusive.example"
	type result struct {
		l    backend.Lease
		ok   bool
		wait time.Duration
		err  error
	}
	results := make([]result, n)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range n {
		done.Go(func() {
			start.Wait()
			var r result
			r.l, r.ok, r.wait, r.err = b.Lease(ctx(t), origin, ttl)
			results[i] = r
		})
	}
	start.Done()
	done.Wait()

	winners := 0
	for i, r := range results {
		switch {
		case r.err != nil:
			t.Errorf("caller %d: Lease: %v", i, r.err)
		case r.ok:
			winners++
			if r.l.Token == "" {
				t.Errorf("caller %d: granted with an empty token", i)
			}
		case r.wait <= 0 || r.wait > ttl:
			t.Errorf("caller %d: refused with wait %v; want in (0, %v]", i, r.wait, ttl)
		}
	}
	if winners != 1 {
		t.Fatalf("%d of %d concurrent callers got the lease; want exactly 1", winners, n)
	}
}

// testLeaseReportsRemaining: a refused caller is told roughly how long the
// holder's lease still runs, never more than its ttl.
func testLeaseReportsRemaining(t *testing.T, b backend.Backend) {
	const ttl = time.Hour
	origin := "https://remaining.example"
	mustLease(t, b, origin, ttl)
	for range 3 {
		l, ok, wait, err := b.Lease(ctx(t), origin, time.Second)
		if err != nil || ok {
			t.Fatalf("second Lease = %+v, %v, %v, %v; want refused", l, ok, wait, err)
		}
		// An hour minus however long the test has run so far: a minute
		// of slack is plenty and still tells the holder's ttl from the
		// asker's.
		if wait > ttl || wait < ttl-time.Minute {
			t.Errorf("refused Lease reports wait %v; want about %v (the holder's lease)", wait, ttl)
		}
	}
}

// testLeaseRejectsNonPositiveTTL: a lease must have a lifetime, or a dead
// holder would never be replaced.
func testLeaseRejectsNonPositiveTTL(t *testing.T, b backend.Backend) {
	for _, ttl := range []time.Duration{0, -time.Second} {
		if l, ok, _, err := b.Lease(ctx(t), "https://ttl.example", ttl); err == nil || ok {
			t.Errorf("Lease with ttl %v = %+v, %v, %v; want an error", ttl, l, ok, err)
		}
	}
	// The refused calls left nothing behind.
	mustLease(t, b, "https://ttl.example", time.Minute)
}

// awaitLease polls origin's lease until it is granted, for at most
// expiryPoll, and fails t otherwise.
func awaitLease(t *testing.T, b backend.Backend, origin string, ttl time.Duration) backend.Lease {
	t.Helper()
	deadline := time.Now().Add(expiryPoll)
	for {
		l, ok, wait, err := b.Lease(ctx(t), origin, ttl)
		if err != nil {
			t.Fatalf("Lease(%q): %v", origin, err)
		}
		if ok {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("Lease(%q) still refused after %v (wait %v): an expired lease must be granted again", origin, expiryPoll, wait)
		}
		time.Sleep(min(max(wait, time.Millisecond), 20*time.Millisecond))
	}
}

// testLeaseExpires: a holder that never stores (a dead worker) is replaced
// once its lease expires.
func testLeaseExpires(t *testing.T, b backend.Backend) {
	origin := "https://expires.example"
	first := mustLease(t, b, origin, expiryTTL)
	second := awaitLease(t, b, origin, time.Minute)
	if second.Token == first.Token {
		t.Fatalf("the lease granted after expiry reuses the dead holder's token %q", first.Token)
	}
	// The new holder stores; the dead one is fenced off (testStoreFencing
	// covers the details).
	mustStore(t, b, origin, second, sampleRecord(origin))
}

// testStoreReleases: Store with the held lease stores the record and
// releases the lease at once.
func testStoreReleases(t *testing.T, b backend.Backend) {
	origin := "https://releases.example"
	l := mustLease(t, b, origin, time.Hour)
	want := sampleRecord(origin)
	mustStore(t, b, origin, l, want)
	if diff := Diff(want, mustLoad(t, b, origin)); diff != "" {
		t.Errorf("Load after Store: %s", diff)
	}
	// Released: granted again without waiting for the hour.
	mustLease(t, b, origin, time.Minute)
}

// testStoreOverwrites: the next holder's record replaces the previous one.
func testStoreOverwrites(t *testing.T, b backend.Backend) {
	origin := "https://overwrites.example"
	mustStore(t, b, origin, mustLease(t, b, origin, time.Minute), sampleRecord(origin))
	want := sampleRecord(origin)
	want.Failures = 3
	want.Latest.Status = 503
	want.Latest.Outcome = backend.OutcomeUnreachable
	mustStore(t, b, origin, mustLease(t, b, origin, time.Minute), want)
	if diff := Diff(want, mustLoad(t, b, origin)); diff != "" {
		t.Errorf("Load after the second Store: %s", diff)
	}
}

// testStoreFencing: a Store without the lease currently held stores
// nothing and fails with ErrLeaseLost, whatever the reason it is not held.
func testStoreFencing(t *testing.T, b backend.Backend) {
	tests := []struct {
		name string
		// setup returns the lease to store with and the record expected
		// afterwards (nil: none).
		setup func(t *testing.T, origin string) (backend.Lease, *backend.Record)
	}{
		{"no lease taken", func(t *testing.T, origin string) (backend.Lease, *backend.Record) {
			return backend.Lease{Token: "made-up"}, nil
		}},
		{"empty token", func(t *testing.T, origin string) (backend.Lease, *backend.Record) {
			mustLease(t, b, origin, time.Minute)
			return backend.Lease{}, nil
		}},
		{"foreign token", func(t *testing.T, origin string) (backend.Lease, *backend.Record) {
			mustLease(t, b, origin, time.Minute)
			return backend.Lease{Token: "0123456789abcdef0123456789abcdef"}, nil
		}},
		{"another origin's lease", func(t *testing.T, origin string) (backend.Lease, *backend.Record) {
			mustLease(t, b, origin, time.Minute)
			return mustLease(t, b, origin+":8443", time.Minute), nil
		}},
		{"already used", func(t *testing.T, origin string) (backend.Lease, *backend.Record) {
			l := mustLease(t, b, origin, time.Minute)
			first := sampleRecord(origin)
			mustStore(t, b, origin, l, first)
			return l, first
		}},
		{"used, then taken by another", func(t *testing.T, origin string) (backend.Lease, *backend.Record) {
			l := mustLease(t, b, origin, time.Minute)
			first := sampleRecord(origin)
			mustStore(t, b, origin, l, first)
			mustLease(t, b, origin, time.Minute)
			return l, first
		}},
		{"expired and taken by another", func(t *testing.T, origin string) (backend.Lease, *backend.Record) {
			l := mustLease(t, b, origin, expiryTTL)
			awaitLease(t, b, origin, time.Minute)
			return l, nil
		}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			origin := "https://fencing" + string(rune('a'+i)) + ".example"
			l, want := tc.setup(t, origin)
			stale := sampleRecord(origin)
			stale.Latest.Body = []byte("User-agent: *\nDisallow: /written-by-a-stale-holder\n")
			err := b.Store(ctx(t), origin, l, stale)
			if !errors.Is(err, backend.ErrLeaseLost) {
				t.Fatalf("Store with a lease not held = %v; want an error wrapping ErrLeaseLost", err)
			}
			got := mustLoad(t, b, origin)
			if want == nil {
				if got != nil {
					t.Fatalf("the refused Store wrote a record: %+v", got)
				}
				return
			}
			if diff := Diff(want, got); diff != "" {
				t.Fatalf("the refused Store changed the record: %s", diff)
			}
		})
	}
}

// testStoreExpiredLease: a lease that expired is lost even when nobody
// took it since; the slow holder's Store fails.
func testStoreExpiredLease(t *testing.T, b backend.Backend) {
	origin := "https://expired.example"
	l := mustLease(t, b, origin, expiryTTL)
	// A lower bound only: after twenty lifetimes the lease is over on any
	// backend clock that runs at the speed of ours.
	time.Sleep(20 * expiryTTL)
	err := b.Store(ctx(t), origin, l, sampleRecord(origin))
	if !errors.Is(err, backend.ErrLeaseLost) {
		t.Fatalf("Store with a lease expired long ago = %v; want an error wrapping ErrLeaseLost", err)
	}
	if rec := mustLoad(t, b, origin); rec != nil {
		t.Fatalf("the refused Store wrote a record: %+v", rec)
	}
}

// testStoreNilRecord: storing nil is an error, not a crash, and leaves the
// lease usable.
func testStoreNilRecord(t *testing.T, b backend.Backend) {
	origin := "https://nil.example"
	l := mustLease(t, b, origin, time.Minute)
	if err := b.Store(ctx(t), origin, l, nil); err == nil {
		t.Fatal("Store(nil) succeeded; want an error")
	}
	if rec := mustLoad(t, b, origin); rec != nil {
		t.Fatalf("Store(nil) left a record: %+v", rec)
	}
}
