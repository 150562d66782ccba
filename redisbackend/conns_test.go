package redisbackend

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext/backend"
)

// slowConn is a connection whose every write (one per command, or per
// pipeline) takes lag: a Redis a little far away, whose calls hold their
// connection for lag each.
type slowConn struct {
	net.Conn
	lag time.Duration
}

func (c slowConn) Write(p []byte) (int, error) {
	time.Sleep(c.lag)
	return c.Conn.Write(p)
}

// slowClient returns a client of the server at sock with a pool of pool
// connections, each command taking lag on its connection.
func slowClient(t *testing.T, sock string, pool int, lag time.Duration) *redis.Client {
	t.Helper()
	o := clientOptions("unix", sock)
	o.PoolSize, o.ReadTimeout, o.WriteTimeout = pool, 2*time.Second, 2*time.Second
	o.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return slowConn{c, lag}, nil
	}
	c := redis.NewClient(o)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestBurstBeyondThePool: 40 calls at once through a client with a pool
// of 2 connections, each call taking 50 ms on its connection: the burst
// takes a second or two on the pool, past the per-call timeout of 500 ms.
// With the Backend's calls bounded by the pool (the default), every call
// waits its turn in the process and succeeds, and nothing counts against
// Redis; urgent calls (Unclaim) that waited longer than the timeout are
// counted in SlowWaits and logged at Warn once, a burst of Load is not.
// Without the bound (WithInFlight(-1), as before), the calls wait at
// go-redis's pool within their timeout and those at the back fail as if
// Redis did, and open the breaker. It takes real time on purpose: the
// failure it guards against is a wait for a connection outlasting a real
// timeout; the margins are tenfold (a call takes 50 ms of its 500 ms).
func TestBurstBeyondThePool(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	load := func(b *Backend, i int) error {
		_, err := b.Load(t.Context(), fmt.Sprintf("https://h%d.example", i))
		return err
	}
	unclaim := func(b *Backend, i int) error { return b.Unclaim(t.Context(), fmt.Sprintf("h%d.example", i), "token") }
	for _, tc := range []struct {
		name  string
		call  func(b *Backend, i int) error
		opts  []Option
		bound bool
		warns int
	}{
		{"Load bounded by the pool", load, nil, true, 0},
		{"Unclaim bounded by the pool", unclaim, nil, true, 1},
		{"Load unbounded", load, []Option{WithInFlight(-1)}, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var logs logBuffer
			opts := append([]Option{WithPrefix(strings.ReplaceAll(tc.name, " ", "-") + ":"), WithHeartbeat(-1),
				WithTimeout(500 * time.Millisecond), WithLogger(logs.logger())}, tc.opts...)
			b := New(slowClient(t, s.Sock, 2, 50*time.Millisecond), opts...)
			const calls = 40
			var wg sync.WaitGroup
			errs := make(chan error, calls)
			for i := range calls {
				wg.Go(func() {
					if err := tc.call(b, i); err != nil {
						errs <- err
					}
				})
			}
			wg.Wait()
			close(errs)
			var failed []error
			for err := range errs {
				failed = append(failed, err)
			}
			st := b.Stats()
			warns := strings.Count(logs.String(), "wait for a connection")
			t.Logf("%d of %d calls failed; stats %+v; %d warnings", len(failed), calls, st, warns)
			if !tc.bound {
				if len(failed) == 0 {
					t.Error("every call succeeded without the bound: the burst does not outlast the pool's timeout here")
				}
				return
			}
			if len(failed) > 0 {
				t.Errorf("%d of %d calls failed, the first: %v; want none", len(failed), calls, failed[0])
			}
			if st.Errors != 0 || st.Rejected != 0 || st.Trips != 0 {
				t.Errorf("stats %+v; want no error, rejection or breaker opening", st)
			}
			if st.Waited == 0 || (st.SlowWaits > 0) != (tc.warns > 0) || warns != tc.warns {
				t.Errorf("%d calls waited, %d urgent ones longer than the timeout, %d warnings; want some, %s, %d",
					st.Waited, st.SlowWaits, warns, map[bool]string{true: "some", false: "none"}[tc.warns > 0], tc.warns)
			}
		})
	}
}

// TestWaitForAConnectionEndsWithTheCaller: a call waiting for a
// connection ends when its caller's context does, with the context's
// error, and counts as no failure of Redis; a call made while the breaker
// is open fails at once rather than wait.
func TestWaitForAConnectionEndsWithTheCaller(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	b := New(newClient(t, "unix", s.Sock), WithHeartbeat(-1), WithInFlight(1), WithLogger(slog.New(slog.DiscardHandler)))
	// Take the only connection, as a call in flight would.
	if _, err := b.conns.acquire(t.Context(), true, time.Now); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := b.Load(ctx, "https://a.example")
		done <- err
	}()
	// Cancel once the call waits (it counts in Waited as it starts to).
	for deadline := time.Now().Add(10 * time.Second); b.Stats().Waited == 0; runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatal("the call did not wait for the connection within 10 s")
		}
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Load whose caller gave up while waiting: %v; want context.Canceled", err)
	}
	if st := b.Stats(); st.Errors != 0 || st.Calls != 0 {
		t.Errorf("stats %+v; want no call sent and no error", st)
	}
	// Open the breaker: the next call fails at once, without a wait.
	for range DefaultBreakerFailures {
		ticket, _ := b.br.allow()
		b.br.record(failure, ticket)
	}
	if _, err := b.Load(t.Context(), "https://a.example"); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Load with the breaker open and no connection free: %v; want ErrUnavailable at once", err)
	}
	b.conns.release(true)
}

