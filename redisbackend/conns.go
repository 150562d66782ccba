package redisbackend

// This file bounds a Backend's calls in flight by its client's pool. A
// crawl that enqueues thousands of URLs at once asks the Backend for
// each request's turn at the same moment; go-redis's pool (10
// connections per CPU by default) then makes most of those calls wait
// for a connection within their per-call timeout, and each one that
// waits too long fails, counts against Redis in the breaker and sends
// its request to local pacing. Bounded here, the calls beyond the pool
// wait their turn in the process instead, for as long as the caller's
// context lets them, and the per-call timeout measures Redis alone.

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// conns hands out the connections of the client's pool to calls: a call
// takes one before it is sent and gives it back when its command is
// done. Half of the pool is kept for urgent calls (see urgent): the
// others also take one of burst's tokens first, so that a burst of them
// never holds more than the other half, and a request holding a Colly
// slot or a robots.txt lease never waits for a connection behind it. The
// zero value bounds nothing. It is safe for concurrent use.
type conns struct {
	free  chan struct{} // a token per call in flight; nil: no bound; set once by bound
	burst chan struct{} // a token per call in flight that is not urgent; nil: none kept; set once by bound
	size  int           // cap(free); 0: no bound

	waited    atomic.Uint64 // calls that found every connection they may take taken
	slowWaits atomic.Uint64 // urgent calls that waited longer than the per-call timeout
	slowOnce  sync.Once     // the Warn of the first such wait
}

// urgent reports whether the call op is made by a request that holds
// something others wait for: the wire claim at the gate and its release
// at the answer (inside a Colly slot, and the host's next request waits
// for them), and a robots.txt lease's renewal and the Store that ends it
// (the other workers wait for the fetch, and a late renewal or Store
// loses the lease: another worker then fetches robots.txt again).
func urgent(op string) bool {
	return op == "claim" || op == "unclaim" || op == "renew" || op == "store"
}

// bound sets c to n calls in flight, n - n/2 of them not urgent; n ≤ 0
// bounds nothing. Only New calls it, before the Backend is shared.
func (c *conns) bound(n int) {
	if n <= 0 {
		return
	}
	c.free, c.size = make(chan struct{}, n), n
	if n >= 2 {
		c.burst = make(chan struct{}, n-n/2)
	}
}

// poolSize returns how many commands client can have in flight at once:
// its PoolSize, or MaxActiveConns when that is smaller; on a Cluster or
// a Ring, the pool of one node (so that no node's pool is ever exceeded,
// even when every call goes to one node). 0 for a client of another
// kind: no bound.
func poolSize(client redis.UniversalClient) int {
	var size, active int
	switch c := client.(type) {
	case *redis.Client:
		size, active = c.Options().PoolSize, c.Options().MaxActiveConns
	case *redis.ClusterClient:
		size, active = c.Options().PoolSize, c.Options().MaxActiveConns
	case *redis.Ring:
		size, active = c.Options().PoolSize, c.Options().MaxActiveConns
	}
	if active > 0 && active < size {
		size = active
	}
	return size
}

// acquire takes a connection for one call (urgent, or not: see urgent),
// waiting while all it may take are taken, until ctx ends. It returns
// the wait (0 when a connection was free) and ctx's error when ctx ended
// first, having taken nothing. now is the Backend's clock.
func (c *conns) acquire(ctx context.Context, urgent bool, now func() time.Time) (time.Duration, error) {
	if c.free == nil {
		return 0, nil
	}
	var start time.Time
	take := func(ch chan struct{}) error {
		select {
		case ch <- struct{}{}:
			return nil
		default:
		}
		if start.IsZero() {
			start = now()
			c.waited.Add(1)
		}
		select {
		case ch <- struct{}{}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	waited := func() time.Duration {
		if start.IsZero() {
			return 0
		}
		return now().Sub(start)
	}
	burst := !urgent && c.burst != nil
	if burst {
		if err := take(c.burst); err != nil {
			return waited(), err
		}
	}
	if err := take(c.free); err != nil {
		if burst {
			<-c.burst
		}
		return waited(), err
	}
	return waited(), nil
}

// release gives back the connection acquire took for a call as urgent.
func (c *conns) release(urgent bool) {
	if c.free == nil {
		return
	}
	<-c.free
	if !urgent && c.burst != nil {
		<-c.burst
	}
}

// waitedFor takes note of a wait for a connection that took d, and logs
// once, at Warn, the first urgent call that waited longer than the
// per-call timeout: a request in a Colly slot, or a robots.txt fetch the
// fleet waits for, was held up for want of a connection, and the pool is
// too small for the collectors' Parallelism. Calls that are not urgent
// wait out a crawl's bursts by design.
func (b *Backend) waitedFor(d time.Duration, urgent bool) {
	if !urgent || d <= b.cfg.timeout {
		return
	}
	b.conns.slowWaits.Add(1)
	b.conns.slowOnce.Do(func() {
		b.cfg.log().Warn("redisbackend: urgent calls wait for a connection longer than the per-call timeout; "+
			"give the client a larger PoolSize, up to twice the Parallelism of the collectors it serves",
			"prefix", b.cfg.prefix, "pool", b.conns.size, "wait", d.String(), "timeout", b.cfg.timeout.String())
	})
}
