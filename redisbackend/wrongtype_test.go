package redisbackend

import (
	"testing"
	"time"
)

// TestWrongTypeKeys: keys of another type than this package writes (a
// foreign write) are not Redis failures: Load counts the record as
// corrupt and loads none, Lease takes a lease key over, Reserve replaces
// a pace, and Store then writes the record. The Backend stays healthy,
// so one bad key cannot open the breaker for every host.
func TestWrongTypeKeys(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	c := newClient(t, "unix", s.Sock)
	b := New(c, WithHeartbeat(-1))
	ctx := t.Context()
	origin := "https://wrong.example"
	for _, key := range []string{b.keys.record(origin), b.keys.lease(origin), b.keys.pace("wrong.example")} {
		if err := c.RPush(ctx, key, "x").Err(); err != nil {
			t.Fatal(err)
		}
	}
	rec, err := b.Load(ctx, origin)
	if err != nil || rec != nil {
		t.Fatalf("Load of a list = %v, %v; want nil, nil", rec, err)
	}
	if n := b.Stats().CorruptRecords; n != 1 {
		t.Errorf("CorruptRecords = %d; want 1", n)
	}
	l, ok, _, err := b.Lease(ctx, origin, time.Minute)
	if err != nil || !ok {
		t.Fatalf("Lease over a list = %v, %v; want granted", ok, err)
	}
	if err := b.Store(ctx, origin, l, sampleRecordForTTL()); err != nil {
		t.Fatalf("Store over a list: %v", err)
	}
	if rec, err := b.Load(ctx, origin); err != nil || rec == nil {
		t.Errorf("Load after Store = %v, %v; want the record", rec, err)
	}
	if w, err := b.Reserve(ctx, "wrong.example", time.Hour); err != nil || w != 0 {
		t.Errorf("Reserve over a list = %v, %v; want granted", w, err)
	}
	if !b.Healthy() || b.Stats().Errors != 0 {
		t.Errorf("keys of another type counted as failures: healthy %v, stats %+v", b.Healthy(), b.Stats())
	}
}
