package backendtest

// This file checks Holder, the fleet-wide hold of a host from a request's
// wire start to its answer, for backends that implement it. Waits are
// read with a delay of an hour where the contract allows; what has to be
// seen in real time (a release, an expiry) uses holds of seconds, so that
// a slow machine makes the test slower, never wrong.

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// holder returns b as a Holder, or skips t.
func holder(t *testing.T, b backend.Backend) backend.Holder {
	t.Helper()
	h, ok := b.(backend.Holder)
	if !ok {
		t.Skip("the backend is not a Holder")
	}
	return h
}

// mustHold calls Hold and fails t on an error or a repair.
func mustHold(t *testing.T, h backend.Holder, host, token string, delay, hold time.Duration) time.Duration {
	t.Helper()
	wait, repaired, err := h.Hold(ctx(t), host, token, delay, hold)
	if err != nil {
		t.Fatalf("Hold(%q, %q, %v, %v): %v", host, token, delay, hold, err)
	}
	if repaired {
		t.Errorf("Hold(%q, %q, %v, %v) reports a repair of state the contract wrote itself", host, token, delay, hold)
	}
	if wait < 0 || wait > delay {
		t.Errorf("Hold(%q, %q, %v, %v) waits %v; want between 0 and the delay", host, token, delay, hold, wait)
	}
	return wait
}

// mustRelease calls Release and fails t on an error.
func mustRelease(t *testing.T, h backend.Holder, host, token string) {
	t.Helper()
	if err := h.Release(ctx(t), host, token); err != nil {
		t.Fatalf("Release(%q, %q): %v", host, token, err)
	}
}

// holdCall is one call of a sequence: a Start (start true) or a Hold,
// and whether it must wait; a release instead ends token's hold.
type holdCall struct {
	token   string
	start   bool
	release bool
	wait    bool
}

// testHoldSequence: with a delay of an hour, whether each call of a
// sequence is granted at once or waits.
func testHoldSequence(t *testing.T, b backend.Backend) {
	h := holder(t, b)
	tests := []struct {
		name  string
		calls []holdCall
	}{
		{"fresh host", []holdCall{{token: "a"}}},
		{"another token waits for the hold", []holdCall{{token: "a"}, {token: "b", wait: true}}},
		{"a booking waits for the held start", []holdCall{{token: "a"}, {token: "b", start: true, wait: true}}},
		{"the owner of a booking holds at once", []holdCall{{token: "a", start: true}, {token: "a"}, {token: "b", wait: true}}},
		{"another token waits for a booking", []holdCall{{token: "a", start: true}, {token: "b", wait: true}}},
		{"after a release the delay runs from it", []holdCall{{token: "a"}, {token: "a", release: true}, {token: "b", wait: true}, {token: "a", wait: true}}},
		{"a stranger's release changes nothing", []holdCall{{token: "a"}, {token: "b", release: true}, {token: "b", wait: true}}},
	}
	for _, tc := range tests {
		host := "hold-" + tc.name + ".example"
		for i, c := range tc.calls {
			var w time.Duration
			switch {
			case c.release:
				mustRelease(t, h, host, c.token)
				continue
			case c.start:
				w = mustStart(t, h, host, c.token, paceDelay)
			default:
				w = mustHold(t, h, host, c.token, paceDelay, paceDelay)
			}
			if c.wait != (w > 0) {
				t.Errorf("%s: call %d (%q) waits %v; want a wait: %v", tc.name, i, c.token, w, c.wait)
			}
		}
	}
}

