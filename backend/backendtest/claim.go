package backendtest

// This file checks Claimer, the fleet-wide claim of a host from a request's
// wire start to its answer, for backends that implement it. Waits are
// read with a delay of an hour where the contract allows; what has to be
// seen in real time (an Unclaim, an expiry) uses claims of seconds, so that
// a slow machine makes the test slower, never wrong.

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// claimer returns b as a Claimer, or skips t.
func claimer(t *testing.T, b backend.Backend) backend.Claimer {
	t.Helper()
	h, ok := b.(backend.Claimer)
	if !ok {
		t.Skip("the backend is not a Claimer")
	}
	return h
}

// mustClaim calls Claim and fails t on an error or a repair.
func mustClaim(t *testing.T, h backend.Claimer, host, token string, delay, ttl time.Duration) time.Duration {
	t.Helper()
	wait, repaired, err := h.Claim(ctx(t), host, token, delay, ttl)
	if err != nil {
		t.Fatalf("Claim(%q, %q, %v, %v): %v", host, token, delay, ttl, err)
	}
	if repaired {
		t.Errorf("Claim(%q, %q, %v, %v) reports a repair of state the contract wrote itself", host, token, delay, ttl)
	}
	if wait < 0 || wait > delay {
		t.Errorf("Claim(%q, %q, %v, %v) waits %v; want between 0 and the delay", host, token, delay, ttl, wait)
	}
	return wait
}

// mustUnclaim calls Unclaim and fails t on an error.
func mustUnclaim(t *testing.T, h backend.Claimer, host, token string) {
	t.Helper()
	if err := h.Unclaim(ctx(t), host, token); err != nil {
		t.Fatalf("Unclaim(%q, %q): %v", host, token, err)
	}
}

// claimCall is one call of a sequence: a Start (start true) or a Claim,
// and whether it must wait; an Unclaim instead ends token's claim.
type claimCall struct {
	token   string
	start   bool
	unclaim bool
	wait    bool
}

// testClaimSequence: with a delay of an hour, whether each call of a
// sequence is granted at once or waits.
func testClaimSequence(t *testing.T, b backend.Backend) {
	h := claimer(t, b)
	tests := []struct {
		name  string
		calls []claimCall
	}{
		{"fresh host", []claimCall{{token: "a"}}},
		{"another token waits for the claim", []claimCall{{token: "a"}, {token: "b", wait: true}}},
		{"a booking waits for the claimed start", []claimCall{{token: "a"}, {token: "b", start: true, wait: true}}},
		{"the owner of a booking claims at once", []claimCall{{token: "a", start: true}, {token: "a"}, {token: "b", wait: true}}},
		{"another token waits for a booking", []claimCall{{token: "a", start: true}, {token: "b", wait: true}}},
		{"after an Unclaim the delay runs from it", []claimCall{{token: "a"}, {token: "a", unclaim: true}, {token: "b", wait: true}, {token: "a", wait: true}}},
		{"a stranger's Unclaim changes nothing", []claimCall{{token: "a"}, {token: "b", unclaim: true}, {token: "b", wait: true}}},
	}
	for _, tc := range tests {
		host := "claim-" + tc.name + ".example"
		for i, c := range tc.calls {
			var w time.Duration
			switch {
			case c.unclaim:
				mustUnclaim(t, h, host, c.token)
				continue
			case c.start:
				w = mustStart(t, h, host, c.token, paceDelay)
			default:
				w = mustClaim(t, h, host, c.token, paceDelay, paceDelay)
			}
			if c.wait != (w > 0) {
				t.Errorf("%s: call %d (%q) waits %v; want a wait: %v", tc.name, i, c.token, w, c.wait)
			}
		}
	}
}

