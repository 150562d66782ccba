package robotsext

import (
	"context"
	"errors"
	"net/url"
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
			pc.loaded("h.test", delay, true, clk.now())
			clk.advance(delay) // the first page may go right away
			ctx := context.Background()
			if err := pc.gate(ctx, "h.test", "A", nil); err != nil {
				t.Fatal(err)
			}
			startA := clk.now()
			passed := make(chan time.Time)
			go func() {
				// B waits on A's claim, which only done ends.
				if err := pc.gate(ctx, "h.test", "B", nil); err != nil {
					t.Error(err)
				}
				passed <- clk.now()
			}()
			clk.advance(tt.respond)
			waitHeld(t, pc, "h.test")
			pc.done("h.test") // A's response headers
			startB := <-passed
			if gap := startB.Sub(startA); gap != tt.wantGapB {
				t.Errorf("B passed %v after A, want %v", gap, tt.wantGapB)
			}
		})
	}
}

// waitHeld waits (on the real clock, briefly) until someone waits for the
// host's claim, so that done wakes a waiter rather than an idle host.
func waitHeld(t *testing.T, pc *pacer, host string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		pc.mu.Lock()
		h := pc.hosts[hostKey(host)]
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
	pc.loaded("a.test", time.Second, true, clk.now())
	pc.loaded("b.test", time.Second, true, clk.now())
	clk.advance(time.Second)
	ctx := context.Background()
	first := &url.URL{Scheme: "http", Host: "a.test", Path: "/"}
	if err := pc.gate(ctx, "a.test", "X", first); err != nil {
		t.Fatal(err)
	}
	// a.test answers with a redirect to b.test.
	pc.done("a.test")
	tok := pc.tokenOf(first)
	if tok != "X" {
		t.Fatalf("token of the chain: %v", tok)
	}
	if err := pc.gate(ctx, "b.test", tok, first); err != nil {
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

func claimantOf(pc *pacer, host string) any {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if h := pc.hosts[hostKey(host)]; h != nil && h.busy {
		return h.claimant
	}
	return nil
}

// Waiters are woken when the host's pace is dropped, and give up with
// their context.
func TestGateWaitersWokenAndCancelled(t *testing.T) {
	t.Parallel()
	pc, clk := newFakePacer(0, nil)
	pc.loaded("h.test", time.Second, true, clk.now())
	clk.advance(time.Second)
	if err := pc.gate(context.Background(), "h.test", "A", nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancelled := make(chan error)
	go func() { cancelled <- pc.gate(ctx, "h.test", "B", nil) }()
	waitHeld(t, pc, "h.test")
	cancel()
	if err := <-cancelled; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled waiter: %v", err)
	}

	woken := make(chan error)
	go func() { woken <- pc.gate(context.Background(), "h.test", "C", nil) }()
	waitHeld(t, pc, "h.test")
	pc.loaded("h.test", 0, false, clk.now()) // the host no longer asks for a delay
	if err := <-woken; err != nil {
		t.Errorf("woken waiter: %v", err)
	}
}

// A host without a delay is never claimed, and the gate costs nothing.
func TestGateUnpacedHost(t *testing.T) {
	t.Parallel()
	pc, _ := newFakePacer(0, nil)
	for _, tok := range []string{"A", "B", "C"} {
		if err := pc.gate(context.Background(), "free.test", tok, nil); err != nil {
			t.Fatal(err)
		}
	}
	if claimantOf(pc, "free.test") != nil || pc.ntracked.Load() != 0 {
		t.Error("an unpaced host was claimed or tracked")
	}
}
