package redisbackend

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext/backend"
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
// heartbeats; by default the count never drops (Close and all); with a
// floor (WithFleetSize) a worker that left shows after a few beats; the
// count survives an outage as the last known value.
func TestFleetSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		floor     int
		afterExit int // the size once a worker has closed
	}{
		{"default keeps the largest", 0, 3},
		{"floor 1 follows the beats", 1, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := newMiniredis(t)
			c := newClient(t, "tcp", m.Addr())
			var bs []*Backend
			for i := range 3 {
				bs = append(bs, New(c, WithHeartbeat(20*time.Millisecond), WithWorkerID(fmt.Sprintf("w%d", i)),
					WithPrefix("fleet:"), WithFleetSize(tc.floor)))
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
			awaitZCard(t, c, "fleet:fleet", 2)
			awaitFleet(t, bs[:2], tc.afterExit)

			m.Close() // Redis away: the last known size stays
			for _, b := range bs[:2] {
				_, _ = b.Reserve(t.Context(), "down.example", time.Second)
				if got := b.FleetSize(); got != tc.afterExit {
					t.Errorf("FleetSize while Redis is down = %d; want the last known %d", got, tc.afterExit)
				}
			}
		})
	}
}

// awaitZCard polls until the sorted set key holds want members.
func awaitZCard(t *testing.T, c *redis.Client, key string, want int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := c.ZCard(t.Context(), key).Result()
		if err == nil && n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("ZCARD %s = %d, %v after 10s; want %d", key, n, err, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFleetPrunesSilentWorkers: a worker that stops calling (crashed, or
// idle) drops out of the set after three heartbeats, and out of the count
// of a Backend with a floor below it.
func TestFleetPrunesSilentWorkers(t *testing.T) {
	t.Parallel()
	m := newMiniredis(t)
	c := newClient(t, "tcp", m.Addr())
	live := New(c, WithHeartbeat(20*time.Millisecond), WithWorkerID("live"), WithFleetSize(1))
	silent := New(c, WithHeartbeat(20*time.Millisecond), WithWorkerID("silent"))
	awaitFleet(t, []*Backend{live, silent}, 2)
	awaitFleet(t, []*Backend{live}, 1)
	if got := silent.FleetSize(); got != 2 {
		t.Errorf("the silent worker's FleetSize = %d; want the 2 it saw (no floor: the largest count stays)", got)
	}
}

// TestFleetSizeFloor: WithFleetSize is what a Backend reports before any
// heartbeat and while Redis cannot be reached at all, and the floor below
// which heartbeats never take it; values below 1 mean no floor.
func TestFleetSizeFloor(t *testing.T) {
	t.Parallel()
	closed := miniredis.RunT(t)
	deadAddr := closed.Addr()
	closed.Close()
	tests := []struct {
		name  string
		floor int
		want  int
	}{
		{"floor 3", 3, 3},
		{"floor 1", 1, 1},
		{"zero: no floor", 0, 1},
		{"negative: no floor", -4, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := New(newClient(t, "tcp", deadAddr), WithFleetSize(tc.floor), WithTimeout(50*time.Millisecond))
			if got := b.FleetSize(); got != tc.want {
				t.Errorf("FleetSize before any call = %d; want %d", got, tc.want)
			}
			for range 3 {
				if _, err := b.Reserve(t.Context(), "never.example", time.Second); err == nil {
					t.Fatal("Reserve on a closed server succeeded")
				}
			}
			if got := b.FleetSize(); got != tc.want {
				t.Errorf("FleetSize with Redis never reached = %d; want %d", got, tc.want)
			}
		})
	}

	// Heartbeats showing more than the floor raise the size; fewer never
	// take it below the floor.
	m := newMiniredis(t)
	c := newClient(t, "tcp", m.Addr())
	var bs []*Backend
	for i := range 4 {
		bs = append(bs, New(c, WithHeartbeat(20*time.Millisecond), WithWorkerID(fmt.Sprintf("f%d", i)), WithFleetSize(2)))
	}
	awaitFleet(t, bs, 4)
	awaitFleet(t, bs[:1], 2) // the others went silent: down to the floor, not 1
}

// TestFleetGhostMembers: members of the fleet set whose heartbeat lies in
// the future (a foreign write, a failover to a node whose clock is
// behind) or far in the past are pruned by the next heartbeat and never
// counted: 1,000 of each, and two live workers, make a fleet of 2. A
// fleet key of another type is replaced. On a real server.
func TestFleetGhostMembers(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	c := newClient(t, "unix", s.Sock)
	ctx := t.Context()
	tests := []struct {
		name  string
		ghost func(key string) error
	}{
		{"1000 in the future, 1000 in the past", func(key string) error {
			now := time.Now().UnixMilli()
			var zs []redis.Z
			for i := range 1000 {
				zs = append(zs,
					redis.Z{Score: float64(now + int64(time.Hour/time.Millisecond) + int64(i)), Member: fmt.Sprintf("future-%d", i)},
					redis.Z{Score: float64(i), Member: fmt.Sprintf("past-%d", i)})
			}
			zs = append(zs, redis.Z{Score: math.Inf(1), Member: "infinite"})
			return c.ZAdd(ctx, key, zs...).Err()
		}},
		{"wrong type", func(key string) error { return c.Set(ctx, key, "not a set", 0).Err() }},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			prefix := fmt.Sprintf("ghosts%d:", i)
			key := prefix + "fleet"
			if err := tc.ghost(key); err != nil {
				t.Fatal(err)
			}
			bs := []*Backend{
				New(c, WithPrefix(prefix), WithHeartbeat(20*time.Millisecond), WithWorkerID("live1")),
				New(c, WithPrefix(prefix), WithHeartbeat(20*time.Millisecond), WithWorkerID("live2")),
			}
			awaitFleet(t, bs, 2)
			for _, b := range bs {
				if got := b.FleetSize(); got != 2 {
					t.Errorf("FleetSize = %d; want 2", got)
				}
			}
			n, err := c.ZCard(ctx, key).Result()
			if err != nil || n != 2 {
				t.Errorf("ZCARD %s = %d, %v; want the 2 live members", key, n, err)
			}
			t.Logf("FleetSize %d and %d, %d members left in the set", bs[0].FleetSize(), bs[1].FleetSize(), n)
		})
	}
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
	// The first call started the first round trip in the background (a
	// heartbeat, and the purge log's cursor, which starts the log): wait
	// for it.
	for deadline := time.Now().Add(10 * time.Second); c.Exists(ctx, b.keys.fleet(), b.keys.purges()).Val() < 2; {
		if time.Now().After(deadline) {
			t.Fatal("no first round trip within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}

	keys, err := c.Keys(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{
		b.keys.record(origin): true, b.keys.lease("https://held.example"): true,
		b.keys.pace("ttl.example"): true, b.keys.fleet(): true, b.keys.purges(): true,
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
	if ttl := c.PTTL(ctx, b.keys.pace("zero-only.example")).Val(); ttl > zeroMarkKeep+paceMargin {
		t.Errorf("mark TTL %v; want at most %v", ttl, zeroMarkKeep+paceMargin)
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
// beats count fewer workers. Without a floor the size never drops; with
// one it keeps the larger count for four beats, by which time every live
// worker has beaten again, and then follows the beats down to the floor.
func TestFleetSizeSurvivesRestart(t *testing.T) {
	t.Parallel()
	type step struct {
		n    int64
		want int
	}
	tests := []struct {
		name  string
		floor int64
		steps []step
	}{
		{"no floor", 0, []step{
			{3, 3}, {3, 3},
			{1, 3},                                 // Redis restarted empty (after an outage of any length): only this worker so far
			{2, 3},                                 // refilling
			{3, 3},                                 // all back
			{2, 3}, {2, 3}, {2, 3}, {2, 3}, {1, 3}, // workers left: the size stays
			{5, 5}, // growth shows at once
		}},
		{"floor 2", 2, []step{
			{1, 2}, // below the floor
			{3, 3}, {3, 3},
			{1, 3}, // restarted empty
			{2, 3}, // refilling
			{3, 3}, // all back
			{1, 3}, // two workers left: the drop waits for four beats…
			{1, 3}, {1, 3},
			{1, 2}, // …and then shows, down to the floor
			{5, 5}, // growth shows at once
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := fleet{floor: tc.floor}
			for i, st := range tc.steps {
				f.learn(st.n)
				if got := f.size(); got != st.want {
					t.Fatalf("step %d (count %d): size %d; want %d", i, st.n, got, st.want)
				}
			}
		})
	}
}