// testHoldUntilRelease: a hold outlasts the delay until it is released;
// after the release the next token waits about the delay, then is
// granted. Seen in real time with a short delay and a long hold.
func testHoldUntilRelease(t *testing.T, b backend.Backend) {
	h := holder(t, b)
	const host, delay, hold = "release.example", 50 * time.Millisecond, 30 * time.Second
	mustHold(t, h, host, "a", delay, hold)
	time.Sleep(3 * delay)
	if w := mustHold(t, h, host, "b", delay, hold); w == 0 {
		t.Fatal("Hold granted a second token while the first one's hold was in force, its delay long past")
	}
	mustRelease(t, h, host, "b") // not b's to release
	if w := mustHold(t, h, host, "b", delay, hold); w == 0 {
		t.Fatal("Release by a token that holds nothing ended the hold")
	}
	mustRelease(t, h, host, "a")
	pollHold(t, h, host, "b", delay, hold)
	if w := mustHold(t, h, host, "c", delay, hold); w == 0 {
		t.Error("Hold granted a third token at once after the second was granted")
	}
}

// testHoldExpires: a hold that is never released stops mattering once
// it expires.
func testHoldExpires(t *testing.T, b backend.Backend) {
	h := holder(t, b)
	const host, delay, hold = "expiry.example", 20 * time.Millisecond, 2 * time.Second
	mustHold(t, h, host, "a", delay, hold)
	if w := mustHold(t, h, host, "b", delay, hold); w == 0 {
		t.Fatal("Hold granted a second token while the first one's hold was in force")
	}
	pollHold(t, h, host, "b", delay, hold)
}

// testHoldBrokenExpiry: a hold expiring further ahead than any caller's
// hold (here: one taken with a day, asked about with a second) cannot be
// right; it is dropped and reported as a repair.
func testHoldBrokenExpiry(t *testing.T, b backend.Backend) {
	h := holder(t, b)
	const host, delay = "broken-hold.example", 10 * time.Millisecond
	mustHold(t, h, host, "a", delay, 24*time.Hour)
	time.Sleep(2 * delay)
	w, repaired, err := h.Hold(ctx(t), host, "b", delay, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if w != 0 || !repaired {
		t.Errorf("Hold past a hold expiring a day ahead = (%v, repaired %v); want it granted and repaired", w, repaired)
	}
}

// pollHold asks Hold for token until it is granted, for at most a
// minute.
func pollHold(t *testing.T, h backend.Holder, host, token string, delay, hold time.Duration) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		w := mustHold(t, h, host, token, delay, hold)
		if w == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Hold(%q, %q) still waits %v after a minute", host, token, w)
		}
		time.Sleep(w)
	}
}

// testHoldConcurrent: of many tokens asking to hold a fresh host at once,
// exactly one is granted.
func testHoldConcurrent(t *testing.T, b backend.Backend) {
	h := holder(t, b)
	onlyOneGranted(t, "Hold", func(i int) (time.Duration, error) {
		w, _, err := h.Hold(ctx(t), "crowd-hold.example", fmt.Sprintf("token-%d", i), paceDelay, paceDelay)
		return w, err
	})
}

// testHoldOddCalls: a delay of 0 is never held back, a release of a
// host or token never seen is no error, and a cancelled context fails
// both calls with its error.
func testHoldOddCalls(t *testing.T, b backend.Backend) {
	h := holder(t, b)
	mustHold(t, h, "zero.example", "a", paceDelay, paceDelay)
	if w := mustHold(t, h, "zero.example", "z", 0, paceDelay); w != 0 {
		t.Errorf("Hold with delay 0 waits %v; want 0", w)
	}
	mustRelease(t, h, "never-seen.example", "a")
	mustRelease(t, h, "zero.example", "never-seen")
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := h.Hold(cancelled, "cancelled-hold.example", "a", paceDelay, paceDelay); !errors.Is(err, context.Canceled) {
		t.Errorf("Hold = %v; want context.Canceled", err)
	}
	if err := h.Release(cancelled, "zero.example", "a"); !errors.Is(err, context.Canceled) {
		t.Errorf("Release = %v; want context.Canceled", err)
	}
	if w := mustHold(t, h, "cancelled-hold.example", "b", paceDelay, paceDelay); w != 0 {
		t.Errorf("the cancelled Hold recorded a hold: the next waits %v", w)
	}
}
