package backendtest

// This file checks Starter, the pace taken at each request's start, for
// backends that implement it. As with Reserve, the checks read the waits
// Start returns with a delay of an hour, never the wall clock.

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// starter returns b as a Starter, or skips t.
func starter(t *testing.T, b backend.Backend) backend.Starter {
	t.Helper()
	s, ok := b.(backend.Starter)
	if !ok {
		t.Skip("the backend is not a Starter")
	}
	return s
}

// mustStart calls Start and fails t on an error or a repair (the checks
// below never write broken state).
func mustStart(t *testing.T, s backend.Starter, host, token string, delay time.Duration) time.Duration {
	t.Helper()
	wait, repaired, err := s.Start(ctx(t), host, token, delay)
	if err != nil {
		t.Fatalf("Start(%q, %q, %v): %v", host, token, delay, err)
	}
	if repaired {
		t.Errorf("Start(%q, %q, %v) reports a repair of state the contract wrote itself", host, token, delay)
	}
	return wait
}

// startCall is one Start of a sequence and what it must answer: wait
// true is a wait of about the delay, false a grant at once.
type startCall struct {
	token string
	delay time.Duration
	wait  bool
}

// testStartSequence: a fresh host is granted at once; another token then
// waits the delay (less the time the calls took); the owner's token
// confirms at once and moves the start to now; a delay of 0 grants at
// once and records a start that the next token waits for.
func testStartSequence(t *testing.T, b backend.Backend) {
	s := starter(t, b)
	tests := []struct {
		name  string
		calls []startCall
	}{
		{"fresh host", []startCall{{"a", paceDelay, false}}},
		{"second token waits", []startCall{{"a", paceDelay, false}, {"b", paceDelay, true}, {"b", paceDelay, true}}},
		{"the owner confirms", []startCall{{"a", paceDelay, false}, {"a", paceDelay, false}, {"a", paceDelay, false}, {"b", paceDelay, true}}},
		{"zero delay records a start", []startCall{{"z", 0, false}, {"b", paceDelay, true}}},
		{"zero delay never waits", []startCall{{"a", paceDelay, false}, {"z", 0, false}, {"z2", 0, false}, {"b", paceDelay, true}}},
	}
	for _, tc := range tests {
		host := "start-" + tc.name + ".example"
		begin := time.Now()
		for i, c := range tc.calls {
			w := mustStart(t, s, host, c.token, c.delay)
			slack := time.Since(begin)
			switch {
			case !c.wait && w != 0:
				t.Errorf("%s: call %d (%q, %v) waits %v; want it granted", tc.name, i, c.token, c.delay, w)
			case c.wait && (w > c.delay || w < c.delay-slack):
				t.Errorf("%s: call %d (%q, %v) waits %v; want %v less at most %v", tc.name, i, c.token, c.delay, w, c.delay, slack)
			}
		}
	}
}

// testStartHostsIndependent: a start on one host holds no other back, a
// port makes another host, and names differ by case only as the caller
// spells them (the Extension lower-cases them first).
func testStartHostsIndependent(t *testing.T, b backend.Backend) {
	s := starter(t, b)
	mustStart(t, s, "one.example", "a", paceDelay)
	for _, host := range []string{"two.example", "one.example:8443", "[::1]:8080", "sub.one.example"} {
		if w := mustStart(t, s, host, "b", paceDelay); w != 0 {
			t.Errorf("Start(%q) after a start on one.example waits %v; want 0", host, w)
		}
	}
}

// testStartConcurrent: of many tokens asking for a fresh host at once,
// exactly one is granted.
func testStartConcurrent(t *testing.T, b backend.Backend) {
	s := starter(t, b)
	onlyOneGranted(t, "Start", func(i int) (time.Duration, error) {
		w, _, err := s.Start(ctx(t), "crowd.example", fmt.Sprintf("token-%d", i), paceDelay)
		return w, err
	})
}

// onlyOneGranted makes 32 calls of call at once (each with its own i)
// and fails t unless exactly one is granted (waits 0).
func onlyOneGranted(t *testing.T, what string, call func(i int) (time.Duration, error)) {
	t.Helper()
	const n = 32
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		granted int
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := call(i)
			if err != nil {
				t.Errorf("%s #%d: %v", what, i, err)
				return
			}
			if w == 0 {
				mu.Lock()
				granted++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if granted != 1 {
		t.Errorf("%d of %d concurrent %ss granted; want exactly 1", granted, n, what)
	}
}

// testStartAfterDelay: once the delay has passed, the next token is
// granted. It has to be observed in real time: a short delay, polled.
func testStartAfterDelay(t *testing.T, b backend.Backend) {
	s := starter(t, b)
	const delay = 50 * time.Millisecond
	mustStart(t, s, "later.example", "a", delay)
	deadline := time.Now().Add(5 * time.Second)
	for {
		w := mustStart(t, s, "later.example", "b", delay)
		if w == 0 {
			return
		}
		if w > delay {
			t.Fatalf("Start waits %v; want at most the delay %v", w, delay)
		}
		if time.Now().After(deadline) {
			t.Fatalf("Start still waits %v five seconds after a start with delay %v", w, delay)
		}
		time.Sleep(w)
	}
}

// testStartCancelled: Start with a cancelled context fails with its error
// and records nothing.
func testStartCancelled(t *testing.T, b backend.Backend) {
	s := starter(t, b)
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := s.Start(cancelled, "cancelled-start.example", "a", paceDelay); !errors.Is(err, context.Canceled) {
		t.Errorf("Start = %v; want context.Canceled", err)
	}
	if w := mustStart(t, s, "cancelled-start.example", "b", paceDelay); w != 0 {
		t.Errorf("the cancelled Start recorded a start: the next waits %v", w)
	}
}
