package robotsext

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// epoch is the fake clock's zero; at turns seconds after it into a time.
var epoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func at(sec float64) time.Time { return epoch.Add(secs(sec)) }

func secs(sec float64) time.Duration { return time.Duration(sec * float64(time.Second)) }

func TestEffectiveDelay(t *testing.T) {
	t.Parallel()
	const maxDelay = 60 * time.Second
	tests := []struct {
		name           string
		delay          time.Duration
		ok             bool
		want           time.Duration
		paced, clamped bool
	}{
		{"none", 0, false, 0, false, false},
		{"not ok ignores value", time.Second, false, 0, false, false},
		{"zero", 0, true, 0, false, false},
		{"negative", -time.Second, true, 0, false, false},
		{"fraction", 300 * time.Millisecond, true, 300 * time.Millisecond, true, false},
		{"one second", time.Second, true, time.Second, true, false},
		{"at the cap", maxDelay, true, maxDelay, true, false},
		{"above the cap", maxDelay + 1, true, maxDelay, true, true},
		{"saturated parse", math.MaxInt64, true, maxDelay, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, paced, clamped := effectiveDelay(tt.delay, tt.ok, maxDelay)
			if d != tt.want || paced != tt.paced || clamped != tt.clamped {
				t.Errorf("effectiveDelay(%v, %v) = %v, %v, %v; want %v, %v, %v",
					tt.delay, tt.ok, d, paced, clamped, tt.want, tt.paced, tt.clamped)
			}
		})
	}
}

// step is one event in a pacer schedule: a robots.txt load (load true) or a
// request arriving at the hook, which must be told to wait exactly wait.
type step struct {
	at    float64 // seconds on the fake clock
	host  string
	load  bool
	delay float64 // load: seconds; ≤ 0 means the file has no delay
	wait  float64 // request: seconds the pacer must ask it to wait
}

func load(at float64, host string, delay float64) step {
	return step{at: at, host: host, load: true, delay: delay}
}

func req(at float64, host string, wait float64) step {
	return step{at: at, host: host, wait: wait}
}

func TestPacerSchedule(t *testing.T) {
	t.Parallel()
	const a, b = "a.example", "b.example:8080"
	tests := []struct {
		name  string
		max   float64
		steps []step
	}{
		{"unknown host is not paced", 0, []step{
			req(0, a, 0), req(0, a, 0),
		}},
		{"robots.txt request counts toward the pace", 0, []step{
			load(0, a, 1), req(0.1, a, 0.9),
		}},
		{"first request after the delay goes at once", 0, []step{
			load(0, a, 1), req(2, a, 0), req(2.5, a, 0.5),
		}},
		{"requests arriving together get consecutive slots", 0, []step{
			load(0, a, 0.3), req(0, a, 0.3), req(0, a, 0.6), req(0, a, 0.9), req(0.5, a, 0.7),
		}},
		{"Request-rate interval spaces starts, not ends", 0, []step{
			// Request-rate 1/1s as Policy.CrawlDelay reports it: 1 s.
			load(0, a, 1), req(1, a, 0), req(1.2, a, 0.8), req(2.05, a, 0.95),
		}},
		{"slower user LimitRule: pacer adds nothing (max, not sum)", 0, []step{
			// Colly's rule sleeps 0.5 s after each response (10 ms) before
			// the next request reaches the hook: 0.3+0.01+0.5 = 0.81.
			load(0, a, 0.3), req(0.3, a, 0), req(0.81, a, 0), req(1.32, a, 0),
		}},
		{"faster user LimitRule: pacer fills up to the delay", 0, []step{
			// Colly's rule sleeps 0.3 s after each 10 ms response.
			load(0, a, 1), req(1, a, 0), req(1.31, a, 0.69), req(2.31, a, 0.69),
		}},
		{"changed delay on re-fetch takes effect", 0, []step{
			load(0, a, 1), req(1, a, 0), load(5, a, 3), req(5.5, a, 2.5), req(8, a, 3),
		}},
		{"shorter delay on re-fetch takes effect", 0, []step{
			load(0, a, 3), req(3, a, 0), load(10, a, 1), req(10, a, 1), req(11, a, 1),
		}},
		{"delay removed on re-fetch stops pacing", 0, []step{
			load(0, a, 1), req(1, a, 0), load(1.5, a, 0), req(1.5, a, 0), req(1.5, a, 0),
		}},
		{"re-fetch counts toward the pace", 0, []step{
			load(0, a, 1), req(1, a, 0), load(1.5, a, 1), req(1.6, a, 0.9),
		}},
		{"re-fetch given a slot by wait is not counted twice", 0, []step{
			load(0, a, 1), req(1, a, 0), req(1.2, a, 0.8), load(2, a, 1), req(2, a, 1),
		}},
		{"hosts are paced independently", 0, []step{
			load(0, a, 1), load(0, b, 0.2),
			req(0, a, 1), req(0, b, 0.2), req(0, b, 0.4), req(0, a, 2), req(0, b, 0.6),
		}},
		{"ports are different hosts", 0, []step{
			load(0, "h:8080", 1), req(0, "h:8081", 0), req(0, "h", 0), req(0, "h:8080", 1),
		}},
		{"IPv6 literal with port", 0, []step{
			load(0, "[::1]:8080", 1), req(0, "[::1]:8080", 1), req(0, "[::1]", 0), req(0, "[::1]:80", 0),
		}},
		{"host names are case-insensitive", 0, []step{
			load(0, "Example.COM", 1), req(0, "example.com", 1), req(0, "EXAMPLE.com", 2),
		}},
		{"delay above the cap is clamped", 2, []step{
			load(0, a, 30), req(0, a, 2), req(0, a, 4),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pc := newPacer(secs(tt.max), nil)
			for i, s := range tt.steps {
				if s.load {
					pc.loaded(s.host, secs(s.delay), s.delay > 0, at(s.at))
					continue
				}
				if got, want := pc.reserve(s.host, at(s.at)), secs(s.wait); !near(got, want) {
					t.Errorf("step %d: request to %s at %vs waits %v, want %v", i, s.host, s.at, got, want)
				}
			}
		})
	}
}

