package pacing

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// newFleet returns n Pacers sharing one backend.Memory (b, when not nil,
// wraps it), all on one hand-moved clock, each pacing host at d from a
// robots.txt answered at paceEpoch.
func newFleet(t *testing.T, n int, host string, d time.Duration, wrap func(*backend.Memory) backend.Backend) ([]*Pacer, *paceClock) {
	t.Helper()
	clk := &paceClock{t: paceEpoch}
	m := backend.NewMemory()
	m.Now = clk.now
	var b backend.Backend = m
	if wrap != nil {
		b = wrap(m)
	}
	pcs := make([]*Pacer, n)
	for i := range pcs {
		pcs[i] = New(Config{Rand: noJitter, Clock: Clock{Now: clk.now, Sleep: clk.sleep}, Backend: b, Health: &failures{}})
		pcs[i].Loaded(host, d, true, paceEpoch)
	}
	return pcs, clk
}

// TestGiveBack: a request granted its start in Wait whose host is taken
// while it waits for its LimitRule slot (its grant ran out, and another
// request, of another worker or of its own, started) gives its turn back
// at the gate, at once (ErrTurnTaken), rather than wait there inside its
// slot; it holds no claim then, and a second Gate (it could not be sent
// again) waits as before. A request whose grant is still its own passes
// at once.
func TestGiveBack(t *testing.T) {
	t.Parallel()
	const host, d = "a.example", time.Second
	tests := []struct {
		name    string
		other   int           // the worker of the request that takes the host (-1: none)
		slot    time.Duration // how long the granted request waits for its slot
		wantErr error
	}{
		{"its grant still its own: the gate lets it go", -1, d / 2, nil},
		{"another worker took the host", 1, 3 * d / 2, ErrTurnTaken},
		{"a request of its own worker took the host", 0, 3 * d / 2, ErrTurnTaken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pcs, clk := newFleet(t, 2, host, d, nil)
			ctx := context.Background()
			r1 := new(int)
			if err := pcs[0].Wait(ctx, host, r1); err != nil {
				t.Fatal(err)
			}
			clk.advance(tt.slot)
			r2 := new(int)
			if tt.other >= 0 {
				if err := pcs[tt.other].Wait(ctx, host, r2); err != nil {
					t.Fatal(err)
				}
				if err := pcs[tt.other].Gate(ctx, host, r2, nil); err != nil {
					t.Fatal(err)
				}
			}
			at := clk.now()
			err := pcs[0].Gate(ctx, host, r1, nil)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Gate = %v, want %v", err, tt.wantErr)
			}
			if waited := clk.now().Sub(at); waited != 0 {
				t.Errorf("the granted request waited %v at the gate, inside its slot; want none", waited)
			}
			if err == nil {
				return
			}
			pcs[0].mu.Lock()
			h := pcs[0].hosts[HostKey(host)]
			if h.busy && h.claimant == r1 {
				t.Error("the request that gave its turn back still claims the host")
			}
			pcs[0].mu.Unlock()
			// It could not be sent again: the gate makes it wait now, a
			// delay after the answer to the request that took the host.
			pcs[tt.other].Done(host)
			pcs[tt.other].Ended(ctx, r2)
			answered := clk.now()
			if err := pcs[0].Gate(ctx, host, r1, nil); err != nil {
				t.Fatalf("the second Gate = %v, want nil", err)
			}
			if got := clk.now().Sub(answered); got < d {
				t.Errorf("the second Gate let the request go %v after the answer, want at least the delay (%v)", got, d)
			}
		})
	}
}

// refusing is a Queuer whose ClaimTurn refuses its first n calls.
type refusing struct {
	*backend.Memory
	n int
}

func (r *refusing) ClaimTurn(ctx context.Context, host, token string, delay, ttl time.Duration) (backend.Turn, error) {
	if r.n > 0 {
		r.n--
		return backend.Turn{Wait: 10 * time.Millisecond}, nil
	}
	return r.Memory.ClaimTurn(ctx, host, token, delay, ttl)
}

// TestGiveBackBounded: a Backend that grants starts and then refuses
// their claims cannot send a host's requests round for ever: after
// maxGiveBacks turns given back in a row, the next request waits at the
// gate until the Backend lets it go; a request that passes the gate ends
// the run.
func TestGiveBackBounded(t *testing.T) {
	t.Parallel()
	const host, d = "a.example", time.Second
	ref := &refusing{n: 1000}
	pcs, clk := newFleet(t, 1, host, d, func(m *backend.Memory) backend.Backend { ref.Memory = m; return ref })
	pc, ctx := pcs[0], context.Background()
	for i := range maxGiveBacks + 1 {
		r := new(int)
		if err := pc.Wait(ctx, host, r); err != nil {
			t.Fatal(err)
		}
		err := pc.Gate(ctx, host, r, nil)
		switch {
		case i < maxGiveBacks && !errors.Is(err, ErrTurnTaken):
			t.Fatalf("request %d: Gate = %v, want ErrTurnTaken", i, err)
		case i == maxGiveBacks && err != nil:
			t.Fatalf("request %d: Gate = %v, want it to wait and pass", i, err)
		}
		clk.advance(2 * d)
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if n := pc.hosts[HostKey(host)].givenBack; n != 0 {
		t.Errorf("%d turns given back in a row after a request passed the gate, want 0", n)
	}
}

// TestWaitWaitsForLocalClaim: with a fleet, Wait also waits for what the
// gate checks here first: a request of this worker still unanswered after
// its fleet-wide claim ran out (WireClaim), which the Backend no longer
// holds against the next start. The next request waits in Wait for that
// answer and a delay after it, not at the gate.
func TestWaitWaitsForLocalClaim(t *testing.T) {
	t.Parallel()
	const host, d = "a.example", time.Second
	pcs, clk := newFleet(t, 1, host, d, nil)
	pc, ctx := pcs[0], context.Background()
	clk.advance(d) // a delay after robots.txt
	r1 := new(int)
	if err := pc.Wait(ctx, host, r1); err != nil {
		t.Fatal(err)
	}
	if err := pc.Gate(ctx, host, r1, nil); err != nil {
		t.Fatal(err)
	}
	clk.advance(WireClaim + d) // r1 unanswered; its fleet-wide claim ran out
	done := make(chan error, 1)
	r2 := new(int)
	go func() { done <- pc.Wait(ctx, host, r2) }()
	for waiting := false; !waiting; {
		select {
		case err := <-done:
			t.Fatalf("Wait returned (%v) while the host's request was unanswered here", err)
		default:
		}
		runtime.Gosched()
		pc.mu.Lock()
		waiting = pc.hosts[HostKey(host)].idle != nil
		pc.mu.Unlock()
	}
	answered := clk.now()
	pc.Done(host)
	pc.Ended(ctx, r1)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := clk.now().Sub(answered); got != d {
		t.Errorf("the next request left Wait %v after the answer, want the delay (%v)", got, d)
	}
	at := clk.now()
	if err := pc.Gate(ctx, host, r2, nil); err != nil || !clk.now().Equal(at) {
		t.Errorf("Gate = %v after %v; want nil at once", err, clk.now().Sub(at))
	}
}
