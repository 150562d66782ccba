package redisbackend

import (
	"sync"
	"testing"
	"time"
)

// fakeClock is a clock the test moves by hand.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestBreakerStates walks the breaker through its states step by step.
func TestBreakerStates(t *testing.T) {
	t.Parallel()
	const coolDown = 2 * time.Second
	type step struct {
		advance time.Duration
		record  *outcome // nil: only ask allow
		allow   bool     // what allow must say (asked before record)
		open    bool     // what open must say afterwards
	}
	s, f, n := success, failure, neutral
	tests := []struct {
		name  string
		steps []step
	}{
		{"closed: failures below the threshold", []step{
			{record: &f, allow: true}, {record: &f, allow: true}, {record: &s, allow: true},
			{record: &f, allow: true}, {record: &f, allow: true}, {allow: true},
		}},
		{"opens at three in a row, fails fast, probes after the cool-down", []step{
			{record: &f, allow: true}, {record: &f, allow: true}, {record: &f, allow: true, open: true},
			{allow: false, open: true},
			{advance: coolDown - time.Millisecond, allow: false, open: true},
			{advance: time.Millisecond, record: &s, allow: true},
			{allow: true},
		}},
		{"a failed probe opens it again", []step{
			{record: &f, allow: true}, {record: &f, allow: true}, {record: &f, allow: true, open: true},
			{advance: coolDown, record: &f, allow: true, open: true},
			{advance: coolDown / 2, allow: false, open: true},
			{advance: coolDown / 2, record: &s, allow: true},
		}},
		{"one probe at a time", []step{
			{record: &f, allow: true}, {record: &f, allow: true}, {record: &f, allow: true, open: true},
			{advance: coolDown, allow: true, open: true}, // the probe is out…
			{allow: false, open: true},                   // …so others wait
		}},
		{"a probe the caller cancelled frees the slot", []step{
			{record: &f, allow: true}, {record: &f, allow: true}, {record: &f, allow: true, open: true},
			{advance: coolDown, record: &n, allow: true},
			{record: &s, allow: true},
		}},
		{"a late failure of an earlier call does not extend the cool-down", []step{
			{record: &f, allow: true}, {record: &f, allow: true}, {record: &f, allow: true, open: true},
			{advance: coolDown - time.Millisecond, allow: false, open: true},
			{record: &f, allow: false, open: true}, // recorded without allow: a straggler
			{advance: time.Millisecond, record: &s, allow: true},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
			b := &breaker{failures: 3, coolDown: coolDown, now: clk.now}
			var ticket uint64
			for i, st := range tc.steps {
				clk.advance(st.advance)
				straggler := st.record != nil && !st.allow
				if !straggler {
					var got bool
					if ticket, got = b.allow(); got != st.allow {
						t.Fatalf("step %d: allow = %v; want %v", i, got, st.allow)
					}
				}
				if st.record != nil {
					b.record(*st.record, ticket)
				}
				if got := b.open(); got != st.open {
					t.Fatalf("step %d: open = %v; want %v", i, got, st.open)
				}
			}
		})
	}
}

// TestBreakerConcurrent: the breaker is safe for concurrent use (-race).
func TestBreakerConcurrent(t *testing.T) {
	t.Parallel()
	b := &breaker{failures: 2, coolDown: time.Microsecond, now: time.Now}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 1000 {
				if ticket, ok := b.allow(); ok {
					b.record(outcome((i+j)%3), ticket)
				}
			}
		})
	}
	wg.Wait()
}

// TestBreakerCountsCallsInFlightTogetherAsOne: calls that were in flight
// together and fail together (one stall of the process times out all of
// them at once) count as one failure; the breaker opens only once calls
// sent after each counted failure fail too, as on a real outage, where
// each call sent into the dead Redis fails in its turn.
func TestBreakerCountsCallsInFlightTogetherAsOne(t *testing.T) {
	t.Parallel()
	const failures, inFlight = 3, 20
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	b := &breaker{failures: failures, coolDown: 2 * time.Second, now: clk.now}
	stall := func() {
		tickets := make([]uint64, inFlight)
		for i := range tickets {
			var ok bool
			if tickets[i], ok = b.allow(); !ok {
				t.Fatalf("call %d refused with the breaker closed", i)
			}
		}
		clk.advance(250 * time.Millisecond) // all time out together
		for _, tk := range tickets {
			b.record(failure, tk)
		}
	}
	for round := 1; round < failures; round++ {
		stall()
		if b.open() {
			t.Fatalf("after %d stalls of %d calls in flight, the breaker is open; want them counted as %d failures", round, inFlight, round)
		}
	}
	// A success resets the run: stalls apart are no outage.
	tk, _ := b.allow()
	b.record(success, tk)
	stall()
	stall()
	if b.open() {
		t.Fatal("breaker open after two stalls following a success; want closed")
	}
	// Calls sent one after another, each after the previous failure was
	// recorded, count one each: the third opens it, as before.
	b2 := &breaker{failures: failures, coolDown: 2 * time.Second, now: clk.now}
	for i := range failures {
		tk, ok := b2.allow()
		if !ok {
			t.Fatalf("call %d refused before the threshold", i)
		}
		b2.record(failure, tk)
	}
	if !b2.open() {
		t.Error("breaker closed after three calls in a row failed one after another; want open")
	}
}
