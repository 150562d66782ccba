package redisbackend

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// logBuffer is a slog text log, safe for concurrent use.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// logger returns a logger writing to l at every level.
func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// awaitPolicy polls until b has read the maxmemory-policy.
func awaitPolicy(t *testing.T, b *Backend) string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for b.EvictionPolicy() == "" {
		if time.Now().After(deadline) {
			t.Fatal("the maxmemory-policy was not read within 10s of the first call")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return b.EvictionPolicy()
}

// TestEvictionWarning: the first call reads the server's maxmemory-policy
// in the background; a policy that can evict the fleet's keys is logged
// at Warn once per Backend, noeviction is not. On a real server, its
// policy set with CONFIG SET.
func TestEvictionWarning(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	c := newClient(t, "unix", s.Sock)
	tests := []struct {
		policy string
		warn   bool
	}{
		{"noeviction", false},
		{"allkeys-lru", true},
		{"volatile-ttl", true}, // every key of ours has a TTL
	}
	for _, tc := range tests { // one server: one policy at a time
		t.Run(tc.policy, func(t *testing.T) {
			if err := c.ConfigSet(t.Context(), "maxmemory-policy", tc.policy).Err(); err != nil {
				t.Fatal(err)
			}
			var logs logBuffer
			b := New(c, WithHeartbeat(-1), WithLogger(logs.logger()))
			if got := b.EvictionPolicy(); got != "" {
				t.Fatalf("EvictionPolicy before any call = %q; want \"\"", got)
			}
			if _, _, err := b.Start(t.Context(), "evict.example", "a", time.Second); err != nil {
				t.Fatal(err)
			}
			if got := awaitPolicy(t, b); got != tc.policy {
				t.Errorf("EvictionPolicy = %q; want %q", got, tc.policy)
			}
			// Asked again: still one warning.
			if got, err := b.CheckEviction(t.Context()); err != nil || got != tc.policy {
				t.Errorf("CheckEviction = %q, %v", got, err)
			}
			n := strings.Count(logs.String(), "level=WARN")
			t.Logf("maxmemory-policy %s: %d warnings after two checks", tc.policy, n)
			switch {
			case tc.warn && n != 1:
				t.Errorf("%d warnings for %s; want 1:\n%s", n, tc.policy, logs.String())
			case tc.warn && !strings.Contains(logs.String(), "maxmemory_policy="+tc.policy):
				t.Errorf("the warning does not name the policy:\n%s", logs.String())
			case !tc.warn && n != 0:
				t.Errorf("a warning for %s:\n%s", tc.policy, logs.String())
			}
		})
	}
}

// TestEvictionRefused: a server that refuses CONFIG GET (an ACL user
// without it on Redis, and miniredis, which has no CONFIG) leaves the
// policy unknown, logs no warning and costs nothing else: calls succeed
// and the Backend stays healthy.
func TestEvictionRefused(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	admin := newClient(t, "unix", s.Sock)
	if err := admin.Do(t.Context(), "ACL", "SETUSER", "crawler", "on", ">secret", "~*", "&*", "+@all", "-config").Err(); err != nil {
		t.Fatal(err)
	}
	acl := clientOptions("unix", s.Sock)
	acl.Username, acl.Password = "crawler", "secret"
	m := newMiniredis(t)
	tests := []struct {
		name   string
		client *redis.Client
	}{
		{"ACL without CONFIG", redis.NewClient(acl)},
		{"miniredis", newClient(t, "tcp", m.Addr())},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			t.Cleanup(func() { _ = tc.client.Close() })
			var logs logBuffer
			b := New(tc.client, WithHeartbeat(-1), WithLogger(logs.logger()))
			policy, err := b.CheckEviction(t.Context())
			if err == nil || policy != "" || !refused(err) {
				t.Errorf("CheckEviction = %q, %v; want the server's refusal", policy, err)
			}
			for i := range 3 {
				if _, _, err := b.Start(t.Context(), fmt.Sprintf("refused%d.example", i), "a", time.Second); err != nil {
					t.Fatal(err)
				}
			}
			if got := b.EvictionPolicy(); got != "" {
				t.Errorf("EvictionPolicy = %q; want \"\"", got)
			}
			if st := b.Stats(); !b.Healthy() || st.Errors != 0 {
				t.Errorf("the refusal counted against Redis: healthy %v, stats %+v", b.Healthy(), st)
			}
			if strings.Contains(logs.String(), "level=WARN") {
				t.Errorf("a warning for a refused CONFIG GET:\n%s", logs.String())
			}
		})
	}
}
