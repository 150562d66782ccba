package redisbackend

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// mustPurges calls Purges and fails t on an error.
func mustPurges(t *testing.T, b *Backend, cursor string) ([]string, string, bool) {
	t.Helper()
	origins, next, all, err := b.Purges(t.Context(), cursor)
	if err != nil {
		t.Fatalf("Purges(%q): %v", cursor, err)
	}
	return origins, next, all
}

// mustForget calls Forget and fails t on an error.
func mustForget(t *testing.T, b *Backend, origins ...string) {
	t.Helper()
	for _, o := range origins {
		if err := b.Forget(t.Context(), o); err != nil {
			t.Fatalf("Forget(%s): %v", o, err)
		}
	}
}

// TestForget: beyond the contract, on a real server: Forget deletes the
// record and the lease, the log keeps its TTL, a read with nothing new is
// one command, and a reader finds each purge after its cursor once.
func TestForget(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	c := newClient(t, "unix", s.Sock)
	b := New(c, WithHeartbeat(-1))
	other := New(c, WithHeartbeat(-1)) // another worker, reading the log
	ctx := t.Context()
	for _, b := range []*Backend{b, other} {
		// Read the maxmemory-policy now rather than in the background,
		// within the commands counted below.
		if _, err := b.CheckEviction(ctx); err != nil {
			t.Fatal(err)
		}
	}

	_, c0, all := mustPurges(t, other, "")
	if _, _, ok := parseCursor(c0); all || !ok {
		t.Fatalf(`Purges("") = %q, all %v; want a cursor`, c0, all)
	}
	if ttl := c.PTTL(ctx, b.keys.purges()).Val(); ttl < purgeLogTTL-time.Minute {
		t.Errorf("purge log TTL %v; want about %v", ttl, purgeLogTTL)
	}

	origin := "https://forgotten.example"
	l, _, _, err := b.Lease(ctx, origin, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Store(ctx, origin, l, sampleRecordForTTL()); err != nil {
		t.Fatal(err)
	}
	if _, ok, _, err := b.Lease(ctx, origin, time.Hour); err != nil || !ok {
		t.Fatalf("Lease = %v, %v", ok, err)
	}
	mustForget(t, b, origin, "https://never-stored.example")
	if n := c.Exists(ctx, b.keys.record(origin), b.keys.lease(origin)).Val(); n != 0 {
		t.Errorf("%d of the record and lease keys left after Forget", n)
	}

	got, c1, all := mustPurges(t, other, c0)
	if all || !slices.Equal(got, []string{origin, "https://never-stored.example"}) {
		t.Errorf("Purges = %q, all %v; want both origins", got, all)
	}

	// Nothing new: the same cursor back, for one command.
	hook := &countingHook{}
	c.AddHook(hook)
	got, c2, all := mustPurges(t, other, c1)
	if len(got) != 0 || all || c2 != c1 {
		t.Errorf("Purges(latest) = %q, %q, all %v; want nothing and the same cursor", got, c2, all)
	}
	if n := hook.n.Load(); n != 1 {
		t.Errorf("Purges with nothing purged sent %d commands; want 1", n)
	}
}

// TestPurgesCut: a cursor the log no longer reaches asks the reader to
// drop everything (all) and gives the current cursor: trimmed past it
// (over 1,024 purges), the log deleted, replaced by a key of another
// type, or a cursor that is no stream id. A reader within the log gets
// exactly the purges after its cursor.
func TestPurgesCut(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	c := newClient(t, "unix", s.Sock)
	ctx := t.Context()
	tests := []struct {
		name string
		cut  func(b *Backend) // what happens after the cursor was read
	}{
		{"trimmed", func(b *Backend) {
			for i := range purgeLogLen + 300 {
				mustForget(t, b, fmt.Sprintf("https://trim%d.example", i))
			}
		}},
		{"deleted", func(b *Backend) {
			mustForget(t, b, "https://a.example")
			if err := c.Del(ctx, b.keys.purges()).Err(); err != nil {
				t.Fatal(err)
			}
		}},
		{"deleted and written again", func(b *Backend) {
			if err := c.Del(ctx, b.keys.purges()).Err(); err != nil {
				t.Fatal(err)
			}
			mustForget(t, b, "https://a.example", "https://b.example")
		}},
		{"wrong type", func(b *Backend) {
			if err := c.Set(ctx, b.keys.purges(), "x", 0).Err(); err != nil {
				t.Fatal(err)
			}
		}},
		{"wrong type, then a purge", func(b *Backend) {
			if err := c.Set(ctx, b.keys.purges(), "x", 0).Err(); err != nil {
				t.Fatal(err)
			}
			mustForget(t, b, "https://a.example")
		}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := New(c, WithHeartbeat(-1), WithPrefix(fmt.Sprintf("cut%d:", i)))
			mustForget(t, b, "https://before.example")
			_, cursor, _ := mustPurges(t, b, "")
			tc.cut(b)
			got, next, all := mustPurges(t, b, cursor)
			if !all || len(got) != 0 || next == "" || next == cursor {
				t.Fatalf("Purges(cursor before the cut) = %q, %q, all %v; want all and a new cursor", got, next, all)
			}
			if got, n2, all := mustPurges(t, b, next); all || len(got) != 0 || n2 != next {
				t.Errorf("Purges(the cursor given after the cut) = %q, %q, all %v; want nothing", got, n2, all)
			}
			if !b.Healthy() {
				t.Errorf("a cut log made the Backend unhealthy")
			}
		})
	}

	t.Run("within the log", func(t *testing.T) {
		b := New(c, WithHeartbeat(-1), WithPrefix("within:"))
		var want []string
		var cursor string
		for i := range purgeLogLen + 300 {
			if i == 400 {
				_, cursor, _ = mustPurges(t, b, "")
			}
			o := fmt.Sprintf("https://w%d.example", i)
			if i >= 400 {
				want = append(want, o)
			}
			mustForget(t, b, o)
		}
		got, _, all := mustPurges(t, b, cursor)
		if all || !slices.Equal(got, want) {
			t.Errorf("Purges from purge 400 of %d: %d origins, all %v; want the %d after it in order",
				purgeLogLen+300, len(got), all, len(want))
		}
		if n := c.XLen(ctx, b.keys.purges()).Val(); n > purgeLogLen+200 {
			t.Errorf("the log holds %d entries; want about %d", n, purgeLogLen)
		}
	})

	t.Run("not a cursor", func(t *testing.T) {
		b := New(c, WithHeartbeat(-1), WithPrefix("garbage:"))
		_, valid, _ := mustPurges(t, b, "")
		id, _, _ := strings.Cut(valid, "/")
		for _, cursor := range []string{"x", "1-", "-1", "1-2-3/a", "+", "0-0", "0-0/a", "99999999999999999999-0/a",
			id, id + "/", id + "/wrong-nonce", "/" + valid} {
			if _, next, all := mustPurges(t, b, cursor); !all || next != valid {
				t.Errorf("Purges(%q) = %q, all %v; want all and %q", cursor, next, all, valid)
			}
		}
	})
}