// TestInFlightBound: the bound on calls in flight is the client's pool by
// default (PoolSize, MaxActiveConns when smaller, one node's for a
// Cluster), WithInFlight's n when given, and none with a negative n or a
// client of another kind.
func TestInFlightBound(t *testing.T) {
	t.Parallel()
	client := func(pool, active int) redis.UniversalClient {
		c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", PoolSize: pool, MaxActiveConns: active})
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	cluster := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:1"}, PoolSize: 12})
	t.Cleanup(func() { _ = cluster.Close() })
	for _, tc := range []struct {
		name   string
		client redis.UniversalClient
		opts   []Option
		want   int
	}{
		{"a pool of 7", client(7, 0), nil, 7},
		{"MaxActiveConns below the pool", client(7, 3), nil, 3},
		{"MaxActiveConns above the pool", client(7, 30), nil, 7},
		{"go-redis's default pool", client(0, 0), nil, client(0, 0).(*redis.Client).Options().PoolSize},
		{"a Cluster: one node's pool", cluster, nil, 12},
		{"WithInFlight", client(7, 0), []Option{WithInFlight(5)}, 5},
		{"WithInFlight(-1)", client(7, 0), []Option{WithInFlight(-1)}, 0},
		{"another kind of client", redis.UniversalClient(nil), nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := New(tc.client, tc.opts...)
			if b.conns.size != tc.want || (tc.want == 0) != (b.conns.free == nil) {
				t.Errorf("bound %d; want %d", b.conns.size, tc.want)
			}
		})
	}
}

// TestUrgentCallsKeepHalfThePool: calls that are not urgent (a burst of
// Queue calls) hold at most half of the pool, rounded up; urgent ones (a
// request's wire claim in its Colly slot, its release, a lease's renewal)
// take the rest at once, and wait only when the whole pool is taken. A
// cancelled context tells a call that would wait from one that would not,
// without timing anything.
func TestUrgentCallsKeepHalfThePool(t *testing.T) {
	t.Parallel()
	if !urgent("claim") || !urgent("unclaim") || !urgent("renew") || !urgent("store") || urgent("queue") || urgent("load") {
		t.Fatal("urgent: the wire claim, its release, a lease's renewal and its Store are urgent; Queue and Load are not")
	}
	done, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tc := range []struct {
		pool, burst, urgent int // the bound; how many of each it lets through at once after the burst
	}{
		{1, 1, 0},
		{2, 1, 1},
		{4, 2, 2},
		{5, 3, 2},
		{20, 10, 10},
	} {
		t.Run(fmt.Sprint(tc.pool), func(t *testing.T) {
			t.Parallel()
			var c conns
			c.bound(tc.pool)
			n := func(urgent bool) int {
				k := 0
				for ; k <= tc.pool; k++ {
					if _, err := c.acquire(done, urgent, time.Now); err != nil {
						break
					}
				}
				return k
			}
			if got := n(false); got != tc.burst {
				t.Errorf("%d calls of a burst in flight; want %d", got, tc.burst)
			}
			if got := n(true); got != tc.urgent {
				t.Errorf("after the burst, %d urgent calls in flight at once; want %d", got, tc.urgent)
			}
			for range tc.burst {
				c.release(false)
			}
			for range tc.urgent {
				c.release(true)
			}
			if got := n(true); got != tc.pool {
				t.Errorf("%d urgent calls in flight on a pool of %d; want all", got, tc.pool)
			}
		})
	}
}

// TestStoreUnderLeaseSkipsTheBurst: a lease holder's Store is sent while
// a burst of calls holds every connection it may take: at a crawl's start
// it used to wait behind thousands of Queue calls until its lease expired
// (the renewals end with the fetch), and another worker fetched robots.txt
// again (BenchmarkFleetScale at a load of 20: 2 fetches a host).
func TestStoreUnderLeaseSkipsTheBurst(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	b := New(slowClient(t, s.Sock, 4, 0), WithHeartbeat(-1))
	const origin = "https://a.example"
	l, ok, _, err := b.Lease(t.Context(), origin, time.Minute)
	if err != nil || !ok {
		t.Fatalf("Lease: %v, %v", ok, err)
	}
	for range 2 { // the burst's half of the pool, taken
		if _, err := b.conns.acquire(t.Context(), false, time.Now); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	now := time.Now()
	rec := &backend.Record{Latest: backend.Answer{URL: origin + "/robots.txt", Status: 404, Outcome: backend.OutcomeOK, FetchedAt: now}, Expires: now.Add(time.Hour)}
	if err := b.Store(ctx, origin, l, rec); err != nil {
		t.Errorf("Store while a burst holds its half of the pool: %v; want it sent at once", err)
	}
}