// testClaimUntilUnclaim: a claim outlasts the delay until it is unclaimed;
// after the Unclaim the next token waits about the delay, then is
// granted. Seen in real time with a short delay and a long claim.
func testClaimUntilUnclaim(t *testing.T, b backend.Backend) {
	h := claimer(t, b)
	const host, delay, ttl = "unclaim.example", 50 * time.Millisecond, 30 * time.Second
	mustClaim(t, h, host, "a", delay, ttl)
	time.Sleep(3 * delay)
	if w := mustClaim(t, h, host, "b", delay, ttl); w == 0 {
		t.Fatal("Claim granted a second token while the first one's claim was in force, its delay long past")
	}
	mustUnclaim(t, h, host, "b") // not b's to unclaim
	if w := mustClaim(t, h, host, "b", delay, ttl); w == 0 {
		t.Fatal("Unclaim by a token that claims nothing ended the claim")
	}
	mustUnclaim(t, h, host, "a")
	pollClaim(t, h, host, "b", delay, ttl)
	if w := mustClaim(t, h, host, "c", delay, ttl); w == 0 {
		t.Error("Claim granted a third token at once after the second was granted")
	}
}

// testClaimExpires: a claim that is never unclaimed stops mattering once
// it expires.
func testClaimExpires(t *testing.T, b backend.Backend) {
	h := claimer(t, b)
	const host, delay, ttl = "expiry.example", 20 * time.Millisecond, 2 * time.Second
	mustClaim(t, h, host, "a", delay, ttl)
	if w := mustClaim(t, h, host, "b", delay, ttl); w == 0 {
		t.Fatal("Claim granted a second token while the first one's claim was in force")
	}
	pollClaim(t, h, host, "b", delay, ttl)
}

// testClaimBrokenExpiry: a claim expiring further ahead than any caller's
// claim (here: one taken with a day, asked about with a second) cannot be
// right; it is dropped and reported as a repair.
func testClaimBrokenExpiry(t *testing.T, b backend.Backend) {
	h := claimer(t, b)
	const host, delay = "broken-claim.example", 10 * time.Millisecond
	mustClaim(t, h, host, "a", delay, 24*time.Hour)
	time.Sleep(2 * delay)
	w, repaired, err := h.Claim(ctx(t), host, "b", delay, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if w != 0 || !repaired {
		t.Errorf("Claim past a claim expiring a day ahead = (%v, repaired %v); want it granted and repaired", w, repaired)
	}
}

// pollClaim asks Claim for token until it is granted, for at most a
// minute.
func pollClaim(t *testing.T, h backend.Claimer, host, token string, delay, ttl time.Duration) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		w := mustClaim(t, h, host, token, delay, ttl)
		if w == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Claim(%q, %q) still waits %v after a minute", host, token, w)
		}
		time.Sleep(w)
	}
}

// testClaimConcurrent: of many tokens asking to claim a fresh host at once,
// exactly one is granted.
func testClaimConcurrent(t *testing.T, b backend.Backend) {
	h := claimer(t, b)
	onlyOneGranted(t, "Claim", func(i int) (time.Duration, error) {
		w, _, err := h.Claim(ctx(t), "crowd-claim.example", fmt.Sprintf("token-%d", i), paceDelay, paceDelay)
		return w, err
	})
}

// testClaimOddCalls: a delay of 0 is never claimed back, an Unclaim of a
// host or token never seen is no error, and a cancelled context fails
// both calls with its error.
func testClaimOddCalls(t *testing.T, b backend.Backend) {
	h := claimer(t, b)
	mustClaim(t, h, "zero.example", "a", paceDelay, paceDelay)
	if w := mustClaim(t, h, "zero.example", "z", 0, paceDelay); w != 0 {
		t.Errorf("Claim with delay 0 waits %v; want 0", w)
	}
	mustUnclaim(t, h, "never-seen.example", "a")
	mustUnclaim(t, h, "zero.example", "never-seen")
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := h.Claim(cancelled, "cancelled-claim.example", "a", paceDelay, paceDelay); !errors.Is(err, context.Canceled) {
		t.Errorf("Claim = %v; want context.Canceled", err)
	}
	if err := h.Unclaim(cancelled, "zero.example", "a"); !errors.Is(err, context.Canceled) {
		t.Errorf("Unclaim = %v; want context.Canceled", err)
	}
	if w := mustClaim(t, h, "cancelled-claim.example", "b", paceDelay, paceDelay); w != 0 {
		t.Errorf("the cancelled Claim recorded a claim: the next waits %v", w)
	}
}
