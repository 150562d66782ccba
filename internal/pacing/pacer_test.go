package pacing

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// paceEpoch is the fake clock's zero; at turns seconds after it into a time.
var paceEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func paceAt(sec float64) time.Time { return paceEpoch.Add(paceSecs(sec)) }

func paceSecs(sec float64) time.Duration { return time.Duration(sec * float64(time.Second)) }

func TestEffectiveDelay(t *testing.T) {
	t.Parallel()
	const maxDelay = 60 * time.Second
	tests := []struct {
		name           string
		delay          time.Duration
		ok             bool
		def            time.Duration
		want           time.Duration
		paced, clamped bool
	}{
		{"none, no default", 0, false, 0, 0, false, false},
		{"not ok ignores value", time.Second, false, 0, 0, false, false},
		{"zero", 0, true, 0, 0, false, false},
		{"negative", -time.Second, true, 0, 0, false, false},
		{"fraction", 300 * time.Millisecond, true, 0, 300 * time.Millisecond, true, false},
		{"one second", time.Second, true, 0, time.Second, true, false},
		{"at the cap", maxDelay, true, 0, maxDelay, true, false},
		{"above the cap", maxDelay + 1, true, 0, maxDelay, true, true},
		{"saturated parse", math.MaxInt64, true, 0, maxDelay, true, true},
		{"none: the default", 0, false, time.Second, time.Second, true, false},
		{"not ok: the default, not the value", 5 * time.Second, false, time.Second, time.Second, true, false},
		{"stated lower than the default wins", 300 * time.Millisecond, true, time.Second, 300 * time.Millisecond, true, false},
		{"stated higher than the default wins", 3 * time.Second, true, time.Second, 3 * time.Second, true, false},
		{"stated zero: no pace, whatever the default", 0, true, time.Second, 0, false, false},
		{"default above the cap: capped, not counted as clamped", 0, false, 2 * maxDelay, maxDelay, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, paced, clamped := effectiveDelay(tt.delay, tt.ok, tt.def, maxDelay)
			if d != tt.want || paced != tt.paced || clamped != tt.clamped {
				t.Errorf("effectiveDelay(%v, %v, default %v) = %v, %v, %v; want %v, %v, %v",
					tt.delay, tt.ok, tt.def, d, paced, clamped, tt.want, tt.paced, tt.clamped)
			}
		})
	}
}

// paceStep is one event in a pacer schedule: a robots.txt load (load true) or a
// request arriving at the hook, which must be told to wait exactly wait.
type paceStep struct {
	at    float64 // seconds on the fake clock
	host  string
	load  bool
	delay float64 // load: seconds; ≤ 0 means the file has no delay
	wait  float64 // request: seconds the pacer must ask it to wait
}

func paceLoad(at float64, host string, delay float64) paceStep {
	return paceStep{at: at, host: host, load: true, delay: delay}
}

func paceReq(at float64, host string, wait float64) paceStep {
	return paceStep{at: at, host: host, wait: wait}
}