// near reports whether two durations built from float seconds agree to a
// microsecond (float arithmetic in the table may be off by a nanosecond).
func near(a, b time.Duration) bool { return (a - b).Abs() < time.Microsecond }

// fakeClock is a pacer clock that never sleeps: sleep advances it.
type fakeClock struct {
	mu     sync.Mutex
	t      time.Time
	sleeps []time.Duration
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	c.sleeps = append(c.sleeps, d)
	return nil
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newFakePacer(maxDelay time.Duration, logger *slog.Logger) (*pacer, *fakeClock) {
	clk := &fakeClock{t: epoch}
	pc := newPacer(maxDelay, logger)
	pc.now, pc.sleep = clk.now, clk.sleep
	return pc, clk
}

func TestPacerWaitSleepsUntilSlot(t *testing.T) {
	t.Parallel()
	pc, clk := newFakePacer(0, nil)
	pc.loaded("a.example", 300*time.Millisecond, true, epoch)
	for range 3 {
		if err := pc.wait(context.Background(), "a.example"); err != nil {
			t.Fatal(err)
		}
	}
	want := []time.Duration{300 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond}
	if !slices.Equal(clk.sleeps, want) {
		t.Errorf("sleeps = %v, want %v", clk.sleeps, want)
	}
	if got := clk.now(); !got.Equal(at(0.9)) {
		t.Errorf("clock after three requests = %v, want 0.9 s after the robots.txt request", got.Sub(epoch))
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
			pc := newPacer(2*time.Hour, nil)
			if tc.load {
				pc.loaded("a.example", time.Hour, true, time.Now())
			}
			if err := pc.wait(ctx, "a.example"); !errors.Is(err, context.Canceled) {
				t.Errorf("wait = %v, want context.Canceled", err)
			}
		})
	}
}

