package health

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// clock is a hand-moved clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// parts is a backend.Scoper whose hosts each name their part ("a.x" is
// served by part "a") and whose probes answer as told; each probe is
// reported on probed.
type parts struct {
	backend.Backend
	mu     sync.Mutex
	moved  map[string]string // part a host's part is served by now
	down   map[string]bool
	probed chan string
	gate   chan struct{} // probes wait for it to close; nil: they answer at once
}

func (p *parts) Scope(host string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	s, _, _ := strings.Cut(host, ".")
	if m, ok := p.moved[s]; ok {
		return m
	}
	return s
}

func (p *parts) Probe(_ context.Context, scope string) error {
	p.mu.Lock()
	gate := p.gate
	p.mu.Unlock()
	if gate != nil {
		<-gate
	}
	p.mu.Lock()
	_, moved := p.moved[scope]
	down := p.down[scope] && !moved // a part that serves nothing answers nil
	p.mu.Unlock()
	defer func() { p.probed <- scope }()
	if down {
		return errors.New("connection refused")
	}
	return nil
}

func (p *parts) set(f func()) { p.mu.Lock(); f(); p.mu.Unlock() }

func newTracker(t *testing.T) (*Tracker, *parts, *clock, *bytes.Buffer, *int) {
	t.Helper()
	p := &parts{moved: map[string]string{}, down: map[string]bool{}, probed: make(chan string, 16)}
	clk := &clock{t: time.Unix(1_800_000_000, 0)}
	var logs bytes.Buffer
	var mu sync.Mutex
	failed := new(int)
	tr := New(Config{Backend: p, Now: clk.now, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Failed: func() { mu.Lock(); *failed++; mu.Unlock() }})
	tr.spawn = func(f func()) { f() } // probes answered before Up returns
	return tr, p, clk, &logs, failed
}

func nodeErr(scope string) error {
	return &backend.ScopeError{Scope: scope, Err: errors.New("dial tcp: connection refused")}
}

// TestPartFailsAlone: a part's failure sends its hosts, and only them, to
// the fallback; calls that were waiting on it do not extend it; one probe
// a second asks it; its hosts come back when it answers, or at once when
// another part serves them.
func TestPartFailsAlone(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		back func(p *parts)
		want string // the host that must be up after the probe
	}{
		{"the node answers again", func(p *parts) { p.set(func() { p.down["a"] = false }) }, "a.x"},
		{"a replica serves its hosts", func(p *parts) { p.set(func() { p.moved["a"] = "a2" }) }, "a.x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, p, clk, logs, failed := newTracker(t)
			p.set(func() { p.down["a"] = true })
			tr.Failed(nodeErr("a"))
			if tr.Up("a.x") || !tr.Up("b.x") || !tr.Fallback() || !tr.Recovering("a.x") || tr.Recovering("b.x") {
				t.Fatalf("after a's failure: Up(a.x) %v, Up(b.x) %v, Fallback %v; want false, true, true", tr.Up("a.x"), tr.Up("b.x"), tr.Fallback())
			}
			// A call that was waiting fails late: counted, nothing more.
			clk.add(900 * time.Millisecond)
			tr.Failed(nodeErr("a"))
			clk.add(100 * time.Millisecond)
			tr.Up("a.x") // the probe's turn: one second after the first failure
			if got := <-p.probed; got != "a" {
				t.Fatalf("probed %q; want a", got)
			}
			tr.Up("a.x") // no second probe while the first is answered or within a second
			tt.back(p)
			clk.add(ProbeEvery)
			for i := 0; i < 3 && tr.ndown.Load() > 0; i++ {
				tr.Up("a.x")
				<-p.probed
				clk.add(ProbeEvery)
			}
			if !tr.Up(tt.want) || tr.Fallback() {
				t.Errorf("Up(%s) %v, Fallback %v after the probe; want true, false", tt.want, tr.Up(tt.want), tr.Fallback())
			}
			if *failed != 2 {
				t.Errorf("%d failures counted; want 2", *failed)
			}
			out := logs.String()
			for _, want := range []string{"level=WARN", "node=a", "cause=\"dial tcp: connection refused\"", "probe_every=1s",
				"level=INFO", "failed_calls=2", "fallback_lasted="} {
				if !strings.Contains(out, want) {
					t.Errorf("logs lack %q:\n%s", want, out)
				}
			}
			if n := strings.Count(out, "level=WARN"); n != 1 {
				t.Errorf("%d warnings; want 1:\n%s", n, out)
			}
		})
	}
}

// TestWholeBackend: an error naming no part sends every host to the
// fallback for Cooldown, as a single Redis does; the first Up after it
// logs the end.
func TestWholeBackend(t *testing.T) {
	t.Parallel()
	tr, p, clk, logs, _ := newTracker(t)
	p.set(func() { p.down[""] = true }) // the probe of the whole Backend fails too
	tr.Failed(errors.New("dial tcp: connection refused"))
	if tr.Up("a.x") || tr.Up("") || !tr.Recovering("b.x") {
		t.Fatal("a whole-backend failure left hosts up")
	}
	clk.add(Cooldown + time.Millisecond)
	if !tr.Up("a.x") || !tr.Recovering("a.x") {
		t.Error("not up after the cool-down, or not recovering")
	}
	clk.add(RecoveryShare)
	if tr.Recovering("a.x") {
		t.Error("still recovering after RecoveryShare")
	}
	out := logs.String()
	if !strings.Contains(out, "retry_in=5s") || !strings.Contains(out, "fallback_lasted=5.001s") {
		t.Errorf("logs lack the durations:\n%s", out)
	}
}

// TestZeroTracker: a zero Tracker and one without a Scoper track the
// Backend as a whole.
func TestZeroTracker(t *testing.T) {
	t.Parallel()
	for _, tr := range []*Tracker{{}, New(Config{Logger: slog.New(slog.DiscardHandler)})} {
		if !tr.Up("a.x") || tr.Fallback() {
			t.Error("a fresh Tracker is down")
		}
		tr.cfg.Logger = slog.New(slog.DiscardHandler)
		tr.Failed(nodeErr("a"))
		if tr.Up("b.x") {
			t.Error("a scoped error without a Scoper left other hosts up")
		}
	}
}
