package pacing

import (
	"context"
	"testing"
	"time"
)

// fixedRand returns a Rand that always draws u.
func fixedRand(u float64) func() float64 { return func() float64 { return u } }

// TestDefaultDelay: a host whose robots.txt states no delay is paced by
// Config.Default, and reported so; a stated delay replaces it, lower or
// higher, a stated 0 unpaces the host, and a Default of 0 paces nothing.
func TestDefaultDelay(t *testing.T) {
	t.Parallel()
	clk := &paceClock{t: paceEpoch}
	pc := New(Config{Default: time.Second, Rand: noJitter, Clock: Clock{Now: clk.now, Sleep: clk.sleep}})
	steps := []struct {
		name    string
		delay   time.Duration
		ok      bool
		want    time.Duration
		byDflt  bool
		unpaced bool
	}{
		{"states nothing: the default", 0, false, time.Second, true, false},
		{"states a lower delay", 300 * time.Millisecond, true, 300 * time.Millisecond, false, false},
		{"states a higher delay", 3 * time.Second, true, 3 * time.Second, false, false},
		{"states nothing again", 0, false, time.Second, true, false},
		{"states 0: no pace", 0, true, 0, false, true},
	}
	for _, st := range steps {
		pc.Loaded("a.example", st.delay, st.ok, clk.now())
		info, paced := pc.Info("a.example")
		if paced == st.unpaced || info.Delay != st.want || info.Default != st.byDflt {
			t.Errorf("%s: Info = %+v, %v; want delay %v, default %v, paced %v", st.name, info, paced, st.want, st.byDflt, !st.unpaced)
		}
	}
	off := New(Config{Rand: noJitter})
	off.Loaded("a.example", 0, false, paceEpoch)
	if off.Paced() || off.Default() != 0 {
		t.Errorf("Default 0: Paced %v, Default %v; want nothing paced", off.Paced(), off.Default())
	}
	capped := New(Config{Default: time.Hour, MaxDelay: time.Minute, Rand: noJitter})
	capped.Loaded("a.example", 0, false, paceEpoch)
	if d := capped.Delay("a.example"); d != time.Minute || capped.Clamped() != 0 {
		t.Errorf("Default above MaxDelay: delay %v, clamped %d; want the cap, not counted as a clamped Crawl-delay", d, capped.Clamped())
	}
}

// TestJitterBounds: each start booked gets a random extra of up to a
// tenth of the delay, never less than the delay; a Rand out of range adds
// nothing. The hand-moved clock and a fixed Rand make the waits exact.
func TestJitterBounds(t *testing.T) {
	t.Parallel()
	const delay = time.Second
	tests := []struct {
		name string
		u    float64
		gap  time.Duration
	}{
		{"no jitter", 0, delay},
		{"half of the largest", 0.5, delay + delay/20},
		{"nearly the largest", 0.999, delay + time.Duration(0.0999*float64(delay))},
		{"a broken Rand: 1", 1, delay},
		{"a broken Rand: negative", -0.5, delay},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := &paceClock{t: paceEpoch}
			pc := New(Config{Default: delay, Rand: fixedRand(tt.u), Clock: Clock{Now: clk.now, Sleep: clk.sleep}})
			pc.Loaded("a.example", 0, false, paceEpoch)
			for i := range 3 {
				before := clk.now()
				if err := pc.Wait(context.Background(), "a.example", nil); err != nil {
					t.Fatal(err)
				}
				// Wait books from the robots.txt request, then from each
				// booking: every start is one gap after the one before.
				if got := clk.now().Sub(before); got != tt.gap {
					t.Errorf("start %d waited %v, want %v", i, got, tt.gap)
				}
			}
		})
	}
	// With real randomness, every gap lies in [delay, 1.1 × delay).
	clk := &paceClock{t: paceEpoch}
	pc := New(Config{Default: delay, Clock: Clock{Now: clk.now, Sleep: clk.sleep}})
	pc.Loaded("a.example", 0, false, paceEpoch)
	seen := map[time.Duration]bool{}
	for range 200 {
		before := clk.now()
		if err := pc.Wait(context.Background(), "a.example", nil); err != nil {
			t.Fatal(err)
		}
		gap := clk.now().Sub(before)
		if gap < delay || gap >= delay+delay/10 {
			t.Fatalf("gap %v, want in [%v, %v)", gap, delay, delay+delay/10)
		}
		seen[gap] = true
	}
	if len(seen) < 100 {
		t.Errorf("200 gaps took only %d values: the jitter is not random", len(seen))
	}
}