func TestSleepCtx(t *testing.T) {
	t.Parallel()
	if err := sleepCtx(context.Background(), 0); err != nil {
		t.Errorf("sleepCtx(0) = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sleepCtx(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("sleepCtx(cancelled, 1h) = %v, want context.Canceled", err)
	}
}

func TestPacerClampCountedAndLoggedOncePerHost(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&mu, &buf}, nil))
	pc, _ := newFakePacer(2*time.Second, logger)

	pc.loaded("a.example", time.Hour, true, epoch)
	pc.loaded("a.example", time.Hour, true, at(10)) // re-fetch: counted, not logged again
	pc.loaded("b.example", 3*time.Second, true, epoch)
	pc.loaded("c.example", time.Second, true, epoch) // under the cap
	pc.loaded("d.example", 0, false, epoch)

	if got := pc.clamped(); got != 3 {
		t.Errorf("clamped() = %d, want 3", got)
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

type lockedWriter struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func TestNewPacerDefaultMax(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{0, -time.Second} {
		if got := newPacer(d, nil).max; got != defaultMaxCrawlDelay {
			t.Errorf("newPacer(%v).max = %v, want %v", d, got, defaultMaxCrawlDelay)
		}
	}
}

func TestPacerForget(t *testing.T) {
	t.Parallel()
	const a, b, c = "a.example", "b.example", "c.example"
	tests := []struct {
		name string
		run  func(pc *pacer, clk *fakeClock)
		kept []string // hosts still paced at the end
	}{
		{"hosts without a delay take no memory", func(pc *pacer, clk *fakeClock) {
			pc.loaded(a, time.Second, true, epoch)
			pc.loaded(b, 0, false, epoch)
		}, []string{a}},
		{"idle entry is dropped at once", func(pc *pacer, clk *fakeClock) {
			pc.loaded(a, time.Second, true, epoch)
			clk.advance(2 * forgetGrace)
			pc.forget("A.example")
		}, nil},
		{"fresh entry is spared, then swept", func(pc *pacer, clk *fakeClock) {
			pc.loaded(a, time.Second, true, epoch)
			pc.forget(a)
			if d := pc.reserve(a, clk.now()); d != time.Second {
				t.Errorf("spared host waits %v, want 1s", d)
			}
			clk.advance(forgetGrace)
			pc.loaded(b, time.Second, true, clk.now()) // sweeps
		}, []string{b}},
		{"spared entry loaded again (twin origin) survives the sweep", func(pc *pacer, clk *fakeClock) {
			pc.loaded(a, time.Second, true, epoch)
			pc.forget(a)
			pc.loaded(a, time.Second, true, epoch) // https://a loaded as http://a was evicted
			clk.advance(2 * forgetGrace)
			pc.loaded(b, time.Second, true, clk.now())
		}, []string{a, b}},
		{"spared entry whose delay is removed", func(pc *pacer, clk *fakeClock) {
			pc.loaded(a, time.Second, true, epoch)
			pc.forget(a)
			pc.forget(a)
			pc.loaded(a, 0, false, epoch)
			clk.advance(2 * forgetGrace)
			pc.loaded(c, time.Second, true, clk.now())
		}, []string{c}},
		{"unknown host", func(pc *pacer, clk *fakeClock) {
			pc.forget(a)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pc, clk := newFakePacer(0, nil)
			tt.run(pc, clk)
			var kept []string
			for _, r := range pc.rules() {
				kept = append(kept, strings.TrimSuffix(strings.TrimPrefix(r.DomainRegexp, `(?i)^`), `$`))
			}
			var want []string
			for _, h := range tt.kept {
				want = append(want, regexp.QuoteMeta(h))
			}
			if !slices.Equal(kept, want) {
				t.Errorf("paced hosts = %q, want %q", kept, want)
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
	pc := newPacer(0, nil)
	pc.loaded("a.example", d, true, epoch)
	waits := make(chan time.Duration, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { waits <- pc.reserve("a.example", epoch) })
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

func TestPacerRules(t *testing.T) {
	t.Parallel()
	pc := newPacer(2*time.Second, nil)
	pc.loaded("[::1]:8080", 500*time.Millisecond, true, epoch)
	pc.loaded("a.b.example", time.Hour, true, epoch)
	pc.loaded("none.example", 0, false, epoch)

	rs := pc.rules()
	if len(rs) != 2 {
		t.Fatalf("rules() = %d rules, want 2: %+v", len(rs), rs)
	}
	tests := []struct {
		rule    int
		delay   time.Duration
		match   []string
		noMatch []string
	}{
		{0, 500 * time.Millisecond,
			[]string{"[::1]:8080"},
			[]string{"[::1]:80800", "x[::1]:8080", "[::1]", "::1:8080", "[::2]:8080"}},
		{1, 2 * time.Second, // clamped
			[]string{"a.b.example", "A.B.EXAMPLE"},
			[]string{"aXb.example", "a.b.example:8080", "x.a.b.example", "a.b.examples"}},
	}
	for _, tt := range tests {
		r := rs[tt.rule]
		if r.Delay != tt.delay || r.Parallelism != 1 || r.DomainGlob != "" {
			t.Errorf("rule %d = %+v, want Delay %v, Parallelism 1, no glob", tt.rule, r, tt.delay)
		}
		if err := r.Init(); err != nil {
			t.Fatalf("rule %d (%q) does not initialise: %v", tt.rule, r.DomainRegexp, err)
		}
		for _, h := range tt.match {
			if !r.Match(h) {
				t.Errorf("rule %q does not match %q", r.DomainRegexp, h)
			}
		}
		for _, h := range tt.noMatch {
			if r.Match(h) {
				t.Errorf("rule %q matches %q", r.DomainRegexp, h)
			}
		}
	}
}
