package pause

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const (
	base  = 5 * time.Second
	limit = time.Minute
)

// step is one event of a host's life in TestState.
type step struct {
	at    time.Duration // since t0
	op    string        // "signal", "ask", "answer", "withdraw"
	tok   string
	ra    time.Duration // signal's Retry-After
	wantD time.Duration // signal: pause; ask: wait
	want  bool          // signal: started; ask: probe; answer: healthy
	phase Phase         // after the step
}

func TestState(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		steps []step
	}{
		{"Retry-After honoured, one probe, gradual return", []step{
			{at: 0, op: "signal", ra: 3 * time.Second, wantD: 3 * time.Second, want: true, phase: Paused},
			{at: time.Second, op: "ask", tok: "a", wantD: 2 * time.Second, phase: Paused},
			{at: 3 * time.Second, op: "ask", tok: "a", want: true, phase: Probing},
			{at: 3 * time.Second, op: "ask", tok: "b", wantD: ProbeExpiry, phase: Probing},
			{at: 3*time.Second + 100*time.Millisecond, op: "answer", tok: "a", phase: Recovering},
			// gap = 3s/4 = 750ms from the probe's answer
			{at: 3*time.Second + 200*time.Millisecond, op: "ask", tok: "b", wantD: 650 * time.Millisecond, phase: Recovering},
			{at: 3*time.Second + 850*time.Millisecond, op: "ask", tok: "b", phase: Recovering},
			{at: 3*time.Second + 860*time.Millisecond, op: "ask", tok: "c", wantD: 740 * time.Millisecond, phase: Recovering},
			{at: 4 * time.Second, op: "answer", tok: "b", phase: Recovering}, // 375ms
			{at: 4 * time.Second, op: "answer", tok: "x", phase: Recovering}, // 187ms
			{at: 4 * time.Second, op: "answer", tok: "x", phase: Recovering}, // 93ms
			{at: 4 * time.Second, op: "answer", tok: "x", phase: Recovering}, // 46ms
			{at: 4 * time.Second, op: "answer", tok: "x", phase: Recovering}, // 23ms
			{at: 4 * time.Second, op: "answer", tok: "x", phase: Recovering}, // 11ms
			{at: 4 * time.Second, op: "answer", tok: "x", want: true, phase: Healthy},
			{at: 4 * time.Second, op: "ask", tok: "y", phase: Healthy},
		}},
		{"no Retry-After: base, a failed probe doubles", []step{
			{at: 0, op: "signal", wantD: base, want: true, phase: Paused},
			{at: base, op: "ask", tok: "p", want: true, phase: Probing},
			{at: base + time.Second, op: "signal", wantD: 2 * base, want: true, phase: Paused},
			{at: 3*base + time.Second, op: "ask", tok: "q", want: true, phase: Probing},
			{at: 3*base + 2*time.Second, op: "signal", wantD: 4 * base, want: true, phase: Paused},
		}},
		{"answers to requests sent before the pause start nothing", []step{
			{at: 0, op: "signal", ra: 2 * time.Second, wantD: 2 * time.Second, want: true, phase: Paused},
			{at: 10 * time.Millisecond, op: "signal", ra: 2 * time.Second, wantD: 2 * time.Second, phase: Paused},
			{at: 20 * time.Millisecond, op: "signal", wantD: 1990 * time.Millisecond, phase: Paused},
			{at: 30 * time.Millisecond, op: "answer", tok: "old", phase: Paused},
			{at: 40 * time.Millisecond, op: "signal", ra: 5 * time.Second, wantD: 5 * time.Second, phase: Paused},
		}},
		{"the cap", []step{
			{at: 0, op: "signal", ra: time.Hour, wantD: limit, want: true, phase: Paused},
			{at: limit, op: "ask", tok: "p", want: true, phase: Probing},
			{at: limit, op: "signal", wantD: limit, want: true, phase: Paused},
		}},
		{"a lost probe is replaced after ProbeExpiry", []step{
			{at: 0, op: "signal", ra: time.Second, wantD: time.Second, want: true, phase: Paused},
			{at: time.Second, op: "ask", tok: "lost", want: true, phase: Probing},
			{at: time.Second + ProbeExpiry, op: "ask", tok: "next", want: true, phase: Probing},
			{at: time.Second + ProbeExpiry, op: "answer", tok: "lost", phase: Probing},
			{at: time.Second + ProbeExpiry, op: "answer", tok: "next", phase: Recovering},
		}},
		{"a withdrawn probe doubles nothing; the next to ask probes at once", []step{
			{at: 0, op: "signal", ra: 2 * time.Second, wantD: 2 * time.Second, want: true, phase: Paused},
			{at: 2 * time.Second, op: "ask", tok: "p", want: true, phase: Probing},
			{at: 2 * time.Second, op: "withdraw", tok: "other", phase: Probing},
			{at: 2 * time.Second, op: "ask", tok: "q", wantD: ProbeExpiry, phase: Probing},
			{at: 2 * time.Second, op: "withdraw", tok: "p", want: true, phase: Probing},
			{at: 2 * time.Second, op: "ask", tok: "q", want: true, phase: Probing},
			{at: 2 * time.Second, op: "answer", tok: "q", phase: Recovering},
			{at: 2 * time.Second, op: "withdraw", tok: "q", phase: Recovering},
		}},
		{"a failure while recovering doubles", []step{
			{at: 0, op: "signal", ra: 4 * time.Second, wantD: 4 * time.Second, want: true, phase: Paused},
			{at: 4 * time.Second, op: "ask", tok: "p", want: true, phase: Probing},
			{at: 4 * time.Second, op: "answer", tok: "p", phase: Recovering},
			{at: 5 * time.Second, op: "signal", ra: time.Second, wantD: 8 * time.Second, want: true, phase: Paused},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var s State[string]
			for i, st := range tc.steps {
				now := t0.Add(st.at)
				switch st.op {
				case "signal":
					d, started, _ := s.Signal(now, st.ra, base, limit)
					if d != st.wantD || started != st.want {
						t.Fatalf("step %d: Signal = %v, %v; want %v, %v", i, d, started, st.wantD, st.want)
					}
				case "ask":
					w, probe, _ := s.Ask(now, st.tok)
					if w != st.wantD || probe != st.want {
						t.Fatalf("step %d: Ask(%q) = %v, %v; want %v, %v", i, st.tok, w, probe, st.wantD, st.want)
					}
				case "withdraw":
					if w := s.Withdrawn(st.tok); w != st.want {
						t.Fatalf("step %d: Withdrawn(%q) = %v, want %v", i, st.tok, w, st.want)
					}
				case "answer":
					if h := s.Answered(now, st.tok); h != st.want {
						t.Fatalf("step %d: Answered(%q) = %v, want %v", i, st.tok, h, st.want)
					}
				}
				if s.Phase != st.phase {
					t.Fatalf("step %d: phase %v, want %v", i, s.Phase, st.phase)
				}
			}
		})
	}
}

