package redisbackend

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// opsBut returns the calls l logged, in order, but a new connection's
// set-up (go-redis's HELLO and CLIENT commands).
func (l *callLog) opsBut() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var ops []string
	for _, c := range l.calls {
		if c.op != "hello" && c.op != "client" && c.op != "pipeline client" {
			ops = append(ops, c.op)
		}
	}
	return ops
}

// TestFirstRoundTrip: a Backend's heartbeat, eviction check, purge-log
// cursor and full read of the pauses go in one pipeline, its first round
// trip after the first call, and the answers are the ones the calls would
// have given: the fleet's size, the policy, a cursor after which a purge
// is seen, and the pauses begun before. Each answer serves one caller
// (the second Purges("") asks for itself), and only while fresh. A server
// that refuses CONFIG GET answers the rest.
func TestFirstRoundTrip(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	admin := newClient(t, "unix", s.Sock)
	if err := admin.Do(t.Context(), "ACL", "SETUSER", "crawler", "on", ">secret", "~*", "&*", "+@all", "-config").Err(); err != nil {
		t.Fatal(err)
	}
	// Another worker of the fleet: its heartbeat, a paused host, and the
	// scripts loaded, so that the first round trip is one pipeline.
	other := New(admin, WithPrefix("boot:"), WithWorkerID("other"))
	if _, _, _, _, err := other.Pause(t.Context(), "paused.example", time.Minute, time.Second, time.Hour); err != nil {
		t.Fatal(err)
	}
	awaitPolicy(t, other)
	if _, _, _, err := other.Purges(t.Context(), ""); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name    string
		opts    func(*redis.Options)
		policy  string // "": refused
		advance time.Duration
		wantOps []string // the calls, in order, up to the second Purges("")
	}{
		{
			name: "single Redis", policy: "noeviction",
			wantOps: []string{"get", "pipeline heartbeat", "purge cursor"},
		},
		{
			name: "CONFIG refused", policy: "",
			opts:    func(o *redis.Options) { o.Username, o.Password = "crawler", "secret" },
			wantOps: []string{"get", "pipeline heartbeat", "purge cursor"},
		},
		{
			name: "answers older than bootFresh", policy: "noeviction", advance: bootFresh,
			wantOps: []string{"get", "pipeline heartbeat", "pipeline evalsha", "purge cursor", "purge cursor"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := clientOptions("unix", s.Sock)
			if tc.opts != nil {
				tc.opts(o)
			}
			c := redis.NewClient(o)
			t.Cleanup(func() { _ = c.Close() })
			var log callLog
			c.AddHook(&log)
			var logs logBuffer
			clk := &fakeClock{t: time.Now()}
			b := New(c, WithPrefix("boot:"), WithWorkerID("w"), WithLogger(logs.logger()), func(c *config) { c.now = clk.now })
			t.Cleanup(func() { _ = b.Close(context.Background()) })

			if _, err := b.Load(t.Context(), "https://a.example"); err != nil { // the first call
				t.Fatal(err)
			}
			deadline := time.Now().Add(10 * time.Second)
			for b.FleetSize() < 2 || (tc.policy != "" && b.EvictionPolicy() == "") {
				if time.Now().After(deadline) {
					t.Fatalf("after 10 s: FleetSize %d, EvictionPolicy %q", b.FleetSize(), b.EvictionPolicy())
				}
				time.Sleep(5 * time.Millisecond)
			}
			clk.advance(tc.advance)
			hosts, _, more, err := b.PausesSince(t.Context(), "", bootPauseRead)
			if err != nil || more || !slices.Equal(hosts, []string{"paused.example"}) {
				t.Errorf("PausesSince(\"\") = %q, more %v, %v; want [paused.example]", hosts, more, err)
			}
			_, cursor, all, err := b.Purges(t.Context(), "")
			if err != nil || all || cursor == "" {
				t.Fatalf("Purges(\"\") = %q, all %v, %v", cursor, all, err)
			}
			if _, _, _, err := b.Purges(t.Context(), ""); err != nil { // a second caller asks for itself
				t.Fatal(err)
			}
			if got := log.opsBut(); !slices.Equal(got, tc.wantOps) {
				t.Errorf("calls %q; want %q", got, tc.wantOps)
			}
			if got := b.EvictionPolicy(); got != tc.policy {
				t.Errorf("EvictionPolicy = %q; want %q", got, tc.policy)
			}
			if tc.policy == "" && !strings.Contains(logs.String(), "cannot read maxmemory-policy") {
				t.Errorf("no Debug line about the refused CONFIG GET:\n%s", logs.String())
			}
			if st := b.Stats(); st.Errors != 0 || !b.Healthy() {
				t.Errorf("Stats %+v, healthy %v; want no error", st, b.Healthy())
			}
			// The cursor the round trip read sees a purge made after it.
			if err := other.Forget(t.Context(), "https://forgotten.example"); err != nil {
				t.Fatal(err)
			}
			got, _, all, err := b.Purges(t.Context(), cursor)
			if err != nil || all || !slices.Contains(got, "https://forgotten.example") {
				t.Errorf("Purges(cursor) = %q, all %v, %v; want the purge made after the first round trip", got, all, err)
			}
		})
	}
}
