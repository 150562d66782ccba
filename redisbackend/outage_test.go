package redisbackend

// Outages: a server that goes away (closed, killed) or hangs (stopped
// with SIGSTOP). Calls must fail within a bounded time, the breaker must
// then fail them at once, and the Backend must recover when the server is
// back. The time bounds here are upper bounds with generous slack; they
// catch a call that hangs for the client's default timeouts, not jitter.

import (
	"context"
	"errors"
	"github.com/robotsext/robotsext/backend"
	"syscall"
	"testing"
	"time"
)

// outageOptions make the breaker quick to open and to probe.
var outageOptions = []Option{WithTimeout(100 * time.Millisecond), WithBreaker(3, 200*time.Millisecond), WithHeartbeat(-1)}

// failFast bounds a failing call: the per-call timeout plus slack for a
// loaded machine.
const failFast = 2 * time.Second

// checkOutage makes calls while the server is away: each fails within
// failFast, and after the threshold they fail with ErrUnavailable.
func checkOutage(t *testing.T, b *Backend) {
	t.Helper()
	unavailable := 0
	for i := range 10 {
		start := time.Now()
		_, err := b.Reserve(t.Context(), "outage.example", time.Second)
		if took := time.Since(start); took > failFast {
			t.Errorf("call %d during the outage took %v; want it to fail within %v", i, took, failFast)
		}
		if err == nil {
			t.Fatalf("call %d during the outage succeeded", i)
		}
		if errors.Is(err, ErrUnavailable) {
			unavailable++
		}
	}
	if unavailable == 0 {
		t.Errorf("no call failed fast with ErrUnavailable: the breaker never opened")
	}
	if b.Healthy() {
		t.Errorf("Healthy during the outage")
	}
	if _, err := b.Load(t.Context(), "https://outage.example"); err == nil {
		t.Errorf("Load during the outage succeeded")
	}
	if _, _, _, err := b.Lease(t.Context(), "https://outage.example", time.Second); err == nil {
		t.Errorf("Lease during the outage succeeded")
	}
}

// awaitRecovery polls until a call succeeds again.
func awaitRecovery(t *testing.T, b *Backend) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := b.Reserve(t.Context(), "recovered.example", time.Second)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no recovery 10s after the server came back: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !b.Healthy() {
		t.Errorf("not Healthy after a successful call")
	}
	st := b.Stats()
	if st.Trips == 0 || st.Rejected == 0 || st.Errors == 0 {
		t.Errorf("stats after an outage %+v; want trips, rejected and errors counted", st)
	}
}

// TestOutageMiniredis: miniredis closed mid-test, then restarted.
func TestOutageMiniredis(t *testing.T) {
	t.Parallel()
	m := newMiniredis(t)
	b := New(newClient(t, "tcp", m.Addr()), outageOptions...)
	if _, err := b.Reserve(t.Context(), "outage.example", time.Second); err != nil {
		t.Fatal(err)
	}
	m.Close()
	checkOutage(t, b)
	if err := m.Restart(); err != nil {
		t.Fatal(err)
	}
	awaitRecovery(t, b)
}

// TestOutageRedisKilled: a real server killed mid-test (its state lost),
// then started again on the same socket.
func TestOutageRedisKilled(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	b := New(newClient(t, "unix", s.Sock), outageOptions...)
	if _, err := b.Reserve(t.Context(), "outage.example", time.Second); err != nil {
		t.Fatal(err)
	}
	s.Stop()
	checkOutage(t, b)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	awaitRecovery(t, b)
	// The restarted server knows no scripts: EVALSHA's NOSCRIPT fallback
	// must have loaded them again, for every script.
	origin := "https://after-restart.example"
	l, ok, _, err := b.Lease(t.Context(), origin, time.Minute)
	if err != nil || !ok {
		t.Fatalf("Lease after the restart = %v, %v", ok, err)
	}
	if err := b.Store(t.Context(), origin, l, &backend.Record{Expires: time.Now().Add(time.Hour)}); err != nil {
		t.Fatalf("Store after the restart: %v", err)
	}
}