func TestPacerSchedule(t *testing.T) {
	t.Parallel()
	const a, b = "a.example", "b.example:8080"
	tests := []struct {
		name  string
		max   float64
		steps []paceStep
	}{
		{"unknown host is not paced", 0, []paceStep{
			paceReq(0, a, 0), paceReq(0, a, 0),
		}},
		{"robots.txt request counts toward the pace", 0, []paceStep{
			paceLoad(0, a, 1), paceReq(0.1, a, 0.9),
		}},
		{"first request after the delay goes at once", 0, []paceStep{
			paceLoad(0, a, 1), paceReq(2, a, 0), paceReq(2.5, a, 0.5),
		}},
		{"requests arriving together get consecutive slots", 0, []paceStep{
			paceLoad(0, a, 0.3), paceReq(0, a, 0.3), paceReq(0, a, 0.6), paceReq(0, a, 0.9), paceReq(0.5, a, 0.7),
		}},
		{"Request-rate interval spaces starts, not ends", 0, []paceStep{
			// Request-rate 1/1s as Policy.CrawlDelay reports it: 1 s.
			paceLoad(0, a, 1), paceReq(1, a, 0), paceReq(1.2, a, 0.8), paceReq(2.05, a, 0.95),
		}},
		{"slower user LimitRule: pacer adds nothing (max, not sum)", 0, []paceStep{
			// Colly's rule sleeps 0.5 s after each response (10 ms) before
			// the next request reaches the hook: 0.3+0.01+0.5 = 0.81.
			paceLoad(0, a, 0.3), paceReq(0.3, a, 0), paceReq(0.81, a, 0), paceReq(1.32, a, 0),
		}},
		{"faster user LimitRule: pacer fills up to the delay", 0, []paceStep{
			// Colly's rule sleeps 0.3 s after each 10 ms response.
			paceLoad(0, a, 1), paceReq(1, a, 0), paceReq(1.31, a, 0.69), paceReq(2.31, a, 0.69),
		}},
		{"changed delay on re-fetch takes effect", 0, []paceStep{
			paceLoad(0, a, 1), paceReq(1, a, 0), paceLoad(5, a, 3), paceReq(5.5, a, 2.5), paceReq(8, a, 3),
		}},
		{"shorter delay on re-fetch takes effect", 0, []paceStep{
			paceLoad(0, a, 3), paceReq(3, a, 0), paceLoad(10, a, 1), paceReq(10, a, 1), paceReq(11, a, 1),
		}},
		{"delay removed on re-fetch stops pacing", 0, []paceStep{
			paceLoad(0, a, 1), paceReq(1, a, 0), paceLoad(1.5, a, 0), paceReq(1.5, a, 0), paceReq(1.5, a, 0),
		}},
		{"re-fetch counts toward the pace", 0, []paceStep{
			paceLoad(0, a, 1), paceReq(1, a, 0), paceLoad(1.5, a, 1), paceReq(1.6, a, 0.9),
		}},
		{"re-fetch given a slot by wait is not counted twice", 0, []paceStep{
			paceLoad(0, a, 1), paceReq(1, a, 0), paceReq(1.2, a, 0.8), paceLoad(2, a, 1), paceReq(2, a, 1),
		}},
		{"hosts are paced independently", 0, []paceStep{
			paceLoad(0, a, 1), paceLoad(0, b, 0.2),
			paceReq(0, a, 1), paceReq(0, b, 0.2), paceReq(0, b, 0.4), paceReq(0, a, 2), paceReq(0, b, 0.6),
		}},
		{"ports are different hosts", 0, []paceStep{
			paceLoad(0, "h:8080", 1), paceReq(0, "h:8081", 0), paceReq(0, "h", 0), paceReq(0, "h:8080", 1),
		}},
		{"IPv6 literal with port", 0, []paceStep{
			paceLoad(0, "[::1]:8080", 1), paceReq(0, "[::1]:8080", 1), paceReq(0, "[::1]", 0), paceReq(0, "[::1]:80", 0),
		}},
		{"host names are case-insensitive", 0, []paceStep{
			paceLoad(0, "Example.COM", 1), paceReq(0, "example.com", 1), paceReq(0, "EXAMPLE.com", 2),
		}},
		{"delay above the cap is clamped", 2, []paceStep{
			paceLoad(0, a, 30), paceReq(0, a, 2), paceReq(0, a, 4),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pc := New(Config{Rand: noJitter, MaxDelay: paceSecs(tt.max)})
			for i, s := range tt.steps {
				if s.load {
					pc.Loaded(s.host, paceSecs(s.delay), s.delay > 0, paceAt(s.at))
					continue
				}
				if got, want := pc.reserve(s.host, paceAt(s.at)), paceSecs(s.wait); !nearDuration(got, want) {
					t.Errorf("paceStep %d: request to %s at %vs waits %v, want %v", i, s.host, s.at, got, want)
				}
			}
		})
	}
}

// near reports whether two durations built from float seconds agree to a
// microsecond (float arithmetic in the table may be off by a nanosecond).
func nearDuration(a, b time.Duration) bool { return (a - b).Abs() < time.Microsecond }

// paceClock is a pacer clock that never sleeps: sleep advances it.
type paceClock struct {
	mu     sync.Mutex
	t      time.Time
	sleeps []time.Duration
}

func (c *paceClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *paceClock) sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	c.sleeps = append(c.sleeps, d)
	return nil
}

