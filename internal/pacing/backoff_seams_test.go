package pacing

import (
	"context"
	"testing"
	"time"

	"github.com/robotsext/robotsext/internal/pause"
)

// TestBackoffSeams follows, on the hand-moved clock, what the crawl's
// seams with Colly ask of a Backoff: a probe withdrawn because the
// crawler's context ended doubles nothing and hands the probe on; an
// ended context is never made the probe; a request waiting in its slot
// takes the probe from one that has not reached the wire; and a request
// admitted before the pause asks for its start at the wire while the host
// recovers, so that the return stays gradual.
func TestBackoffSeams(t *testing.T) {
	t.Parallel()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	cases := []struct {
		name string
		run  func(t *testing.T, b *Backoff, clk *paceClock)
	}{
		{"a withdrawn probe doubles nothing and hands the probe on", func(t *testing.T, b *Backoff, clk *paceClock) {
			if _, refused := b.Admit(context.Background(), "h.test", "P"); refused {
				t.Fatal("P refused")
			}
			b.Withdrawn("P")
			p, _ := b.Info("h.test", clk.now())
			if p.Phase != pause.Probing || b.Counts().Pauses[CauseProbeFailed] != 0 {
				t.Fatalf("after the withdrawn probe: %+v, %d probe_failed; want probing, none", p, b.Counts().Pauses[CauseProbeFailed])
			}
			start := clk.now()
			if _, refused := b.Admit(context.Background(), "h.test", "Q"); refused || clk.now() != start {
				t.Fatalf("Q: refused %v after %v, want the probe at once", refused, clk.now().Sub(start))
			}
			if !b.Wire("Q", "h.test") {
				t.Error("the new probe was stopped at the wire")
			}
		}},
		{"an ended context is never the probe", func(t *testing.T, b *Backoff, clk *paceClock) {
			clk.sleep(context.Background(), time.Second) // the pause is over
			if _, refused := b.Admit(cancelled, "h.test", "dead"); refused {
				t.Fatal("the cancelled request was refused, want it let go to fail")
			}
			if c := b.Counts(); c.Probes != 0 {
				t.Fatalf("%d probes after a cancelled request, want none", c.Probes)
			}
			if _, refused := b.Admit(context.Background(), "h.test", "live"); refused || b.Counts().Probes != 1 {
				t.Fatalf("the next request: refused %v, %d probes; want it to probe", refused, b.Counts().Probes)
			}
		}},
		{"a request in its slot takes the probe from one not on the wire", func(t *testing.T, b *Backoff, clk *paceClock) {
			if _, refused := b.Admit(context.Background(), "h.test", "early"); refused {
				t.Fatal("early refused")
			}
			start := clk.now()
			if _, refused := b.AdmitAtWire(context.Background(), "h.test", "slot"); refused || clk.now() != start {
				t.Fatalf("slot: refused %v after %v, want the probe at once", refused, clk.now().Sub(start))
			}
			if b.Wire("early", "h.test") {
				t.Error("the request the probe was taken from went on the wire")
			}
			if !b.Wire("slot", "h.test") {
				t.Error("the probe in its slot was stopped at the wire")
			}
		}},
		{"a request admitted before the pause waits for the recovery's spacing at the wire", func(t *testing.T, b *Backoff, clk *paceClock) {
			if _, refused := b.Admit(context.Background(), "h.test", "P"); refused {
				t.Fatal("P refused")
			}
			if !b.Wire("P", "h.test") {
				t.Fatal("the probe was stopped at the wire")
			}
			b.Answered("P", page("/p"), 200, "")
			if b.Wire("before", "h.test") {
				t.Error("a request admitted before the pause went on the wire at once while recovering")
			}
			if _, refused := b.Admit(context.Background(), "h.test", "after"); refused {
				t.Fatal("after refused")
			}
			for range 2 { // asked again after the gate, it still goes
				if !b.Wire("after", "h.test") {
					t.Error("a request Admit let through while recovering was stopped at the wire")
				}
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, _, clk := newFakeBackoff(time.Second, 5*time.Minute, false)
			b.Answered("A", page("/a"), 429, "")
			tc.run(t, b, clk)
		})
	}
}