// TestOutageRedisHung: a real server that stops answering (SIGSTOP) makes
// calls time out after the per-call timeout, not the client's defaults,
// and the Backend recovers once it answers again (SIGCONT).
func TestOutageRedisHung(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	b := New(newClient(t, "unix", s.Sock), outageOptions...)
	if _, err := b.Reserve(t.Context(), "outage.example", time.Second); err != nil {
		t.Fatal(err)
	}
	s.signal(t, syscall.SIGSTOP)
	defer s.signal(t, syscall.SIGCONT) // whatever happens, let Stop kill it
	checkOutage(t, b)
	s.signal(t, syscall.SIGCONT)
	awaitRecovery(t, b)
}

// TestCancelledCallsDoNotTrip: callers giving up say nothing about Redis.
func TestCancelledCallsDoNotTrip(t *testing.T) {
	t.Parallel()
	m := newMiniredis(t)
	b := New(newClient(t, "tcp", m.Addr()), outageOptions...)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for range 10 {
		if _, err := b.Reserve(ctx, "cancelled.example", time.Second); !errors.Is(err, context.Canceled) {
			t.Fatalf("Reserve with a cancelled context = %v; want context.Canceled", err)
		}
	}
	if !b.Healthy() || b.Stats().Errors != 0 {
		t.Fatalf("cancelled calls counted against Redis: healthy %v, stats %+v", b.Healthy(), b.Stats())
	}
}

// TestNoClient: a Backend without a client fails every call with
// ErrNoClient instead of panicking.
func TestNoClient(t *testing.T) {
	t.Parallel()
	for _, b := range []*Backend{New(nil), {}} {
		if _, err := b.Load(t.Context(), "https://a.example"); !errors.Is(err, ErrNoClient) {
			t.Errorf("Load = %v; want ErrNoClient", err)
		}
		if _, err := b.Reserve(t.Context(), "a.example", time.Second); !errors.Is(err, ErrNoClient) {
			t.Errorf("Reserve = %v; want ErrNoClient", err)
		}
		if b.FleetSize() != 1 {
			t.Errorf("FleetSize = %d; want 1", b.FleetSize())
		}
		if err := b.Probe(t.Context(), ""); !errors.Is(err, ErrNoClient) {
			t.Errorf("Probe = %v; want ErrNoClient", err)
		}
	}
}

// TestProbeWhole: Probe with scope "" asks a single Redis whether it
// answers (the Extension settles a failed call's suspicion with it): nil
// while the server runs, the error once it is stopped, nil again when it
// is back.
func TestProbeWhole(t *testing.T) {
	t.Parallel()
	srv := startRedisServer(t)
	b := New(newClient(t, "unix", srv.Sock))
	steps := []struct {
		name   string
		do     func() error
		wantOK bool
	}{
		{"running", func() error { return nil }, true},
		{"stopped", func() error { srv.Stop(); return nil }, false},
		{"started again", srv.Start, true},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if err := b.Probe(t.Context(), ""); (err == nil) != st.wantOK {
			t.Errorf("%s: Probe = %v, want ok %v", st.name, err, st.wantOK)
		}
	}
}

// TestProbeWholeClosesTheBreaker: a single Redis that answers the
// Extension's probe (a failed call's suspicion) closes its breaker, as a
// Cluster master that answers closes its own: the call the Extension
// makes again once the suspicion clears is sent, not failed at once by a
// breaker a stall of this process opened.
func TestProbeWholeClosesTheBreaker(t *testing.T) {
	t.Parallel()
	srv := startRedisServer(t)
	b := New(newClient(t, "unix", srv.Sock), WithHeartbeat(-1))
	for range DefaultBreakerFailures {
		ticket, _ := b.br.allow()
		b.br.record(failure, ticket)
	}
	if _, err := b.Load(t.Context(), "https://a.example"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Load with the breaker open = %v; want ErrUnavailable", err)
	}
	if err := b.Probe(t.Context(), ""); err != nil {
		t.Fatalf("Probe = %v", err)
	}
	if _, err := b.Load(t.Context(), "https://a.example"); err != nil {
		t.Errorf("Load after the probe answered = %v; want it sent", err)
	}
}