func (c *paceClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// newFakePacer returns a Pacer capping delays at maxDelay, logging to
// logger, on a paceClock starting at paceEpoch.
// noJitter is the Rand of the tests whose schedules are exact: every
// start and pause gets no jitter.
func noJitter() float64 { return 0 }

func newFakePacer(maxDelay time.Duration, logger *slog.Logger) (*Pacer, *paceClock) {
	clk := &paceClock{t: paceEpoch}
	pc := New(Config{Rand: noJitter, MaxDelay: maxDelay, Logger: logger, Clock: Clock{Now: clk.now, Sleep: clk.sleep}})
	return pc, clk
}

func TestPacerWaitSleepsUntilSlot(t *testing.T) {
	t.Parallel()
	pc, clk := newFakePacer(0, nil)
	pc.Loaded("a.example", 300*time.Millisecond, true, paceEpoch)
	for range 3 {
		if err := pc.Wait(context.Background(), "a.example", nil); err != nil {
			t.Fatal(err)
		}
	}
	want := []time.Duration{300 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond}
	if !slices.Equal(clk.sleeps, want) {
		t.Errorf("sleeps = %v, want %v", clk.sleeps, want)
	}
	if got := clk.now(); !got.Equal(paceAt(0.9)) {
		t.Errorf("clock after three requests = %v, want 0.9 s after the robots.txt request", got.Sub(paceEpoch))
	}
}

func TestPacerWaitCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		load bool
	}{{"paced host", true}, {"unpaced host", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The real clock: with a cancelled context wait must return
			// at once instead of sleeping the hour.
			pc := New(Config{Rand: noJitter, MaxDelay: 2 * time.Hour})
			if tc.load {
				pc.Loaded("a.example", time.Hour, true, time.Now())
			}
			if err := pc.Wait(ctx, "a.example", nil); !errors.Is(err, context.Canceled) {
				t.Errorf("wait = %v, want context.Canceled", err)
			}
		})
	}
}

func TestSleepReal(t *testing.T) {
	t.Parallel()
	if err := SleepReal(context.Background(), 0); err != nil {
		t.Errorf("SleepReal(0) = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := SleepReal(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("SleepReal(cancelled, 1h) = %v, want context.Canceled", err)
	}
}

func TestPacerClampCountedAndLoggedOncePerHost(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(paceLog{&mu, &buf}, nil))
	pc, _ := newFakePacer(2*time.Second, logger)

	pc.Loaded("a.example", time.Hour, true, paceEpoch)
	pc.Loaded("a.example", time.Hour, true, paceAt(10)) // re-fetch: counted, not logged again
	pc.Loaded("b.example", 3*time.Second, true, paceEpoch)
	pc.Loaded("c.example", time.Second, true, paceEpoch) // under the cap
	pc.Loaded("d.example", 0, false, paceEpoch)

	if got := pc.Clamped(); got != 3 {
		t.Errorf("Clamped() = %d, want 3", got)
	}
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	if n := strings.Count(out, "clamped"); n != 2 {
		t.Errorf("logged %d clamp warnings, want 2 (one per host):\n%s", n, out)
	}
	for _, host := range []string{"host=a.example", "host=b.example"} {
		if !strings.Contains(out, host) {
			t.Errorf("log lacks %s:\n%s", host, out)
		}
	}
}

type paceLog struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w paceLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func TestNewPacerDefaultMax(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{0, -time.Second} {
		if got := New(Config{Rand: noJitter, MaxDelay: d}).MaxDelay(); got != DefaultMaxDelay {
			t.Errorf("New(MaxDelay %v).MaxDelay() = %v, want %v", d, got, DefaultMaxDelay)
		}
	}
}

