package redisbackend

// Every key the Backend writes has a TTL, and what each costs Redis: the
// figures of the key table in docs/scaling.md.

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestEveryKeyExpires drives every call that writes a key on a real
// redis-server (a record, a held lease, paces written by Reserve, Start,
// Claim and Queue with a ticket waiting, a pause with its index and log
// entry, a purge, a heartbeat), then finds every key under the prefix:
// each has a TTL. It logs each kind's TTL and MEMORY USAGE, and the cost
// of one more entry in the keys that hold one per host or purge (run with
// -v).
func TestEveryKeyExpires(t *testing.T) {
	t.Parallel()
	srv := startRedisServer(t)
	c := newClient(t, "unix", srv.Sock)
	b := New(c, WithPrefix("life:"), WithHeartbeat(10*time.Millisecond), WithWorkerID("worker-1"))
	ctx := t.Context()
	now := time.Now()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	l, _, _, err := b.Lease(ctx, "https://rec.example", time.Minute)
	must(err)
	must(b.Store(ctx, "https://rec.example", l, recordOf("https://rec.example", []byte(typicalRobots), now)))
	_, _, _, err = b.Lease(ctx, "https://leased.example", 30*time.Second)
	must(err)
	_, err = b.Reserve(ctx, "reserve.example", 10*time.Second)
	must(err)
	_, _, err = b.Start(ctx, "start.example", "a", 10*time.Second)
	must(err)
	_, _, err = b.Claim(ctx, "claim.example", "a", 10*time.Second, 5*time.Second)
	must(err)
	_, err = b.Queue(ctx, "queue.example", "a", 0, 10*time.Second, 5*time.Second)
	must(err)
	_, err = b.ClaimTurn(ctx, "queue.example", "a", 10*time.Second, 5*time.Second)
	must(err)
	must(b.Unclaim(ctx, "queue.example", "a"))
	_, err = b.Queue(ctx, "queue.example", "waiting", 0, 10*time.Second, 5*time.Second)
	must(err)
	_, _, _, _, err = b.Pause(ctx, "paused.example", 30*time.Second, time.Second, time.Hour)
	must(err)
	_, _, _, _, err = b.Ask(ctx, "paused.example", "a")
	must(err)
	_, next, _, err := b.PausesSince(ctx, "", 10)
	must(err)
	_, _, _, err = b.PausesSince(ctx, next, 10)
	must(err)
	must(b.Forget(ctx, "https://forgotten.example"))
	must(b.beat(ctx))

	kinds := map[string]string{ // key → what it is, as the docs' table names it
		b.keys.record("https://rec.example"):    "record",
		b.keys.lease("https://leased.example"):  "lease",
		b.keys.pace("reserve.example"):          "pace (Reserve)",
		b.keys.pace("start.example"):            "pace (Start)",
		b.keys.pace("claim.example"):            "pace (Claim)",
		b.keys.pace("queue.example"):            "pace (Queue)",
		b.keys.queue("queue.example"):           "queue",
		b.keys.pace("paused.example"):           "",
		b.keys.pause("paused.example"):          "pause",
		b.keys.pauses():                         "pause index",
		b.keys.pauseLog():                       "pause log",
		b.keys.purges():                         "purge log",
		b.keys.fleet():                          "fleet",
		b.keys.lease("https://rec.example"):     "",
		b.keys.record("https://leased.example"): "",
	}
	keys, err := c.Keys(ctx, "life:*").Result()
	must(err)
	slices.Sort(keys)
	var rows []string
	for _, k := range keys {
		kind, known := kinds[k]
		if !known {
			t.Errorf("key %s: not one the test expects", k)
			continue
		}
		ttl, err := c.PTTL(ctx, k).Result()
		must(err)
		size, err := c.MemoryUsage(ctx, k, 0).Result()
		must(err)
		if ttl <= 0 {
			t.Errorf("key %s (%s) has no TTL (PTTL %v)", k, kind, ttl)
		}
		rows = append(rows, fmt.Sprintf("%-45s %-15s TTL %-12v %d B", k, kind, ttl.Round(time.Millisecond), size))
	}
	for k, kind := range kinds {
		if kind != "" && !slices.Contains(keys, k) {
			t.Errorf("key %s (%s) was not written", k, kind)
		}
	}
	t.Logf("every key after one call of each kind:\n%s", strings.Join(rows, "\n"))

	// One more entry of the keys that grow: 100 more pauses, purges and
	// fleet members.
	grown := map[string]int64{}
	for _, k := range []string{b.keys.pauses(), b.keys.pauseLog(), b.keys.purges(), b.keys.fleet()} {
		grown[k], err = c.MemoryUsage(ctx, k, 0).Result()
		must(err)
	}
	for i := range 100 {
		_, _, _, _, err := b.Pause(ctx, fmt.Sprintf("paused%d.example", i), 30*time.Second, time.Second, time.Hour)
		must(err)
		must(b.Forget(ctx, fmt.Sprintf("https://forgotten%d.example", i)))
		other := New(c, WithPrefix("life:"), WithWorkerID(fmt.Sprintf("worker-%d", i+2)))
		must(other.beat(ctx))
	}
	var per []string
	for _, k := range []string{b.keys.pauses(), b.keys.pauseLog(), b.keys.purges(), b.keys.fleet()} {
		n, err := c.MemoryUsage(ctx, k, 0).Result()
		must(err)
		per = append(per, fmt.Sprintf("%s: %.0f B per entry (%d B with 101)", k, float64(n-grown[k])/100, n))
	}
	pause, err := c.MemoryUsage(ctx, b.keys.pause("paused7.example"), 0).Result()
	must(err)
	t.Logf("the keys that grow:\n%s\na pause key: %d B", strings.Join(per, "\n"), pause)
	for _, k := range []string{b.keys.pauses(), b.keys.pauseLog()} {
		if ttl, err := c.PTTL(ctx, k).Result(); err != nil || ttl <= 0 {
			t.Errorf("key %s after 101 pauses: PTTL %v, %v; want a TTL", k, ttl, err)
		}
	}
	must(b.Close(context.Background()))
}
