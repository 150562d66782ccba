package pacing

import (
	"context"
	"errors"
	"net/url"
	"runtime"
	"testing"
	"time"
)

// TestTurn drives one host's requests through Wait and the gate on the
// hand-moved clock, and checks how long each waits in Wait (outside
// Colly's slots) and that none waits at the gate (inside one), whatever
// the previous response took: the turn (turn.go) waits for what the gate
// would.
func TestTurn(t *testing.T) {
	t.Parallel()
	const d = time.Second
	// step is one request: it waits in Wait (booked as of the clock),
	// then, unless it is aborted before the gate, passes the gate and is
	// answered after answer.
	type step struct {
		advance time.Duration // the clock moves on this much first
		aborted bool          // a later OnRequest callback aborts it
		answer  time.Duration // its response headers come this long after the gate
		wait    time.Duration // how long Wait must make it wait
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"fast answers: each a delay after the previous start", []step{{wait: d}, {wait: d}, {wait: d}}},
		{"slow answers: a delay after the previous answer", []step{{answer: 3 * time.Second, wait: d}, {answer: 3 * time.Second, wait: d}, {wait: d}}},
		{"a request aborted before the gate costs its host one delay", []step{{aborted: true, wait: d}, {wait: d}, {wait: d}}},
		{"an idle host: no wait", []step{{advance: 10 * time.Second}, {advance: 10 * time.Second}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pc, clk := newFakePacer(0, nil)
			pc.Loaded("a.example", d, true, paceEpoch) // robots.txt answered at once: the first page a delay after it
			ctx := context.Background()
			for i, s := range tt.steps {
				clk.advance(s.advance)
				t0 := clk.now()
				tok := i
				if err := pc.Wait(ctx, "a.example", tok); err != nil {
					t.Fatal(err)
				}
				if got := clk.now().Sub(t0); got != s.wait {
					t.Errorf("request %d waited %v in Wait, want %v", i, got, s.wait)
				}
				if s.aborted {
					continue
				}
				at := clk.now()
				if err := pc.Gate(ctx, "a.example", tok, nil); err != nil {
					t.Fatal(err)
				}
				if got := clk.now().Sub(at); got != 0 {
					t.Errorf("request %d waited %v at the gate, inside its slot; want none", i, got)
				}
				clk.advance(s.answer)
				pc.Done("a.example")
				pc.Ended(ctx, tok)
			}
		})
	}
}

// TestTurnWaitsForClaim: a request whose slot comes while the request
// before it is still unanswered waits in Wait for that answer and a
// delay, not at the gate.
func TestTurnWaitsForClaim(t *testing.T) {
	t.Parallel()
	const d = time.Second
	pc, clk := newFakePacer(0, nil)
	pc.Loaded("a.example", d, true, paceEpoch.Add(-d))
	ctx := context.Background()
	if err := pc.Wait(ctx, "a.example", "r1"); err != nil {
		t.Fatal(err)
	}
	if err := pc.Gate(ctx, "a.example", "r1", nil); err != nil {
		t.Fatal(err)
	}
	left := make(chan time.Time, 1)
	go func() {
		_ = pc.Wait(ctx, "a.example", "r2")
		left <- clk.now()
	}()
	waitClaimWaiter(t, pc, "a.example", left)
	clk.advance(5 * time.Second) // r1 answers slowly
	answered := clk.now()
	pc.Done("a.example")
	if got := <-left; got.Before(answered.Add(d)) {
		t.Errorf("r2 left Wait %v after r1's answer, want at least %v", got.Sub(answered), d)
	}
	n := len(clk.sleeps)
	if err := pc.Gate(ctx, "a.example", "r2", nil); err != nil {
		t.Fatal(err)
	}
	if len(clk.sleeps) != n {
		t.Errorf("r2 slept %v at the gate, inside its slot; want no sleep", clk.sleeps[n:])
	}
}

