package pacing

import (
	"context"
	"errors"
	"net/url"
	"sync"
	"testing"
	"time"
)

// The gate's rules on the injected clock: a host is claimed by one request
// from the gate to its response headers, and the next passes no earlier
// than the delay after them and after the previous start.
func TestGateClaimAndUnclaim(t *testing.T) {
	t.Parallel()
	const delay = time.Second
	tests := []struct {
		name     string
		respond  time.Duration // A's response headers come this long after A passed
		wantGapB time.Duration // B passes this long after A
	}{
		{"fast response: its headers plus the delay", 100 * time.Millisecond, 1100 * time.Millisecond},
		{"slow response: its headers plus the delay", 3 * time.Second, 4 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pc, clk := newFakePacer(0, nil)
			pc.Loaded("h.test", delay, true, clk.now())
			clk.advance(delay) // the first page may go right away
			ctx := context.Background()
			if err := pc.Gate(ctx, "h.test", "A", nil); err != nil {
				t.Fatal(err)
			}
			startA := clk.now()
			passed := make(chan time.Time)
			go func() {
				// B waits on A's claim, which only done ends.
				if err := pc.Gate(ctx, "h.test", "B", nil); err != nil {
					t.Error(err)
				}
				passed <- clk.now()
			}()
			clk.advance(tt.respond)
			waitForWaiter(t, pc, "h.test")
			pc.Done("h.test") // A's response headers
			startB := <-passed
			if gap := startB.Sub(startA); gap != tt.wantGapB {
				t.Errorf("B passed %v after A, want %v", gap, tt.wantGapB)
			}
		})
	}
}

// waitForWaiter waits (on the real clock, briefly) until someone waits
// for the host's claim, so that Done wakes a waiter rather than an idle
// host.
func waitForWaiter(t *testing.T, pc *Pacer, host string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		pc.mu.Lock()
		h := pc.hosts[HostKey(host)]
		waiting := h != nil && h.idle != nil
		pc.mu.Unlock()
		if waiting {
			return
		}
	}
	t.Fatal("nobody waited for the claim")
}

// A redirect hop keeps its chain's token: the original request's claim on
// one host moves to the hop's host, and ending the request ends it.
func TestGateHopTransfersTheClaim(t *testing.T) {
	t.Parallel()
	pc, clk := newFakePacer(0, nil)
	pc.Loaded("a.test", time.Second, true, clk.now())
	pc.Loaded("b.test", time.Second, true, clk.now())
	clk.advance(time.Second)
	ctx := context.Background()
	first := &url.URL{Scheme: "http", Host: "a.test", Path: "/"}
	if err := pc.Gate(ctx, "a.test", "X", first); err != nil {
		t.Fatal(err)
	}
	// a.test answers with a redirect to b.test.
	pc.Done("a.test")
	tok := pc.TokenOf(first)
	if tok != "X" {
		t.Fatalf("token of the chain: %v", tok)
	}
	if err := pc.Gate(ctx, "b.test", tok, first); err != nil {
		t.Fatal(err)
	}
	if by := claimantOf(pc, "b.test"); by != "X" {
		t.Fatalf("b.test claimed by %v, want X", by)
	}
	pc.doneToken("X") // the request failed after the hop
	if by := claimantOf(pc, "b.test"); by != nil {
		t.Errorf("b.test still claimed by %v", by)
	}
	pc.mu.Lock()
	n := len(pc.claims) + len(pc.reqs) + len(pc.byURL)
	pc.mu.Unlock()
	if n != 0 || pc.ntracked.Load() != 0 {
		t.Errorf("%d entries left in the claim maps", n)
	}
}

func claimantOf(pc *Pacer, host string) any {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if h := pc.hosts[HostKey(host)]; h != nil && h.busy {
		return h.claimant
	}
	return nil
}

// Waiters are woken when the host's pace is dropped, and give up with
// their context.
func TestGateWaitersWokenAndCancelled(t *testing.T) {
	t.Parallel()
	pc, clk := newFakePacer(0, nil)
	pc.Loaded("h.test", time.Second, true, clk.now())
	clk.advance(time.Second)
	if err := pc.Gate(context.Background(), "h.test", "A", nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan error)
	go func() { cancelled <- pc.Gate(ctx, "h.test", "B", nil) }()
	waitForWaiter(t, pc, "h.test")
	cancel()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled waiter: %v", err)
	}

	woken := make(chan error)
	go func() { woken <- pc.Gate(context.Background(), "h.test", "C", nil) }()
	waitForWaiter(t, pc, "h.test")
	pc.Loaded("h.test", 0, false, clk.now()) // the host no longer asks for a delay
	if err := <-woken; err != nil {
		t.Errorf("woken waiter: %v", err)
	}
}

// A host without a delay is never claimed, and the gate costs nothing.
func TestGateUnpacedHost(t *testing.T) {
	t.Parallel()
	pc, _ := newFakePacer(0, nil)
	for _, tok := range []string{"A", "B", "C"} {
		if err := pc.Gate(context.Background(), "free.test", tok, nil); err != nil {
			t.Fatal(err)
		}
	}
	if claimantOf(pc, "free.test") != nil || pc.ntracked.Load() != 0 {
		t.Error("an unpaced host was claimed or tracked")
	}
}

// overClock is a hand-moved clock whose sleeps advance it by the time
// asked plus an oversleep, as a loaded machine wakes a timer late.
type overClock struct {
	mu        sync.Mutex
	t         time.Time
	oversleep []time.Duration // consumed one per sleep; then 0
}

func (c *overClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *overClock) sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var over time.Duration
	if len(c.oversleep) > 0 {
		over, c.oversleep = c.oversleep[0], c.oversleep[1:]
	}
	c.t = c.t.Add(d + over)
	return nil
}

// TestIssue9GateCountsActualStart is the deterministic form of the short
// server-side gaps the end-to-end tests see under load: the wire gate
// records the start it planned, before sleeping, as the host's latest
// start, so a request whose gate sleep overran (a timer woken late on a
// loaded machine) leaves later than recorded, and the next request,
// spaced from the planned start, follows it by less than the Crawl-delay.
func TestIssue9GateCountsActualStart(t *testing.T) {
	t.Parallel()
	const delay = 100 * time.Millisecond
	clk := &overClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	pc := New(Config{Rand: noJitter, Clock: Clock{Now: clk.now, Sleep: clk.sleep}})
	t0 := clk.now()
	pc.Loaded("host.example", delay, true, t0) // the robots.txt request at t0

	// Request A reaches the gate at once; its sleep overruns by 20 ms.
	clk.oversleep = []time.Duration{20 * time.Millisecond}
	if err := pc.Gate(context.Background(), "host.example", "A", nil); err != nil {
		t.Fatal(err)
	}
	startA := clk.now()
	// A's response headers come 5 ms later; request B reaches the gate
	// 50 ms after A; its sleep is punctual.
	clk.mu.Lock()
	clk.t = clk.t.Add(5 * time.Millisecond)
	clk.mu.Unlock()
	pc.Done("host.example")
	clk.mu.Lock()
	clk.t = clk.t.Add(45 * time.Millisecond)
	clk.mu.Unlock()
	if err := pc.Gate(context.Background(), "host.example", "B", nil); err != nil {
		t.Fatal(err)
	}
	startB := clk.now()
	if gap := startB.Sub(startA); gap < delay {
		t.Errorf("B left the gate %v after A, want at least the Crawl-delay %v", gap, delay)
	}
}