func TestPacerForget(t *testing.T) {
	t.Parallel()
	const a, b, c = "a.example", "b.example", "c.example"
	tests := []struct {
		name string
		run  func(pc *Pacer, clk *paceClock)
		kept []string // hosts still paced at the end
	}{
		{"hosts without a delay take no memory", func(pc *Pacer, clk *paceClock) {
			pc.Loaded(a, time.Second, true, paceEpoch)
			pc.Loaded(b, 0, false, paceEpoch)
		}, []string{a}},
		{"idle entry is dropped at once", func(pc *Pacer, clk *paceClock) {
			pc.Loaded(a, time.Second, true, paceEpoch)
			clk.advance(2 * forgetGrace)
			pc.Forget("A.example")
		}, nil},
		{"fresh entry is spared, then swept", func(pc *Pacer, clk *paceClock) {
			pc.Loaded(a, time.Second, true, paceEpoch)
			pc.Forget(a)
			if d := pc.reserve(a, clk.now()); d != time.Second {
				t.Errorf("spared host waits %v, want 1s", d)
			}
			clk.advance(forgetGrace)
			pc.Loaded(b, time.Second, true, clk.now()) // sweeps
		}, []string{b}},
		{"spared entry loaded again (twin origin) survives the sweep", func(pc *Pacer, clk *paceClock) {
			pc.Loaded(a, time.Second, true, paceEpoch)
			pc.Forget(a)
			pc.Loaded(a, time.Second, true, paceEpoch) // https://a loaded as http://a was evicted
			clk.advance(2 * forgetGrace)
			pc.Loaded(b, time.Second, true, clk.now())
		}, []string{a, b}},
		{"spared entry whose delay is removed", func(pc *Pacer, clk *paceClock) {
			pc.Loaded(a, time.Second, true, paceEpoch)
			pc.Forget(a)
			pc.Forget(a)
			pc.Loaded(a, 0, false, paceEpoch)
			clk.advance(2 * forgetGrace)
			pc.Loaded(c, time.Second, true, clk.now())
		}, []string{c}},
		{"unknown host", func(pc *Pacer, clk *paceClock) {
			pc.Forget(a)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pc, clk := newFakePacer(0, nil)
			tt.run(pc, clk)
			var kept []string
			for _, r := range pc.Rules() {
				kept = append(kept, r.Key)
			}
			if !slices.Equal(kept, tt.kept) {
				t.Errorf("paced hosts = %q, want %q", kept, tt.kept)
			}
			pc.mu.Lock()
			doomed := 0
			for _, h := range pc.hosts {
				if h.forgotten {
					doomed++
				}
			}
			if doomed != pc.doomed {
				t.Errorf("doomed = %d, but %d entries are marked", pc.doomed, doomed)
			}
			pc.mu.Unlock()
			for _, h := range []string{a, b, c} {
				if !slices.Contains(tt.kept, h) {
					if d := pc.reserve(h, clk.now()); d != 0 {
						t.Errorf("dropped host %s waits %v, want 0", h, d)
					}
				}
			}
		})
	}
}

// TestPacerConcurrentSlots has many goroutines ask for slots at the same
// instant: every slot must be distinct and spaced by the delay.
func TestPacerConcurrentSlots(t *testing.T) {
	t.Parallel()
	const n, d = 50, 200 * time.Millisecond
	pc := New(Config{Rand: noJitter})
	pc.Loaded("a.example", d, true, paceEpoch)
	waits := make(chan time.Duration, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { waits <- pc.reserve("a.example", paceEpoch) })
	}
	wg.Wait()
	close(waits)
	seen := make(map[time.Duration]bool)
	for w := range waits {
		if w <= 0 || w%d != 0 || w > n*d || seen[w] {
			t.Errorf("slot %v: not a distinct multiple of %v in (0, %v]", w, d, n*d)
		}
		seen[w] = true
	}
}

// TestPacerRules: Rules lists the paced hosts by key, with their capped
// delays; hosts without a delay are not listed.
func TestPacerRules(t *testing.T) {
	t.Parallel()
	pc := New(Config{Rand: noJitter, MaxDelay: 2 * time.Second})
	pc.Loaded("[::1]:8080", 500*time.Millisecond, true, paceEpoch)
	pc.Loaded("A.B.example.", time.Hour, true, paceEpoch)
	pc.Loaded("none.example", 0, false, paceEpoch)
	want := []Rule{{"[::1]:8080", 500 * time.Millisecond}, {"a.b.example", 2 * time.Second}}
	if got := pc.Rules(); !slices.Equal(got, want) {
		t.Errorf("Rules() = %v, want %v", got, want)
	}
}
