package backendtest

// This file checks LeaseRenewer, for backends that implement it.

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// renewer returns b as a LeaseRenewer, or skips t.
func renewer(t *testing.T, b backend.Backend) backend.LeaseRenewer {
	t.Helper()
	r, ok := b.(backend.LeaseRenewer)
	if !ok {
		t.Skip("the backend is not a LeaseRenewer")
	}
	return r
}

// testRenewExtends: a renewed lease outlives its first ttl, and another
// worker is told it runs for about the new ttl.
func testRenewExtends(t *testing.T, b backend.Backend) {
	r := renewer(t, b)
	const origin = "https://renew.example"
	l := mustLease(t, b, origin, 200*time.Millisecond)
	if err := r.Renew(ctx(t), origin, l, time.Hour); err != nil {
		t.Fatalf("Renew of the held lease: %v", err)
	}
	time.Sleep(400 * time.Millisecond) // past the first ttl
	_, ok, wait, err := b.Lease(ctx(t), origin, time.Minute)
	if err != nil || ok {
		t.Fatalf("Lease after Renew = ok %v, %v; want it refused", ok, err)
	}
	if wait < 50*time.Minute || wait > time.Hour {
		t.Errorf("Lease after Renew reports the holder keeps it %v; want about an hour", wait)
	}
	mustStore(t, b, origin, l, sampleRecord(origin)) // the renewed lease still fences Store
}

// testRenewLost: Renew of a lease that is not held (another token, one
// released by Store, one expired, one of another origin) fails with
// ErrLeaseLost and changes nothing.
func testRenewLost(t *testing.T, b backend.Backend) {
	r := renewer(t, b)
	tests := []struct {
		name  string
		setup func(origin string) backend.Lease
	}{
		{"foreign token", func(origin string) backend.Lease {
			mustLease(t, b, origin, time.Minute)
			return backend.Lease{Token: "not-the-holder"}
		}},
		{"released by Store", func(origin string) backend.Lease {
			l := mustLease(t, b, origin, time.Minute)
			mustStore(t, b, origin, l, sampleRecord(origin))
			return l
		}},
		{"expired", func(origin string) backend.Lease {
			l := mustLease(t, b, origin, 50*time.Millisecond)
			time.Sleep(time.Second)
			return l
		}},
		{"another origin's", func(origin string) backend.Lease {
			return mustLease(t, b, origin+".other", time.Minute)
		}},
		{"never taken", func(string) backend.Lease { return backend.Lease{Token: "nobody"} }},
	}
	for _, tc := range tests {
		origin := "https://renew-lost-" + sanitize(tc.name) + ".example"
		l := tc.setup(origin)
		if err := r.Renew(ctx(t), origin, l, time.Hour); !errors.Is(err, backend.ErrLeaseLost) {
			t.Errorf("%s: Renew = %v; want ErrLeaseLost", tc.name, err)
		}
	}
	// The failed Renew of a foreign token left the holder's ttl alone.
	_, _, wait, err := b.Lease(ctx(t), "https://renew-lost-foreign-token.example", time.Minute)
	if err != nil || wait > time.Minute {
		t.Errorf("after a foreign Renew the holder keeps its lease %v (%v); want at most its minute", wait, err)
	}
}

// testRenewCancelled: Renew with a cancelled context fails with its error.
func testRenewCancelled(t *testing.T, b backend.Backend) {
	r := renewer(t, b)
	const origin = "https://renew-cancelled.example"
	l := mustLease(t, b, origin, time.Minute)
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	if err := r.Renew(cancelled, origin, l, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Renew = %v; want context.Canceled", err)
	}
}

// sanitize turns a test name into a host label.
func sanitize(name string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, strings.ToLower(name))
}
