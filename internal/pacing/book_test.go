package pacing

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestBookConcurrent: requests booking one host at once, without the
// Pacer's lock, each get their own slot, the delay apart, and every one
// that must wait is counted among the host's waiters until its wait ends.
func TestBookConcurrent(t *testing.T) {
	t.Parallel()
	const n = 64
	clk := &paceClock{t: paceEpoch}
	pc := New(Config{Rand: noJitter, Clock: Clock{Now: clk.now, Sleep: clk.sleep}})
	pc.Loaded("a.example", time.Second, true, paceEpoch)
	waits := make([]time.Duration, n)
	hosts := make([]*hostPace, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { waits[i], hosts[i] = pc.book("a.example", pc.nowInstant) })
	}
	wg.Wait()
	slices.Sort(waits)
	for i, w := range waits {
		if want := time.Duration(i+1) * time.Second; w != want {
			t.Fatalf("slot %d: wait %v, want %v (waits %v)", i, w, want, waits)
		}
	}
	if info, _ := pc.Info("a.example"); info.Waiting != n {
		t.Errorf("Waiting = %d while %d requests wait, want %d", info.Waiting, n, n)
	}
	for _, h := range hosts {
		h.waiting.Add(-1) // as Wait does when the wait ends
	}
	if info, _ := pc.Info("a.example"); info.Waiting != 0 || !info.Next.Equal(paceEpoch.Add((n+1)*time.Second)) {
		t.Errorf("Info = %+v; want no waiter and the next slot after the %d booked", info, n)
	}
}

// TestBookLookup: the pace served without the lock is the host's own,
// whatever the form of its name, and never one that was dropped.
func TestBookLookup(t *testing.T) {
	t.Parallel()
	steps := []struct {
		name     string
		loaded   time.Duration // the delay Loaded gives a.example before the booking; -1: not called
		host     string
		wantWait time.Duration
	}{
		{"first booking, under the lock", time.Second, "a.example", time.Second},
		{"same host, without the lock", -1, "a.example", 2 * time.Second},
		{"another form of its name", -1, "A.Example.", 3 * time.Second},
		{"a host not paced", -1, "b.example", 0},
		{"back to the first", -1, "a.example", 4 * time.Second},
		{"dropped (Crawl-delay: 0)", 0, "a.example", 0},
		{"paced again, by a new delay", 5 * time.Second, "a.example", 5 * time.Second},
		{"the new pace, without the lock", -1, "a.example", 10 * time.Second},
	}
	clk := &paceClock{t: paceEpoch}
	pc := New(Config{Rand: noJitter, Clock: Clock{Now: clk.now, Sleep: clk.sleep}})
	for _, st := range steps {
		if st.loaded >= 0 {
			pc.Loaded("a.example", st.loaded, true, paceEpoch)
		}
		if got := pc.reserve(st.host, paceEpoch); got != st.wantWait {
			t.Errorf("%s: reserve(%q) = %v, want %v", st.name, st.host, got, st.wantWait)
		}
	}
}

// TestRealClockBooking: on the real clock (Config.Clock.Now nil), read
// through its monotonic part, a booking counts from the robots.txt fetch
// as on any clock.
func TestRealClockBooking(t *testing.T) {
	t.Parallel()
	pc := New(Config{MaxDelay: 2 * time.Hour, Rand: noJitter, Clock: Clock{Sleep: func(ctx context.Context, _ time.Duration) error { return ctx.Err() }}})
	if !pc.realClock {
		t.Fatal("a nil Clock.Now is not known as the real clock")
	}
	const delay = time.Hour // far longer than the test can take
	fetched := time.Now()
	pc.Loaded("a.example", delay, true, fetched)
	d, h := pc.book("a.example", pc.nowInstant)
	if h == nil {
		t.Fatal("the host is not paced")
	}
	// The slot is fetched+delay; the wait to it is that less the time
	// since the fetch, which the test measures around the booking.
	if lo, hi := delay-time.Since(fetched), delay; d < lo || d > hi {
		t.Errorf("wait %v, want within [%v, %v]", d, lo, hi)
	}
}

// TestWaitAt: WaitAt books from the instant its caller read, as an offset
// from Config.Epoch, and not from the clock: the hook reads the clock once
// for the robots.txt cache and the pace. A reading taken before a step
// that waited would book the slot early, so the hook reads again then
// (TestHookReadsClockAfterWait at the root).
func TestWaitAt(t *testing.T) {
	t.Parallel()
	epoch := paceEpoch.Add(-time.Hour) // the instants count from here, not from the clock's start
	tests := []struct {
		name     string
		clockAt  time.Duration // the Pacer's clock, after paceEpoch
		now      time.Duration // the instant given, after epoch
		wantWait time.Duration // of the second request, booked at the same instant
	}{
		{"the reading is the clock's", 0, time.Hour, time.Second},
		{"a reading of the clock", 3 * time.Second, time.Hour + 3*time.Second, time.Second},
		{"an older reading books from the reading, whatever the clock says", 10 * time.Second, time.Hour + 5*time.Second, time.Second},
		{"a reading a second later", 0, time.Hour + time.Second, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The robots.txt answer came a delay before the clock's
			// reading: the host's turn (turn.go) holds nothing back.
			clk := &paceClock{t: paceEpoch.Add(tt.clockAt - time.Second)}
			var slept time.Duration // the first sleep since it was zeroed: the booked slot's
			sleep := func(ctx context.Context, d time.Duration) error {
				if slept == 0 {
					slept = d
				}
				return clk.sleep(ctx, d)
			}
			pc := New(Config{Rand: noJitter, Epoch: epoch, Clock: Clock{Now: clk.now, Sleep: sleep}})
			pc.Loaded("a.example", time.Second, true, paceEpoch.Add(tt.now-time.Hour-time.Second)) // fetched a delay before the reading: the first slot is the reading itself
			clk.advance(time.Second)
			if err := pc.WaitAt(context.Background(), "a.example", "r1", tt.now); err != nil {
				t.Fatal(err)
			}
			if slept != 0 {
				t.Fatalf("the first request waited %v, want none", slept)
			}
			slept = 0
			if err := pc.WaitAt(context.Background(), "a.example", "r2", tt.now); err != nil {
				t.Fatal(err)
			}
			if slept != tt.wantWait {
				t.Errorf("the second request waited %v, want %v", slept, tt.wantWait)
			}
			// A third request a second after the reading waits for the
			// third slot, two delays after the reading.
			slept = 0
			if err := pc.WaitAt(context.Background(), "a.example", "r3", tt.now+time.Second); err != nil {
				t.Fatal(err)
			}
			if slept != time.Second {
				t.Errorf("the third request waited %v, want 1s", slept)
			}
		})
	}
}