func TestZeroIsHealthy(t *testing.T) {
	t.Parallel()
	var s State[any]
	if w, probe, _ := s.Ask(t0, nil); w != 0 || probe {
		t.Fatalf("zero State: Ask = %v, %v", w, probe)
	}
	if !s.Answered(t0, nil) {
		t.Fatal("zero State is not healthy")
	}
	if !s.Next(t0).Equal(t0) {
		t.Fatal("zero State: Next is not now")
	}
}

// TestProbeReach proves the probe's two expiries: a probe let go before
// the wire (Reach) that does not ask again by its bound is replaced by
// the next request to ask; once it asks again (at the wire) it has
// ProbeExpiry from then; Reach never lengthens a probe's time, and does
// nothing for a request that is not the probe.
func TestProbeReach(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1_000_000, 0)
	probing := func() *State[string] {
		s := &State[string]{}
		s.Signal(t0, time.Second, time.Second, time.Minute)
		if w, probe, _ := s.Ask(t0.Add(time.Second), "p"); w != 0 || !probe {
			t.Fatalf("the first request after the pause: wait %v, probe %v", w, probe)
		}
		return s
	}
	at := func(d time.Duration) time.Time { return t0.Add(time.Second + d) }

	s := probing()
	s.Reach("p", at(ProbeReach))
	if w, _, onProbe := s.Ask(at(ProbeReach-time.Millisecond), "q"); w != time.Millisecond || !onProbe {
		t.Errorf("before the bound: q waits %v (on the probe %v), want 1ms on the probe", w, onProbe)
	}
	if w, probe, _ := s.Ask(at(ProbeReach), "q"); w != 0 || !probe || s.Probe != "q" {
		t.Errorf("at the bound, unreached: q's wait %v, probe %v, probe now %q; want q to probe", w, probe, s.Probe)
	}

	s = probing()
	s.Reach("p", at(ProbeReach))
	s.Ask(at(time.Second), "p") // the probe reaches the wire
	if want := at(time.Second + ProbeExpiry); !s.ProbeUntil.Equal(want) {
		t.Errorf("a probe at the wire expires at %v, want ProbeExpiry later (%v)", s.ProbeUntil, want)
	}
	if w, probe, _ := s.Ask(at(ProbeReach), "q"); w == 0 || probe {
		t.Error("a probe that reached the wire was replaced at ProbeReach")
	}

	s = probing()
	s.Reach("q", at(ProbeReach))
	s.Reach("p", at(2*ProbeExpiry))
	if want := at(ProbeExpiry); !s.ProbeUntil.Equal(want) {
		t.Errorf("Reach of another request, or later than the expiry, moved it to %v; want %v", s.ProbeUntil, want)
	}
}
