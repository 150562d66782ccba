package lifecycle

import (
	"context"
	"testing"
	"time"
)

// TestPinKeepsOrigin proves that an origin in use is not evicted: held
// (Pin to Unpin), then for InUseAfter after its last Unpin, across a re-fetch
// of its robots.txt (the pins pass from entry to entry), and that the
// bounds wait when every origin is in use. The byte bound passes over
// held origins only: an origin in use after its last Unpin is evicted
// for its bytes once nothing else is left. Once that time lapsed the
// origin is evicted as any other. Without the pins, the least recently
// used origin goes first, in use or not.
func TestPinKeepsOrigin(t *testing.T) {
	t.Parallel()
	a, b, c, d := Origin{Host: "a.test"}, Origin{Host: "b.test"}, Origin{Host: "c.test"}, Origin{Host: "d.test"}
	for _, tt := range []struct {
		name string
		size int
		// use pins a (and may unpin it or move the clock) once a is
		// cached, before the others are fetched.
		use                func(t *testing.T, ca *Cache, clk *clock, en *Entry)
		then               []Origin
		keptA              bool
		origins, evictions int
	}{
		{"held", 2, func(t *testing.T, ca *Cache, _ *clock, en *Entry) { ca.Pin(en) }, []Origin{b, c, d}, true, 2, 2},
		{"in use after Unpin", 2, func(t *testing.T, ca *Cache, _ *clock, en *Entry) {
			ca.Pin(en)
			ca.Unpin(en)
		}, []Origin{b, c, d}, true, 2, 2},
		{"time in use lapsed", 2, func(t *testing.T, ca *Cache, clk *clock, en *Entry) {
			ca.Pin(en)
			ca.Unpin(en)
			clk.Advance(InUseAfter + time.Second)
		}, []Origin{b, c}, false, 2, 1},
		{"in use from the latest Get after a long hold", 2, func(t *testing.T, ca *Cache, clk *clock, en *Entry) {
			ca.Pin(en)
			clk.Advance(InUseAfter + 10*time.Second) // a long wait in the hook
			if _, err := ca.Get(context.Background(), b); err != nil {
				t.Fatal(err)
			}
			ca.Unpin(en) // in use from b's Get on, not from a's
		}, []Origin{c, d}, true, 2, 2},
		{"never pinned", 2, func(*testing.T, *Cache, *clock, *Entry) {}, []Origin{b, c}, false, 2, 1},
		{"held across a re-fetch", 2, func(t *testing.T, ca *Cache, clk *clock, en *Entry) {
			ca.Pin(en)
			clk.Advance(25 * time.Hour) // a's entry expires: the next Get fetches again
			again, err := ca.Get(context.Background(), a)
			if err != nil || again == en {
				t.Fatalf("no re-fetch: %v", err)
			}
		}, []Origin{b, c, d}, true, 2, 2},
		{"every origin held", 1, func(t *testing.T, ca *Cache, _ *clock, en *Entry) { ca.Pin(en) }, []Origin{b}, true, 2, 0},
		// bytes: the byte bound holds two entries, the count bound many.
		{"held, over the byte bound", -2, func(t *testing.T, ca *Cache, _ *clock, en *Entry) { ca.Pin(en) }, []Origin{b, c, d}, true, 2, 2},
		{"every origin in use after Unpin, over the byte bound", -2, func(t *testing.T, ca *Cache, _ *clock, en *Entry) {
			for _, o := range []Origin{b, c} {
				ca.Pin(en)
				ca.Unpin(en)
				var err error
				if en, err = ca.Get(context.Background(), o); err != nil {
					t.Fatal(err)
				}
			}
			ca.Pin(en)
			ca.Unpin(en)
		}, []Origin{d}, false, 2, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			mt, cl := mock()
			for _, o := range []Origin{a, b, c, d} {
				mt.RegisterResponder("GET", o.RobotsURL(), respond(200, testRules))
			}
			ca := newTestCache(cl, clk, func(cfg *Config) { cfg.Size = tt.size })
			en, err := ca.Get(context.Background(), a)
			if err != nil {
				t.Fatal(err)
			}
			if tt.size < 0 { // -n: n entries' bytes, any count
				ca.lru.max, ca.lru.maxBytes = 1<<30, int64(-tt.size)*en.Size
			}
			tt.use(t, ca, clk, en)
			for _, o := range tt.then {
				if _, err := ca.Get(context.Background(), o); err != nil {
					t.Fatal(err)
				}
			}
			if kept := ca.Peek(a) != nil; kept != tt.keptA {
				t.Errorf("a.test cached: %v, want %v", kept, tt.keptA)
			}
			if n := ca.Counts(); n.Origins != tt.origins || n.Evictions != uint64(tt.evictions) {
				t.Errorf("%d origins, %d evictions; want %d and %d", n.Origins, n.Evictions, tt.origins, tt.evictions)
			}
		})
	}
}
