package pacing

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/robotsext/robotsext/internal/pause"
)

// newFakeBackoff returns a Backoff with a first pause of base, a cap of a
// minute and a wait bound of bound, over a Pacer, both on one paceClock.
func newFakeBackoff(base, bound time.Duration, shadow bool) (*Backoff, *Pacer, *paceClock) {
	pc, clk := newFakePacer(0, nil)
	b := NewBackoff(BackoffConfig{
		Base: base, Max: time.Minute, Wait: bound, ServerErrorRun: 3, Shadow: shadow,
		Clock: Clock{Now: clk.now, Sleep: clk.sleep}, Pacer: pc,
	})
	return b, pc, clk
}

// probedBackoff returns a Backoff (as newFakeBackoff's, a 1 s base) whose
// host h.test answered 503, waited out its pause, and is probed by P.
func probedBackoff(t *testing.T) (*Backoff, *paceClock) {
	t.Helper()
	b, _, clk := newFakeBackoff(time.Second, 5*time.Minute, false)
	b.Answered("A", page("/a"), 503, "")
	if _, refused := b.Admit(context.Background(), "h.test", "P"); refused { // waits the pause, then probes
		t.Fatal("P refused")
	}
	return b, clk
}

// page returns the URL of path on host h.test.
func page(path string) *url.URL { return &url.URL{Scheme: "http", Host: "h.test", Path: path} }

// TestBackoffPauseProbeRecover follows one host through its back-off on
// the hand-moved clock: a 429 pauses it for the base; the next request
// waits the pause out and probes it; a good answer to the probe starts
// the recovery, whose spacing halves with each good answer until the host
// is healthy again and the Backoff keeps nothing.
func TestBackoffPauseProbeRecover(t *testing.T) {
	t.Parallel()
	const base = time.Second
	b, _, clk := newFakeBackoff(base, 5*time.Minute, false)
	ctx := context.Background()
	b.Answered("A", page("/a"), 429, "")
	if c := b.Counts(); c.Pauses[CauseTooManyRequests] != 1 || c.Paused != 1 || !b.Active() {
		t.Fatalf("after a 429: counts %+v, active %v", c, b.Active())
	}
	if p, ok := b.Info("H.test", clk.now()); !ok || p.Phase != pause.Paused || p.Cause != CauseTooManyRequests || !p.Until.Equal(paceAt(1)) {
		t.Fatalf("Info = %+v, %v; want paused by 429 until 1 s", p, ok)
	}
	if b.Wire("X", "h.test") {
		t.Error("a request admitted before the pause went on the wire during it")
	}

	start := clk.now()
	if _, refused := b.Admit(ctx, "h.test", "B"); refused {
		t.Fatal("B refused")
	}
	if waited := clk.now().Sub(start); waited != base {
		t.Errorf("B waited %v, want the pause, %v", waited, base)
	}
	if p, _ := b.Info("h.test", clk.now()); p.Phase != pause.Probing {
		t.Errorf("phase %v after the pause, want probing", p.Phase)
	}
	if c := b.Counts(); c.Probes != 1 || c.Waited != 1 || c.Waiting != 0 {
		t.Errorf("counts %+v: want one probe, one request waited, none waiting", c)
	}

	b.Answered("B", page("/b"), 200, "")
	p, _ := b.Info("h.test", clk.now())
	if p.Phase != pause.Recovering {
		t.Fatalf("phase %v after the probe's good answer, want recovering", p.Phase)
	}
	for i := 0; b.Active(); i++ {
		if i > 10 {
			t.Fatal("the host never became healthy again")
		}
		if _, refused := b.Admit(ctx, "h.test", i); refused {
			t.Fatalf("request %d refused while recovering", i)
		}
		b.Answered(i, page("/r"), 200, "")
	}
	if _, ok := b.Info("h.test", clk.now()); ok || b.Counts().Paused != 0 {
		t.Error("a healthy host still has a state")
	}
}

// TestBackoffProbeWakesWaiters: a request waiting for another's probe
// goes on when the probe is answered, after the recovery's first spacing
// (a quarter of the pause) on the hand-moved clock.
func TestBackoffProbeWakesWaiters(t *testing.T) {
	t.Parallel()
	b, clk := probedBackoff(t)
	ctx := context.Background()
	done := make(chan time.Time)
	go func() {
		if _, refused := b.Admit(ctx, "h.test", "W"); refused {
			t.Error("W refused")
		}
		done <- clk.now()
	}()
	// Wait (briefly, on the real clock) until W waits for the probe.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		b.mu.Lock()
		h := b.hosts["h.test"]
		waiting := h != nil && h.changed != nil
		b.mu.Unlock()
		if waiting {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("W never waited for the probe")
		}
	}
	answered := clk.now()
	b.Answered("P", page("/p"), 200, "")
	if at := <-done; at.Sub(answered) != 250*time.Millisecond {
		t.Errorf("W went %v after the probe's answer, want 250ms (a quarter of the pause)", at.Sub(answered))
	}
}

// TestBackoffRefusedPastWait: a request that would wait longer than the
// bound is refused at once, with the pause's end to try again at.
func TestBackoffRefusedPastWait(t *testing.T) {
	t.Parallel()
	b, _, clk := newFakeBackoff(time.Second, 10*time.Second, false)
	b.Answered("A", page("/a"), 429, " 20 ")
	retryAt, refused := b.Admit(context.Background(), "h.test", "B")
	if !refused || !retryAt.Equal(paceAt(20)) {
		t.Fatalf("Admit = %v, %v; want refused until 20 s", retryAt.Sub(paceEpoch), refused)
	}
	if len(clk.sleeps) != 0 || b.Counts().Refused != 1 {
		t.Errorf("sleeps %v, refused %d: want none and one", clk.sleeps, b.Counts().Refused)
	}
}