// TestForgetKeepsBusyPace is item 4 of issue 49: the robots.txt cache
// evicts a host's origin (Forget, its grace long passed) while a request
// of the host is on the wire and another waits at the gate. The pace must
// stay: dropped, the waiting request found no pace and went at once, a
// gap of 0 at the server, next to the robots.txt re-fetch that followed.
func TestForgetKeepsBusyPace(t *testing.T) {
	t.Parallel()
	const d = time.Second
	pc, clk := newFakePacer(0, nil)
	pc.Loaded("a.example", d, true, paceEpoch.Add(-d))
	clk.advance(2 * forgetGrace)
	ctx := context.Background()
	if err := pc.Gate(ctx, "a.example", "r1", nil); err != nil {
		t.Fatal(err)
	}
	left := make(chan time.Time, 1)
	go func() {
		_ = pc.Gate(ctx, "a.example", "r2", nil)
		left <- clk.now()
	}()
	waitClaimWaiter(t, pc, "a.example", left)
	pc.Forget("a.example")
	clk.advance(200 * time.Millisecond)
	answered := clk.now()
	pc.Done("a.example")
	if got := <-left; got.Before(answered.Add(d)) {
		t.Errorf("r2 passed the gate %v after r1's answer, want at least %v", got.Sub(answered), d)
	}
	if _, ok := pc.Info("a.example"); !ok {
		t.Error("the pace was dropped while requests used it")
	}
	// Settled (nobody waits, a delay passed), the host is dropped at the
	// next sweep.
	pc.Ended(ctx, "r2")
	pc.Done("a.example")
	clk.advance(forgetGrace + d)
	pc.Loaded("b.example", d, true, clk.now()) // sweeps
	if _, ok := pc.Info("a.example"); ok {
		t.Error("the settled pace was kept after the sweep")
	}
}

// waitClaimWaiter returns once a request waits for host's claim (its idle
// channel made), failing t if the request in left went on instead.
func waitClaimWaiter(t *testing.T, pc *Pacer, host string, left chan time.Time) {
	t.Helper()
	for {
		pc.mu.Lock()
		h := pc.hosts[HostKey(host)]
		waiting := h != nil && h.idle != nil
		pc.mu.Unlock()
		if waiting {
			return
		}
		select {
		case at := <-left:
			left <- at
			t.Fatalf("the request went on at %v while the host was claimed", at.Sub(paceEpoch))
		default:
			runtime.Gosched()
		}
	}
}

// TestForgetThenRequests: two requests that found the host's robots.txt
// cached reach Wait just after an eviction dropped the host's pace
// (Forget, settled). The pace is revived from its tomb (tomb.go), so the
// second waits a delay after the first; without it both went at once.
func TestForgetThenRequests(t *testing.T) {
	t.Parallel()
	const d = time.Second
	pc, clk := newFakePacer(0, nil)
	pc.Loaded("a.example", d, true, paceEpoch)
	pc.Loaded("b.example", d, true, paceEpoch) // keeps some host paced
	clk.advance(2 * forgetGrace)
	pc.Forget("a.example")
	if _, ok := pc.Info("a.example"); ok {
		t.Fatal("a settled pace was kept by Forget")
	}
	ctx := context.Background()
	var left []time.Time
	for _, tok := range []string{"r1", "r2"} {
		if err := pc.Wait(ctx, "a.example", tok); err != nil {
			t.Fatal(err)
		}
		left = append(left, clk.now())
		if err := pc.Gate(ctx, "a.example", tok, nil); err != nil {
			t.Fatal(err)
		}
		pc.Done("a.example")
		pc.Ended(ctx, tok)
	}
	if gap := left[1].Sub(left[0]); gap < d {
		t.Errorf("the second request went %v after the first, want at least %v", gap, d)
	}
	if !left[0].Equal(paceEpoch.Add(2 * forgetGrace)) {
		t.Errorf("the first request waited %v, want none (its host idle for minutes)", left[0].Sub(paceEpoch.Add(2*forgetGrace)))
	}
}

// TestTurnKeepsPace: a host whose latest turn was given to a request that
// has not reached the gate yet (it waits for a Colly slot) is not dropped
// by Forget, however long ago the turn came, up to maxClaim: dropped, the
// request would find the pace revived at the gate and wait there, inside
// its slot. A turn whose request never comes (aborted by a later
// OnRequest callback) keeps it no longer than maxClaim.
func TestTurnKeepsPace(t *testing.T) {
	t.Parallel()
	const d = time.Second
	tests := []struct {
		name    string
		after   time.Duration // from the turn to Forget
		gate    bool          // the request reaches the gate before Forget
		dropped bool
	}{
		{"the turn's request waits for a slot", 10 * d, false, false},
		{"the turn's request passed the gate", 10 * d, true, true},
		{"the turn's request never came", maxClaim, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pc, clk := newFakePacer(0, nil)
			pc.Loaded("a.example", d, true, paceEpoch)
			clk.advance(2 * forgetGrace)
			ctx := context.Background()
			if err := pc.Wait(ctx, "a.example", "r1"); err != nil {
				t.Fatal(err)
			}
			if tt.gate {
				if err := pc.Gate(ctx, "a.example", "r1", nil); err != nil {
					t.Fatal(err)
				}
				pc.Done("a.example")
				pc.Ended(ctx, "r1")
			}
			clk.advance(tt.after)
			pc.Forget("a.example")
			pc.mu.Lock()
			_, kept := pc.hosts["a.example"]
			pc.mu.Unlock()
			if kept == tt.dropped {
				t.Fatalf("after Forget the pace is kept: %v, want %v", kept, !tt.dropped)
			}
			if tt.gate || tt.dropped {
				return
			}
			at := clk.now()
			if err := pc.Gate(ctx, "a.example", "r1", nil); err != nil {
				t.Fatal(err)
			}
			if got := clk.now().Sub(at); got != 0 {
				t.Errorf("the turn's request waited %v at the gate, want none", got)
			}
		})
	}
}

