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
// done. The zero value bounds nothing. It is safe for concurrent use.
type conns struct {
	free chan struct{} // one token per call in flight; nil: no bound; set once by New
	size int           // cap(free); 0: no bound

	waited    atomic.Uint64 // calls that found every connection taken
	slowWaits atomic.Uint64 // of them, waits longer than the per-call timeout
	slowOnce  sync.Once     // the Warn of the first such wait
}

// bound sets c to n calls in flight; n ≤ 0 bounds nothing. Only New
// calls it, before the Backend is shared.
func (c *conns) bound(n int) {
	if n > 0 {
		c.free, c.size = make(chan struct{}, n), n
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

// acquire takes a connection for one call, waiting while all are taken
// until ctx ends. It returns the wait (0 when a connection was free) and
// ctx's error when ctx ended first. now is the Backend's clock.
func (c *conns) acquire(ctx context.Context, now func() time.Time) (time.Duration, error) {
	if c.free == nil {
		return 0, nil
	}
	select {
	case c.free <- struct{}{}:
		return 0, nil
	default:
	}
	c.waited.Add(1)
	start := now()
	select {
	case c.free <- struct{}{}:
		return now().Sub(start), nil
	case <-ctx.Done():
		return now().Sub(start), ctx.Err()
	}
}

// release gives back the connection acquire took.
func (c *conns) release() {
	if c.free != nil {
		<-c.free
	}
}

// waitedFor takes note of a wait for a connection that took d, and logs
// once, at Warn, the first one longer than the per-call timeout: the
// pool is too small for the calls the crawl makes at once.
func (b *Backend) waitedFor(d time.Duration) {
	if d <= b.cfg.timeout {
		return
	}
	b.conns.slowWaits.Add(1)
	b.conns.slowOnce.Do(func() {
		b.cfg.log().Warn("redisbackend: calls wait for a connection longer than the per-call timeout; "+
			"give the client a PoolSize of at least the Parallelism of the collectors it serves",
			"prefix", b.cfg.prefix, "pool", b.conns.size, "wait", d.String(), "timeout", b.cfg.timeout.String())
	})
}
