package redisbackend

import (
	"fmt"
	"github.com/robotsext/robotsext/backend"
	"testing"
	"time"
)

// awaitFleet calls Reserve on every backend until each reports want.
func awaitFleet(t *testing.T, bs []*Backend, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		done := true
		for i, b := range bs {
			if _, err := b.Reserve(t.Context(), fmt.Sprintf("fleet%d.example", i), 0); err != nil {
				t.Fatal(err)
			}
			if b.FleetSize() != want {
				done = false
			}
		}
		if done {
			return
		}
		if time.Now().After(deadline) {
			sizes := make([]int, len(bs))
			for i, b := range bs {
				sizes[i] = b.FleetSize()
			}
			t.Fatalf("fleet sizes %v after 10s; want all %d", sizes, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFleetSize: backends in use count each other through their
// heartbeats; Close leaves the count; the count survives an outage as the
// last known value.
func TestFleetSize(t *testing.T) {
	t.Parallel()
	m := newMiniredis(t)
	c := newClient(t, "tcp", m.Addr())
	var bs []*Backend
	for i := range 3 {
		bs = append(bs, New(c, WithHeartbeat(20*time.Millisecond), WithWorkerID(fmt.Sprintf("w%d", i)), WithPrefix("fleet:")))
	}
	if got := bs[0].FleetSize(); got != 1 {
		t.Fatalf("FleetSize before any call = %d; want 1", got)
	}
	awaitFleet(t, bs, 3)
	if got, err := c.ZCard(t.Context(), "fleet:fleet").Result(); err != nil || got != 3 {
		t.Fatalf("ZCARD fleet:fleet = %d, %v; want 3", got, err)
	}
	if err := bs[2].Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	awaitFleet(t, bs[:2], 2)

	m.Close() // Redis away: the last known size stays
	for _, b := range bs[:2] {
		_, _ = b.Reserve(t.Context(), "down.example", time.Second)
		if got := b.FleetSize(); got != 2 {
			t.Errorf("FleetSize while Redis is down = %d; want the last known 2", got)
		}
	}
}

// TestFleetPrunesSilentWorkers: a worker that stops calling (crashed, or
// idle) drops out of the count after three heartbeats.
func TestFleetPrunesSilentWorkers(t *testing.T) {
	t.Parallel()
	m := newMiniredis(t)
	c := newClient(t, "tcp", m.Addr())
	live := New(c, WithHeartbeat(20*time.Millisecond), WithWorkerID("live"))
	silent := New(c, WithHeartbeat(20*time.Millisecond), WithWorkerID("silent"))
	awaitFleet(t, []*Backend{live, silent}, 2)
	awaitFleet(t, []*Backend{live}, 1)
}

// TestFleetHeartbeatOff: without a heartbeat nothing is registered and
// FleetSize is 1.
func TestFleetHeartbeatOff(t *testing.T) {
	t.Parallel()
	m := newMiniredis(t)
	b := New(newClient(t, "tcp", m.Addr()), WithHeartbeat(-1))
	for range 3 {
		if _, err := b.Reserve(t.Context(), "a.example", time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if m.Exists(DefaultPrefix+"fleet") || b.FleetSize() != 1 {
		t.Fatalf("heartbeat off: fleet key exists %v, FleetSize %d", m.Exists(DefaultPrefix+"fleet"), b.FleetSize())
	}
	if err := b.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// TestEveryKeyHasTTL: after every kind of write, no key is left without
// an expiry (a crawl over millions of hosts must not fill Redis for
// ever), on a real server.
func TestEveryKeyHasTTL(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	c := newClient(t, "unix", s.Sock)
	b := New(c, WithHeartbeat(time.Minute))
	ctx := t.Context()
	origin := "https://ttl.example"
	l, _, _, err := b.Lease(ctx, origin, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := b.Lease(ctx, "https://held.example", time.Minute); err != nil {
		t.Fatal(err)
	}
	rec := sampleRecordForTTL()
	if err := b.Store(ctx, origin, l, rec); err != nil {
		t.Fatal(err)
	}
	for _, d := range []time.Duration{0, time.Second, 0, time.Hour} {
		if _, err := b.Reserve(ctx, "ttl.example", d); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := b.Reserve(ctx, "zero-only.example", 0); err != nil {
		t.Fatal(err)
	}
	// The first call started a heartbeat in the background: wait for it.
	for deadline := time.Now().Add(10 * time.Second); c.Exists(ctx, b.keys.fleet()).Val() == 0; {
		if time.Now().After(deadline) {
			t.Fatal("no heartbeat within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}

	keys, err := c.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		b.keys.record(origin): true, b.keys.lease("https://held.example"): true,
		b.keys.pace("ttl.example"): true, b.keys.fleet(): true,
		// Delay-0 bookings on hosts without a pace: kept as marks.
		b.keys.pace("zero-only.example"): true,
	}
	for _, k := range keys {
		ttl, err := c.PTTL(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		if ttl <= 0 {
			t.Errorf("key %q has no TTL (PTTL %v)", k, ttl)
		}
		if !want[k] {
			t.Errorf("unexpected key %q", k)
		}
		delete(want, k)
	}
	for k := range want {
		t.Errorf("key %q missing", k)
	}
	// The record lives until KeepUntil, the pace until its latest start
	// plus its delay and the margin.
	if ttl := c.PTTL(ctx, b.keys.record(origin)).Val(); ttl < 29*24*time.Hour {
		t.Errorf("record TTL %v; want about the 30 days of MaxStale", ttl)
	}
	if ttl := c.PTTL(ctx, b.keys.pace("ttl.example")).Val(); ttl < time.Hour || ttl > 2*time.Hour+2*paceMargin {
		t.Errorf("pace TTL %v; want the booked start (≈1h ahead) plus the delay (1h) and a margin", ttl)
	}
	if ttl := c.PTTL(ctx, b.keys.pace("zero-only.example")).Val(); ttl > zeroMarkHold+paceMargin {
		t.Errorf("mark TTL %v; want at most %v", ttl, zeroMarkHold+paceMargin)
	}
}

// sampleRecordForTTL is a good record fetched now.
func sampleRecordForTTL() *backend.Record {
	now := time.Now()
	return &backend.Record{
		Latest:  backend.Answer{URL: "https://ttl.example/robots.txt", Status: 200, Outcome: backend.OutcomeOK, Body: []byte("User-agent: *\nDisallow:\n"), FetchedAt: now},
		GoodAt:  now,
		Expires: now.Add(24 * time.Hour),
	}
}

// TestFleetSizeSurvivesRestart: a Redis restarted empty makes the next
// beats count fewer workers; FleetSize keeps the larger count for four
// beats, by which time every live worker has beaten again.
func TestFleetSizeSurvivesRestart(t *testing.T) {
	t.Parallel()
	var f fleet
	steps := []struct {
		n    int64
		want int
	}{
		{3, 3}, {3, 3},
		{1, 3}, // Redis restarted empty (after an outage of any length): only this worker so far
		{2, 3}, // refilling
		{3, 3}, // all back
		{2, 3}, // one worker left: the drop waits for four beats…
		{2, 3}, {2, 3},
		{2, 2}, // …and then shows
		{5, 5}, // growth shows at once
	}
	for i, st := range steps {
		f.learn(st.n)
		if got := f.size(); got != st.want {
			t.Fatalf("step %d: size %d; want %d", i, got, st.want)
		}
	}
}