// TestTurnAfterDrop: a request booked its slot on a host's pace that was
// dropped, and the host loaded again, before it asked for its turn. The
// turn is taken on the pace in use, which another request has just
// started on, not on the dropped one, where it was free.
func TestTurnAfterDrop(t *testing.T) {
	t.Parallel()
	const d = time.Second
	pc, clk := newFakePacer(0, nil)
	pc.Loaded("a.example", d, true, paceEpoch)
	pc.Loaded("b.example", d, true, paceEpoch) // keeps some host paced
	clk.advance(2 * forgetGrace)
	old := pc.lookup("a.example")
	pc.Forget("a.example")
	pc.Loaded("a.example", d, true, clk.now())
	ctx := context.Background()
	if err := pc.Gate(ctx, "a.example", "r1", nil); err != nil {
		t.Fatal(err)
	}
	clk.advance(d / 2)
	pc.Done("a.example")
	at := clk.now()
	if _, err := pc.turn(ctx, old, "r2", at); err != nil {
		t.Fatal(err)
	}
	if got := clk.now().Sub(at); got != d {
		t.Errorf("the turn came after %v, want %v (a delay after r1's answer)", got, d)
	}
}

// TestTurnHeldForSlot is the saturated collector of issue 49: every Colly
// slot busy longer than a host's delay. A turn is held while its request
// waits for a slot (heldLocked), so the host's next request stays in the
// hook, outside the slots, instead of reaching the gate beside it and
// waiting there; a turn whose request never comes (aborted by a later
// OnRequest callback) costs its host that hold. Each row gives a turn to
// a request that never comes and measures the next request's wait.
func TestTurnHeldForSlot(t *testing.T) {
	t.Parallel()
	const d = time.Second
	tests := []struct {
		name     string
		slotWait time.Duration // the longest time a turn took to the gate
		ago      time.Duration // that long before the turn
		busy     bool          // the requests in flight are as many as ever
		later    bool          // requests that left the hook after it reach the gate first
		want     time.Duration
	}{
		{"slots free, no wait seen: a delay", 0, 0, false, false, d},
		{"a turn waited 3 delays 5 s ago, slots free since: a delay", 3 * d, 5 * time.Second, false, false, d},
		{"saturated: held until requests that left after it come first", 0, 0, true, true, d},
		{"saturated, nothing overtakes it: maxClaim", 0, 0, true, false, maxClaim},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pc, clk := newFakePacer(0, nil)
			pc.Loaded("a.example", d, true, paceEpoch)
			clk.advance(10 * d)
			ctx := context.Background()
			if tt.busy { // two requests in flight, the most seen
				for _, host := range []string{"b.example", "c.example"} {
					if err := pc.Gate(ctx, host, host, &url.URL{Scheme: "http", Host: host, Path: "/"}); err != nil {
						t.Fatal(err)
					}
				}
			}
			pc.mu.Lock()
			pc.slotWait, pc.slotWaitAt = tt.slotWait, clk.now().Add(-tt.ago)
			pc.mu.Unlock()
			if err := pc.Wait(ctx, "a.example", "aborted"); err != nil {
				t.Fatal(err)
			}
			at := clk.now()
			pc.Left() // as the root's hook does
			if tt.later {
				for range overtakeMargin + 1 {
					pc.Left()
					pc.Arrived()
				}
			}
			if err := pc.Wait(ctx, "a.example", "next"); err != nil {
				t.Fatal(err)
			}
			if got := clk.now().Sub(at); got != tt.want {
				t.Errorf("the next request got its turn %v after the aborted one, want %v", got, tt.want)
			}
		})
	}
}

