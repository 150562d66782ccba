package pacing

import (
	"context"
	"testing"
	"time"
)

// TestAdaptiveDelay follows one host's adaptive delay on the hand-moved
// clock: the first answer sets it to latency / target, each later one
// moves it halfway there, an error never shortens it, the Crawl-delay is
// its floor and MaxDelay its cap; Wait spaces the starts by it.
func TestAdaptiveDelay(t *testing.T) {
	t.Parallel()
	pc, clk := newFakePacer(3*time.Second, nil)
	a := NewAdaptive(2, Clock{Now: clk.now, Sleep: clk.sleep}, pc)
	if !a.On() || NewAdaptive(0, Clock{}, pc).On() {
		t.Fatal("On: want on for target 2, off for 0")
	}
	ctx := context.Background()
	// answer makes one request to h.test answered after latency, and
	// returns the delay then.
	answer := func(latency time.Duration, failed bool) time.Duration {
		t.Helper()
		if err := a.Wait(ctx, "h.test"); err != nil {
			t.Fatal(err)
		}
		a.Sent("r")
		clk.advance(latency)
		a.Answered("r", "h.test", failed)
		return a.Delay("H.test")
	}
	steps := []struct {
		name    string
		latency time.Duration
		failed  bool
		want    time.Duration
	}{
		{"first answer: latency / target", 400 * time.Millisecond, false, 200 * time.Millisecond},
		{"halfway to a slower latency", 1200 * time.Millisecond, false, 400 * time.Millisecond},
		{"a fast error never shortens it", 0, true, 400 * time.Millisecond},
		{"a slow error lengthens it", 2 * time.Second, true, 700 * time.Millisecond},
		{"capped by MaxDelay", time.Minute, false, 3 * time.Second},
	}
	for _, s := range steps {
		if got := answer(s.latency, s.failed); got != s.want {
			t.Fatalf("%s: delay %v, want %v", s.name, got, s.want)
		}
	}
	pc.Loaded("h.test", 3500*time.Millisecond, true, clk.now()) // clamped to the cap
	if got := answer(0, false); got != 3*time.Second {
		t.Errorf("with a Crawl-delay at the cap: delay %v, want 3s", got)
	}

	// Wait spaces the next starts by the delay.
	clk.advance(time.Minute)
	start := clk.now()
	for range 3 {
		if err := a.Wait(ctx, "h.test"); err != nil {
			t.Fatal(err)
		}
	}
	if got := clk.now().Sub(start); got != 6*time.Second {
		t.Errorf("three starts took %v, want two delays (6s)", got)
	}
}

// TestAdaptiveFloor: the host's Crawl-delay is the least delay kept.
func TestAdaptiveFloor(t *testing.T) {
	t.Parallel()
	pc, clk := newFakePacer(0, nil)
	pc.Loaded("h.test", 2*time.Second, true, clk.now())
	a := NewAdaptive(1, Clock{Now: clk.now, Sleep: clk.sleep}, pc)
	if err := a.Wait(context.Background(), "h.test"); err != nil {
		t.Fatal(err)
	}
	a.Sent("r")
	clk.advance(50 * time.Millisecond)
	a.Answered("r", "h.test", false)
	if got := a.Delay("h.test"); got != 2*time.Second {
		t.Errorf("delay %v, want the Crawl-delay, 2s", got)
	}
	a.Answered("unsent", "h.test", false) // an answer to a request never sent changes nothing
	if got := a.Delay("h.test"); got != 2*time.Second {
		t.Errorf("delay %v after an unknown answer, want 2s", got)
	}
}