// TestPauseJitter: a pause gets a random extra of up to a tenth of
// itself, within the cap: a pause asked for within the cap is not pushed
// past it nor reported as capped, and one asked for beyond it is capped.
func TestPauseJitter(t *testing.T) {
	t.Parallel()
	const base, limit = time.Second, time.Minute
	tests := []struct {
		name       string
		ra         string
		quota      Quota
		want       time.Duration
		wantCapped uint64
	}{
		{"the base and its jitter", "", Quota{}, base + base/20, 0},
		{"Retry-After and its jitter", "10", Quota{}, 10*time.Second + time.Second/2, 0},
		{"the longer window and its jitter", "10", Quota{Spent: true, Reset: 20 * time.Second}, 21 * time.Second, 0},
		{"near the cap: held at the cap, not capped", "59", Quota{}, limit, 0},
		{"beyond the cap: capped", "120", Quota{}, limit, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := &paceClock{t: paceEpoch}
			pc := New(Config{Rand: fixedRand(0.5), Clock: Clock{Now: clk.now, Sleep: clk.sleep}})
			b := NewBackoff(BackoffConfig{Base: base, Max: limit, Wait: time.Hour, ServerErrorRun: 3,
				Clock: Clock{Now: clk.now, Sleep: clk.sleep}, Pacer: pc})
			b.AnsweredQuota("A", page("/a"), 429, tt.ra, tt.quota)
			p, ok := b.Info("h.test", clk.now())
			if !ok || p.Until.Sub(paceEpoch) != tt.want {
				t.Errorf("pause until %v after the answer, want %v", p.Until.Sub(paceEpoch), tt.want)
			}
			if c := b.Counts().Capped; c != tt.wantCapped {
				t.Errorf("capped %d, want %d", c, tt.wantCapped)
			}
		})
	}
}

// TestRateLimitSignal: on the hand-moved clock, a spent quota on a 200
// pauses the host with CauseRateLimit for the window (the base without
// one); quota left on a healthy host costs nothing; on a 503 the status
// is the cause and the longer of Retry-After and the window the pause.
func TestRateLimitSignal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		status int
		ra     string
		quota  Quota
		cause  Cause // 0: no pause
		want   time.Duration
	}{
		{"spent, with a window", 200, "", Quota{Spent: true, Reset: 2 * time.Second}, CauseRateLimit, 2 * time.Second},
		{"spent, without a window: the base", 200, "", Quota{Spent: true}, CauseRateLimit, time.Second},
		{"spent on a 404", 404, "", Quota{Spent: true, Reset: 3 * time.Second}, CauseRateLimit, 3 * time.Second},
		{"spent on a 500: no run needed", 500, "", Quota{Spent: true, Reset: 3 * time.Second}, CauseRateLimit, 3 * time.Second},
		{"quota left", 200, "", Quota{}, 0, 0},
		{"503, Retry-After longer", 503, "9", Quota{Spent: true, Reset: 4 * time.Second}, CauseUnavailable, 9 * time.Second},
		{"503, the window longer", 503, "4", Quota{Spent: true, Reset: 9 * time.Second}, CauseUnavailable, 9 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, _, clk := newFakeBackoff(time.Second, time.Hour, false)
			b.AnsweredQuota("A", page("/a"), tt.status, tt.ra, tt.quota)
			p, ok := b.Info("h.test", clk.now())
			if tt.cause == 0 {
				if ok || b.Active() {
					t.Errorf("paused (%+v) on quota left", p)
				}
				return
			}
			if !ok || p.Cause != tt.cause || p.Until.Sub(paceEpoch) != tt.want {
				t.Errorf("Info = %+v, %v; want cause %v until +%v", p, ok, tt.cause, tt.want)
			}
			if n := b.Counts().Pauses[tt.cause]; n != 1 {
				t.Errorf("pauses of cause %v: %d, want 1", tt.cause, n)
			}
		})
	}
}

// TestAdaptiveFloorIsTheDefault: the adaptive pace may slow a silent host
// down below its default delay, never speed it up past it.
func TestAdaptiveFloorIsTheDefault(t *testing.T) {
	t.Parallel()
	clk := &paceClock{t: paceEpoch}
	pc := New(Config{Default: time.Second, Rand: noJitter, Clock: Clock{Now: clk.now, Sleep: clk.sleep}})
	pc.Loaded("h.test", 0, false, paceEpoch)
	a := NewAdaptive(1, Clock{Now: clk.now, Sleep: clk.sleep}, pc)
	answer := func(latency time.Duration) time.Duration {
		t.Helper()
		if err := a.Wait(context.Background(), "h.test"); err != nil {
			t.Fatal(err)
		}
		a.Sent("r")
		clk.advance(latency)
		a.Answered("r", "h.test", false)
		return a.Delay("h.test")
	}
	if d := answer(10 * time.Millisecond); d != time.Second {
		t.Errorf("a fast host: adaptive delay %v, want the default, 1s, as its floor", d)
	}
	if d := answer(4 * time.Second); d != 2500*time.Millisecond {
		t.Errorf("a slow answer: adaptive delay %v, want 2.5s, halfway to 4s above the floor", d)
	}
}

// TestPauseGivesBackBookings: the slots booked ahead for a host are given
// back when it is paused, so that the first request after the pause
// waits for the pause, not for them.
func TestPauseGivesBackBookings(t *testing.T) {
	t.Parallel()
	b, pc, clk := newFakeBackoff(time.Second, time.Hour, false)
	pc.Loaded("h.test", time.Second, true, paceEpoch)
	for range 5 { // five slots booked ahead, the last one 5 s on
		if d := pc.reserve("h.test", clk.now()); d <= 0 {
			t.Fatalf("booking waits %v", d)
		}
	}
	b.Answered("A", page("/a"), 429, "2")
	clk.advance(2 * time.Second)
	if d := pc.reserve("h.test", clk.now()); d != 0 {
		t.Errorf("after the pause the next booking waits %v, want 0: the slots booked before it were kept", d)
	}
}