// TestTurnHeldWakes: a request waiting for a turn held by a request that
// waits for a Colly slot gets it once that request has reached the gate,
// been answered and a delay has passed, not before. It runs on the real
// clock, since the wake-up it checks is a channel closed by another
// goroutine; it asserts order, not durations, with margins of hundreds of
// milliseconds against a loaded machine.
func TestTurnHeldWakes(t *testing.T) {
	t.Parallel()
	const d = 50 * time.Millisecond
	pc := New(Config{Rand: noJitter})
	pc.Loaded("a.example", d, true, time.Now().Add(-time.Second))
	ctx := context.Background()
	for _, host := range []string{"b.example", "c.example"} { // the slots busy: two requests in flight
		if err := pc.Gate(ctx, host, host, &url.URL{Scheme: "http", Host: host, Path: "/"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := pc.Wait(ctx, "a.example", "r2"); err != nil {
		t.Fatal(err)
	}
	turned := make(chan time.Time, 1)
	go func() {
		_ = pc.Wait(ctx, "a.example", "r3")
		turned <- time.Now()
	}()
	time.Sleep(100 * time.Millisecond) // r2 waits for a slot, its turn held (saturated)
	select {
	case at := <-turned:
		t.Fatalf("r3 got its turn while r2 held it (%v ago)", time.Since(at))
	default:
	}
	g := time.Now()
	if err := pc.Gate(ctx, "a.example", "r2", nil); err != nil {
		t.Fatal(err)
	}
	if w := time.Since(g); w >= d {
		t.Errorf("r2 waited %v at the gate", w)
	}
	time.Sleep(20 * time.Millisecond)
	answered := time.Now()
	pc.Done("a.example")
	pc.Ended(ctx, "r2")
	if at := <-turned; at.Before(answered.Add(d)) {
		t.Errorf("r3 got its turn %v after r2's answer, want at least %v", at.Sub(answered), d)
	}
}

// TestSlotWaitHalves: the recent wait for a slot is halved every
// slotWaitHalfLife, so that a crawl whose slots are free again holds
// turns for a delay again within seconds.
func TestSlotWaitHalves(t *testing.T) {
	t.Parallel()
	pc, clk := newFakePacer(0, nil)
	now := clk.now()
	pc.mu.Lock()
	defer pc.mu.Unlock()
	pc.slotWait, pc.slotWaitAt = 3*time.Second, now
	for _, tt := range []struct {
		after time.Duration
		want  time.Duration
	}{{0, 3 * time.Second}, {slotWaitHalfLife, 1500 * time.Millisecond}, {2 * slotWaitHalfLife, 750 * time.Millisecond}} {
		if got := pc.slotWaitLocked(now.Add(tt.after)); got != tt.want {
			t.Errorf("the wait %v later: %v, want %v", tt.after, got, tt.want)
		}
	}
	// A turn given now, its request never seen: a delay later, with the
	// slots free, it is held while twice the recent wait (1.5 s then) is
	// longer than its age: 2 s more.
	h := &hostPace{turnTok: "aborted", passAt: now}
	if got := pc.heldLocked(h, "next", time.Second, now.Add(time.Second)); got != 2*time.Second {
		t.Errorf("held %v more, want 2s", got)
	}
}

// TestTurnHeldCancel: a request waiting for a turn held for a request
// that waits for a Colly slot (the slots saturated) ends its wait with
// its context's error as soon as the context is cancelled, not at the
// hold's end (2 minutes here). It runs on the real clock: the subject is
// a wait cut short; the bound is generous against a loaded machine.
func TestTurnHeldCancel(t *testing.T) {
	t.Parallel()
	const d = 50 * time.Millisecond
	pc := New(Config{Rand: noJitter})
	pc.Loaded("a.example", d, true, time.Now().Add(-time.Second))
	ctx := context.Background()
	for _, host := range []string{"b.example", "c.example"} { // the slots busy: two requests in flight
		if err := pc.Gate(ctx, host, host, &url.URL{Scheme: "http", Host: host, Path: "/"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := pc.Wait(ctx, "a.example", "holder"); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- pc.Wait(cctx, "a.example", "waiter") }()
	time.Sleep(3 * d) // past the delay: the waiter waits on the hold
	select {
	case err := <-done:
		t.Fatalf("the waiter went on (%v) while the turn was held", err)
	default:
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the waiter's wait ended with %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiter still waited 5 s after its context was cancelled")
	}
}
