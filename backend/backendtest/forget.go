package backendtest

// This file checks Forgetter, the fleet-wide purge, for backends that
// implement it.

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// forgetter returns b as a Forgetter, or skips t.
func forgetter(t *testing.T, b backend.Backend) backend.Forgetter {
	t.Helper()
	f, ok := b.(backend.Forgetter)
	if !ok {
		t.Skip("the backend is not a Forgetter")
	}
	return f
}

// purges calls Purges and fails t on an error.
func purges(t *testing.T, f backend.Forgetter, cursor string) ([]string, string, bool) {
	t.Helper()
	origins, next, all, err := f.Purges(ctx(t), cursor)
	if err != nil {
		t.Fatalf("Purges(%q): %v", cursor, err)
	}
	if next == "" {
		t.Fatalf("Purges(%q) returned an empty cursor", cursor)
	}
	return origins, next, all
}

// testForgetDrops: Forget deletes the record and any lease, and the log
// reports the origin once to a reader holding an earlier cursor.
func testForgetDrops(t *testing.T, b backend.Backend) {
	f := forgetter(t, b)
	const origin, other = "https://forget.example", "https://kept.example"
	for _, o := range []string{origin, other} {
		mustStore(t, b, o, mustLease(t, b, o, time.Minute), sampleRecord(o))
	}
	mustLease(t, b, origin, time.Hour) // a fetcher of the old rules
	_, cursor, all := purges(t, f, "")
	if all {
		t.Errorf(`Purges("") reports all; it asks only for the cursor`)
	}
	if err := f.Forget(ctx(t), origin); err != nil {
		t.Fatalf("Forget: %v", err)
	}
	if rec := mustLoad(t, b, origin); rec != nil {
		t.Errorf("Load after Forget = %+v; want nil", rec)
	}
	if rec := mustLoad(t, b, other); rec == nil {
		t.Errorf("Forget of %s dropped %s too", origin, other)
	}
	mustLease(t, b, origin, time.Minute) // Forget released the lease

	got, next, all := purges(t, f, cursor)
	if all || !slices.Equal(got, []string{origin}) {
		t.Errorf("Purges(cursor before Forget) = %q, all %v; want [%s], false", got, all, origin)
	}
	if got, _, all := purges(t, f, next); all || len(got) != 0 {
		t.Errorf("Purges(latest cursor) = %q, all %v; want nothing", got, all)
	}
	if got, _, all := purges(t, f, cursor); all || !slices.Equal(got, []string{origin}) {
		t.Errorf("Purges(the same earlier cursor again) = %q, all %v; want [%s] again", got, all, origin)
	}
}

// testForgetOrder: purges come back in the order they were logged, each
// reader from its own cursor, and forgetting an unknown origin is logged
// too (a worker may hold a near-cached copy of it).
func testForgetOrder(t *testing.T, b backend.Backend) {
	f := forgetter(t, b)
	_, c0, _ := purges(t, f, "")
	origins := []string{"https://a.example", "http://b.example:8080", "https://[::1]:8443", "https://a.example"}
	var c2 string
	for i, o := range origins {
		if err := f.Forget(ctx(t), o); err != nil {
			t.Fatalf("Forget(%q): %v", o, err)
		}
		if i == 1 {
			_, c2, _ = purges(t, f, "")
		}
	}
	if got, _, all := purges(t, f, c0); all || !slices.Equal(got, origins) {
		t.Errorf("Purges from the start = %q, all %v; want %q", got, all, origins)
	}
	if got, _, all := purges(t, f, c2); all || !slices.Equal(got, origins[2:]) {
		t.Errorf("Purges from the middle = %q, all %v; want %q", got, all, origins[2:])
	}
}

// testPurgesUnknownCursor: a cursor the backend never gave out (garbage,
// or one from a log since reset) asks the reader to drop everything.
func testPurgesUnknownCursor(t *testing.T, b backend.Backend) {
	f := forgetter(t, b)
	for _, cursor := range []string{"not a cursor", "99999999999999999999", "-1"} {
		_, _, all := purges(t, f, cursor)
		if !all {
			t.Errorf("Purges(%q) = all false; want true for a cursor never given out", cursor)
		}
	}
}

// testForgetCancelled: Forget and Purges with a cancelled context fail
// with its error; the cancelled Forget deletes nothing.
func testForgetCancelled(t *testing.T, b backend.Backend) {
	f := forgetter(t, b)
	const origin = "https://forget-cancelled.example"
	mustStore(t, b, origin, mustLease(t, b, origin, time.Minute), sampleRecord(origin))
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	if err := f.Forget(cancelled, origin); !errors.Is(err, context.Canceled) {
		t.Errorf("Forget = %v; want context.Canceled", err)
	}
	if _, _, _, err := f.Purges(cancelled, ""); !errors.Is(err, context.Canceled) {
		t.Errorf("Purges = %v; want context.Canceled", err)
	}
	if rec := mustLoad(t, b, origin); rec == nil {
		t.Errorf("the cancelled Forget deleted the record")
	}
}
