package pacing

import (
	"context"
	"testing"
	"time"
)

// TestPaceFetch checks the Pacer's side of a robots.txt re-fetch on a
// clock that never sleeps: it waits the delay after the host's latest
// start, counts as the latest start itself (so a page behind it waits the
// delay again), does nothing for a host without a delay, and does not wait
// more than a delay for a claim that never ends (a redirect chain waiting
// for this very fetch). That last wait is on the real clock (the claim's
// end is a channel); it is 50 ms.
func TestPaceFetch(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	const d = 50 * time.Millisecond
	pc, clk := newFakePacer(0, nil)
	if err := pc.PaceFetch(ctx, "plain.example"); err != nil || len(clk.sleeps) != 0 {
		t.Fatalf("unpaced host: err %v, sleeps %v", err, clk.sleeps)
	}
	pc.Loaded("a.example", d, true, paceEpoch)
	if err := pc.PaceFetch(ctx, "a.example"); err != nil {
		t.Fatal(err)
	}
	if got := clk.now().Sub(paceEpoch); got != d {
		t.Fatalf("re-fetch went at %v, want %v after the first robots.txt request", got, d)
	}
	tok := new(int)
	if err := pc.Gate(ctx, "a.example", tok, nil); err != nil {
		t.Fatal(err)
	}
	if got := clk.now().Sub(paceEpoch); got != 2*d {
		t.Fatalf("the page behind the re-fetch passed the gate at %v, want %v", got, 2*d)
	}
	// tok claims the host and never ends: without the bound the wait
	// would last maxClaim (2 min), past this context.
	hctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := pc.PaceFetch(hctx, "a.example"); err != nil {
		t.Fatalf("waited for a claim that never ends until the context ended: %v", err)
	}
	if got := clk.now().Sub(paceEpoch); got != 3*d {
		t.Errorf("re-fetch behind the claiming page went at %v, want %v", got, 3*d)
	}
}