// TestPurgesAfterOutage: Redis restarted empty loses the log. Within the
// recovery grace after a failed call the cut is not reported yet
// (nothing, the same cursor), so that workers still pacing locally do not
// each fetch every robots.txt again; once the grace has passed it is.
func TestPurgesAfterOutage(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	clk := &fakeClock{t: time.Now()}
	b := New(newClient(t, "unix", s.Sock), WithHeartbeat(-1), WithRecoveryGrace(time.Minute),
		func(c *config) { c.now = clk.now })
	mustForget(t, b, "https://a.example")
	_, cursor, _ := mustPurges(t, b, "")

	s.Stop()
	if _, err := b.Load(t.Context(), "https://a.example"); err == nil {
		t.Fatal("Load with Redis stopped succeeded")
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	got, next, all := mustPurges(t, b, cursor)
	if all || len(got) != 0 || next != cursor {
		t.Errorf("Purges within the grace = %q, %q, all %v; want nothing and the same cursor", got, next, all)
	}
	clk.advance(time.Minute)
	if _, next, all := mustPurges(t, b, cursor); !all || next == cursor {
		t.Errorf("Purges after the grace = %q, all %v; want all and a new cursor", next, all)
	}
}

// TestForgetMiniredis: the purge log works on miniredis, which the fleet
// example and robotsadmin's tests use.
func TestForgetMiniredis(t *testing.T) {
	t.Parallel()
	m := newMiniredis(t)
	b := New(newClient(t, "tcp", m.Addr()), WithHeartbeat(-1))
	_, c0, _ := mustPurges(t, b, "")
	mustForget(t, b, "https://a.example", "https://b.example")
	if got, _, all := mustPurges(t, b, c0); all || !slices.Equal(got, []string{"https://a.example", "https://b.example"}) {
		t.Errorf("Purges = %q, all %v", got, all)
	}
	m.Del(b.keys.purges())
	if _, _, all := mustPurges(t, b, c0); !all {
		t.Errorf("Purges after the log was deleted: all false; want true")
	}
	var _ backend.Forgetter = b
}
