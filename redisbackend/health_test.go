package redisbackend

// Healthy and the breaker through faults that do not close the
// connection: a paused Redis (CLIENT PAUSE) answers late rather than
// never, and a call that misses its bound must count as a failure even
// when the client does not bound socket I/O by the context.

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestHealthyFollowsTheLatestCall: one failed call makes the Backend
// unhealthy at once, before the breaker opens; the next call that
// succeeds makes it healthy again.
func TestHealthyFollowsTheLatestCall(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	b := New(newClient(t, "unix", s.Sock), WithHeartbeat(-1), WithTimeout(100*time.Millisecond), WithBreaker(5, time.Second))
	if !b.Healthy() {
		t.Fatal("a new Backend is not Healthy")
	}
	if _, err := b.Load(t.Context(), "https://a.example"); err != nil {
		t.Fatal(err)
	}
	s.Stop()
	if _, err := b.Load(t.Context(), "https://a.example"); err == nil {
		t.Fatal("Load with Redis stopped succeeded")
	}
	if b.Healthy() {
		t.Error("Healthy after a failed call")
	}
	if st := b.Stats(); st.Trips != 0 || st.Errors != 1 {
		t.Errorf("stats %+v; want one error and the breaker still closed", st)
	}
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := b.Load(t.Context(), "https://a.example")
		if err == nil {
			break
		}
		if b.Healthy() {
			t.Fatalf("Healthy after another failed call: %v", err)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no recovery 10s after the restart: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !b.Healthy() {
		t.Error("not Healthy after a successful call")
	}
}

// TestClientPause: CLIENT PAUSE holds every reply for 1.5 s. Calls must
// fail within the per-call timeout, count as failures and open the
// breaker, and the Backend must recover once Redis answers again, with a
// client that bounds socket I/O by the context and with one that does
// not (go-redis's defaults: it would wait its 3 s ReadTimeout, longer
// than the pause, and every call would succeed late).
func TestClientPause(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		options func(sock string) *redis.Options
	}{
		{"ContextTimeoutEnabled", func(sock string) *redis.Options { return clientOptions("unix", sock) }},
		{"go-redis defaults", func(sock string) *redis.Options { return &redis.Options{Network: "unix", Addr: sock} }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startRedisServer(t)
			client := redis.NewClient(tc.options(s.Sock))
			t.Cleanup(func() { _ = client.Close() })
			b := New(client, outageOptions...)
			if b.enforced != client.Options().ContextTimeoutEnabled {
				t.Fatalf("enforced = %v; want the client's ContextTimeoutEnabled", b.enforced)
			}
			if _, err := b.Reserve(t.Context(), "outage.example", time.Second); err != nil {
				t.Fatal(err)
			}
			admin := newClient(t, "unix", s.Sock)
			if err := admin.Do(t.Context(), "CLIENT", "PAUSE", 1500, "ALL").Err(); err != nil {
				t.Fatal(err)
			}
			checkOutage(t, b)
			awaitRecovery(t, b)
		})
	}
}

// TestBoundedAbandonsLateCalls: bounded returns at the context's end
// with its error, whatever the call does, and the call's own error when
// it ends first.
func TestBoundedAbandonsLateCalls(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	defer close(release)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := bounded(ctx, func(context.Context) error {
		<-release
		return nil
	})
	if err == nil || !errors.Is(err, ctx.Err()) {
		t.Errorf("bounded with an ended context = %v; want its error", err)
	}
	want := errors.New("answered")
	if err := bounded(t.Context(), func(context.Context) error { return want }); !errors.Is(err, want) {
		t.Errorf("bounded = %v; want the call's error", err)
	}
}
