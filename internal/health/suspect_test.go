package health

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestSuspicion: the first failed call of a part that was answering is a
// suspicion that a probe sent at once settles, with a second chance when
// it fails. A part that answers keeps
// its hosts on the shared state, logs nothing above Debug and asks no
// worker to keep to its own share; a part that fails the probe too falls
// back, with one Warn naming the call's cause and the probe's. A failure
// within a second of a probe it answered is the part's, without a second
// suspicion; a later one is a new suspicion.
func TestSuspicion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		down       bool          // the part fails the first probe
		again      time.Duration // when the part fails a call again, after the first; 0: it does not
		downAgain  bool          // it fails probes by then
		wantUp     bool          // Up(a.x) at the end
		wantSettle bool          // Settle for the last failure
		wantProbes int
		wantWarns  int
	}{
		{"the node answers: the call's failure alone", false, 0, false, true, true, 1, 0},
		{"the node fails the probe too, and its second chance", true, 0, false, false, false, 2, 1},
		{"a failure within a second of the answer: the part's", false, 500 * time.Millisecond, true, false, false, 1, 1},
		{"a failure a second later: a new suspicion, answered", false, ProbeEvery, false, true, true, 2, 0},
		{"a failure a second later: a new suspicion, the probes fail", false, ProbeEvery, true, false, false, 3, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, p, clk, logs, failed := newTracker(t)
			p.set(func() { p.down["a"] = tt.down })
			err := nodeErr("a")
			tr.Failed(err)
			if tt.again > 0 {
				if !tr.Settle(context.Background(), err) {
					t.Fatal("Settle after an answered probe: false")
				}
				clk.add(tt.again)
				p.set(func() { p.down["a"] = tt.downAgain })
				tr.Failed(err)
			}
			if got := tr.Settle(context.Background(), err); got != tt.wantSettle {
				t.Errorf("Settle = %v, want %v", got, tt.wantSettle)
			}
			if got := tr.Up("a.x"); got != tt.wantUp {
				t.Errorf("Up(a.x) = %v, want %v", got, tt.wantUp)
			}
			if !tr.Up("b.x") {
				t.Error("Up(b.x) = false: another part's hosts fell back")
			}
			if tr.Fallback() == tt.wantUp || tr.Recovering("a.x") == tt.wantUp {
				t.Errorf("Fallback %v, Recovering(a.x) %v; want both %v", tr.Fallback(), tr.Recovering("a.x"), !tt.wantUp)
			}
			if n := len(p.probed); n != tt.wantProbes {
				t.Errorf("%d probes, want %d", n, tt.wantProbes)
			}
			out := logs.String()
			if n := strings.Count(out, "level=WARN"); n != tt.wantWarns {
				t.Errorf("%d warnings, want %d:\n%s", n, tt.wantWarns, out)
			}
			if tt.wantWarns > 0 && !strings.Contains(out, `cause="dial tcp: connection refused"`) {
				t.Errorf("the warning lacks the call's cause:\n%s", out)
			}
			if tt.down && !strings.Contains(out, `probe="connection refused"`) {
				t.Errorf("the warning lacks the probe's error:\n%s", out)
			}
			if want := 1 + min(int(tt.again), 1); *failed != want {
				t.Errorf("%d failures counted, want %d", *failed, want)
			}
		})
	}
}

// TestSettleWaits: a request whose call failed waits in Settle for the
// probe's verdict while the part's hosts stay up for the others, and
// stops waiting when its context ends.
func TestSettleWaits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		cancel bool // the request's context ends before the verdict
		want   bool
	}{
		{"the probe answers", false, true},
		{"the context ends first", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, p, _, _, _ := newTracker(t)
			tr.spawn = nil // probes in goroutines of their own, as in a crawl
			gate := make(chan struct{})
			p.set(func() { p.gate = gate })
			err := nodeErr("a")
			tr.Failed(err)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			got := make(chan bool, 1)
			go func() { got <- tr.Settle(ctx, err) }()
			select {
			case v := <-got:
				t.Fatalf("Settle returned %v before the verdict", v)
			case <-time.After(20 * time.Millisecond): // not a timing assertion: a wrong Settle returns at once
			}
			if !tr.Up("a.x") || tr.Fallback() {
				t.Error("the part's hosts fell back while it was only suspect")
			}
			if tt.cancel {
				cancel()
			} else {
				close(gate)
			}
			if v := <-got; v != tt.want {
				t.Errorf("Settle = %v, want %v", v, tt.want)
			}
			if tt.cancel {
				close(gate)
			}
		})
	}
}

// TestWholeSuspicion: an error of the whole Backend is a suspicion too
// when the Backend can be probed (a Scoper, Probe with scope ""): every
// host stays on the shared state while the probe answers, and the
// fallback begins, with one Warn naming the probe's error, when it fails.
func TestWholeSuspicion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		down      bool
		wantUp    bool
		wantWarns int
	}{
		{"the backend answers", false, true, 0},
		{"the backend fails the probes too", true, false, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, p, _, logs, _ := newTracker(t)
			p.set(func() { p.down[""] = tt.down })
			err := errors.New("i/o timeout")
			tr.Failed(err)
			if got := tr.Settle(context.Background(), err); got != tt.wantUp {
				t.Errorf("Settle = %v, want %v", got, tt.wantUp)
			}
			if tr.Up("a.x") != tt.wantUp || tr.Up("") != tt.wantUp || tr.Fallback() == tt.wantUp {
				t.Errorf("Up(a.x) %v, Up(\"\") %v, Fallback %v; want up: %v", tr.Up("a.x"), tr.Up(""), tr.Fallback(), tt.wantUp)
			}
			out := logs.String()
			if n := strings.Count(out, "level=WARN"); n != tt.wantWarns {
				t.Errorf("%d warnings, want %d:\n%s", n, tt.wantWarns, out)
			}
			if tt.down && !strings.Contains(out, `probe="connection refused"`) {
				t.Errorf("the warning lacks the probe's error:\n%s", out)
			}
		})
	}
}

// TestLateFailuresAfterAnAnswer: calls that were in flight with the one
// that raised a suspicion (one stall of this process times out all of
// them at once) may fail just after the probe answered; within
// lateFailure of the answer they are counted only, for the whole Backend
// as for a part, and nothing falls back. A failure later than that, and
// within ProbeEvery of the answer, is the Backend's (or the part's).
func TestLateFailuresAfterAnAnswer(t *testing.T) {
	t.Parallel()
	for _, scope := range []string{"", "a"} {
		t.Run("scope "+scope, func(t *testing.T) {
			t.Parallel()
			tr, _, clk, logs, _ := newTracker(t)
			err := errors.New("i/o timeout")
			if scope != "" {
				err = nodeErr(scope)
			}
			tr.Failed(err) // the suspicion, cleared by its probe
			if !tr.Settle(context.Background(), err) {
				t.Fatal("Settle after an answered probe: false")
			}
			for range 3 { // its companions, failing a moment later
				clk.add(10 * time.Millisecond)
				tr.Failed(err)
			}
			if !tr.Up("a.x") || tr.Fallback() || !tr.Settle(context.Background(), err) {
				t.Fatalf("after late failures of calls in flight with the first: Up %v, Fallback %v; want up:\n%s", tr.Up("a.x"), tr.Fallback(), logs)
			}
			clk.add(lateFailure)
			tr.Failed(err)
			if tr.Up("a.x") || !tr.Fallback() {
				t.Errorf("a failure %v after the answer: Up %v, Fallback %v; want the fallback", lateFailure+30*time.Millisecond, tr.Up("a.x"), tr.Fallback())
			}
		})
	}
}