// TestBackoffSignals: which answers pause a host, and for how long.
func TestBackoffSignals(t *testing.T) {
	t.Parallel()
	type answer struct {
		path   string
		status int
		ra     string
	}
	tests := []struct {
		name    string
		delay   time.Duration // the host's Crawl-delay
		answers []answer
		cause   Cause         // 0: no pause
		pause   time.Duration // its length
	}{
		{"404s are no signal", 0, []answer{{"/a", 404, ""}, {"/b", 404, ""}, {"/c", 403, ""}}, 0, 0},
		{"one broken URL retried", 0, []answer{{"/x", 500, ""}, {"/x", 500, ""}, {"/x", 500, ""}, {"/x", 500, ""}}, 0, 0},
		{"a run broken by a good answer", 0, []answer{{"/a", 500, ""}, {"/b", 502, ""}, {"/c", 200, ""}, {"/d", 500, ""}}, 0, 0},
		{"a run of 5xx on two URLs", 0, []answer{{"/x", 500, ""}, {"/x", 502, ""}, {"/y", 504, ""}}, CauseServerErrors, time.Second},
		{"503 with Retry-After", 0, []answer{{"/a", 503, "30"}}, CauseUnavailable, 30 * time.Second},
		{"Retry-After capped", 0, []answer{{"/a", 429, "3600"}}, CauseTooManyRequests, time.Minute},
		{"at least the Crawl-delay", 10 * time.Second, []answer{{"/a", 429, ""}}, CauseTooManyRequests, 10 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, pc, clk := newFakeBackoff(time.Second, time.Minute, false)
			if tt.delay > 0 {
				pc.Loaded("h.test", tt.delay, true, paceEpoch)
			}
			for i, a := range tt.answers {
				b.Answered(i, page(a.path), a.status, a.ra)
			}
			p, ok := b.Info("h.test", clk.now())
			if tt.cause == 0 {
				if ok {
					t.Fatalf("paused: %+v", p)
				}
				return
			}
			if !ok || p.Cause != tt.cause || p.Until.Sub(clk.now()) != tt.pause {
				t.Fatalf("Info = %+v, %v; want paused by %v for %v", p, ok, tt.cause, tt.pause)
			}
			if capped := b.Counts().Capped; (capped == 1) != (tt.name == "Retry-After capped") {
				t.Errorf("%d pauses capped", capped)
			}
		})
	}
}

// TestBackoffFailedProbeDoubles: a probe that fails without an answer
// pauses the host again for twice as long.
func TestBackoffFailedProbeDoubles(t *testing.T) {
	t.Parallel()
	b, _, clk := newFakeBackoff(time.Second, time.Minute, false)
	b.Answered("A", page("/a"), 429, "")
	if _, refused := b.Admit(context.Background(), "h.test", "P"); refused {
		t.Fatal("P refused")
	}
	b.Failed("P")
	p, ok := b.Info("h.test", clk.now())
	if !ok || p.Phase != pause.Paused || p.Cause != CauseProbeFailed || p.Until.Sub(clk.now()) != 2*time.Second {
		t.Fatalf("Info = %+v, %v; want paused by a failed probe for 2s", p, ok)
	}
}

// TestBackoffShadow: in shadow mode a pause is counted, but no request
// waits for it, none is refused and none is stopped at the wire.
func TestBackoffShadow(t *testing.T) {
	t.Parallel()
	b, _, clk := newFakeBackoff(time.Second, time.Millisecond, true)
	b.Answered("A", page("/a"), 503, "")
	if b.Counts().Pauses[CauseUnavailable] != 1 {
		t.Fatalf("pause not counted: %+v", b.Counts())
	}
	if _, refused := b.Admit(context.Background(), "h.test", "B"); refused || len(clk.sleeps) != 0 {
		t.Errorf("Admit refused %v, slept %v", refused, clk.sleeps)
	}
	if !b.Wire("B", "h.test") {
		t.Error("stopped at the wire")
	}
}

// TestBackoffUnreachedProbeExpires proves that a probe let go by Admit
// that never reaches the wire (a later OnRequest callback aborted it, and
// Colly says nothing of that) holds its host for pause.ProbeReach beyond
// two delays, not pause.ProbeExpiry: on the hand-moved clock, the next
// request to ask once that passed probes at once. A probe that reached
// the wire (Wire) keeps ProbeExpiry. Before, the host waited 30 s.
func TestBackoffUnreachedProbeExpires(t *testing.T) {
	t.Parallel()
	b, clk := probedBackoff(t)
	ctx := context.Background()
	clk.advance(pause.ProbeReach) // P never reaches the wire
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, refused := b.Admit(ctx, "h.test", "W"); refused {
			t.Error("W refused")
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second): // only a failing run waits: W waits for P's answer
		t.Fatal("W still waits for a probe that never reached the wire")
	}
	if c := b.Counts(); c.Probes != 2 {
		t.Errorf("%d probes counted, want 2 (P, then W)", c.Probes)
	}

	// W reaches the wire: it keeps the probe for ProbeExpiry.
	if !b.Wire("W", "h.test") {
		t.Fatal("the probe W did not go on the wire")
	}
	clk.advance(pause.ProbeReach)
	b.mu.Lock()
	until := b.hosts["h.test"].st.ProbeUntil
	b.mu.Unlock()
	if want := clk.now().Add(pause.ProbeExpiry - pause.ProbeReach); !until.Equal(want) {
		t.Errorf("a probe at the wire expires at %v, want ProbeExpiry after it reached it (%v)", until, want)
	}
}
