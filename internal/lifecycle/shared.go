package lifecycle

// This file keeps an origin's entry through a Backend, for a fleet: adopt
// a fresh shared record, or take the lease, fetch and share the result, or
// wait for the worker that holds the lease.

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/robotsext/robotsext/backend"
)

const (
	// leaseShort is the life of a lease a LeaseRenewer renews every
	// leaseShort/3 while the fetch runs: a holder that dies stalls its
	// origin for at most this long.
	leaseShort = 3 * time.Second

	// pollFirst and pollMax bound how often a worker waiting for another's
	// fetch reads the shared record: the step doubles from pollFirst up to
	// pollMax, so that a wait of a second costs 5 reads (it cost 8 from
	// 10 ms up to 250 ms), and the record is adopted at most one step
	// after it appeared: half the time waited, and never more than
	// pollMax, which keeps the waiting worker's requests to the host close
	// behind the holder's.
	pollFirst = 50 * time.Millisecond
	pollMax   = 500 * time.Millisecond
)

// leaseWait is the state of one worker's wait for another's fetch of an
// origin's robots.txt, across the leases it outlives.
type leaseWait struct {
	poll time.Duration // the next step between reads
	// settled is set once a failed read was forgiven because the
	// Backend answered the probe it raised (Cache.again): a second
	// failure ends the wait.
	settled bool
}

// refreshShared keeps o's entry through the Backend: it adopts a fresh
// shared record, or fetches under the lease and shares the result, or
// waits for the worker holding the lease. Backend failures are returned
// wrapping errBackend.
func (c *Cache) refreshShared(ctx context.Context, o Origin) (*Entry, error) {
	b, key := c.cfg.Backend, o.String()
	// However long the leases others hold, this worker waits for them at
	// most as long as an honest holder's fetch can take; past that, the
	// lease is treated as a Backend failure and robots.txt is fetched
	// locally, so that no request waits on a lease that never resolves.
	giveUp := c.waitNow().Add(c.cfg.Fetcher.Timeout() + c.cfg.LeaseMargin)
	w := leaseWait{poll: pollFirst} // backs off across leases too
	rec, err := b.Load(ctx, key)
	if err != nil {
		return nil, c.backendErr(ctx, "load", err)
	}
	for {
		if fresh(rec, c.cfg.Now()) {
			en := entryOf(o, rec, nil, c.errs)
			c.install(ctx, en, nil, false)
			return en, nil
		}
		lease, ok, wait, err := b.Lease(ctx, key, c.leaseTTL())
		if err != nil {
			return nil, c.backendErr(ctx, "lease", err)
		}
		if ok {
			// Another worker may have stored a fresh record between our
			// Load and our Lease: use it, and give the lease back by
			// storing that record unchanged.
			if cur, err := b.Load(ctx, key); err == nil && fresh(cur, c.cfg.Now()) {
				_ = b.Store(ctx, key, lease, cur)
				en := entryOf(o, cur, nil, c.errs)
				c.install(ctx, en, nil, false)
				return en, nil
			}
			return c.fetchShared(ctx, o, rec, lease)
		}
		left := giveUp.Sub(c.waitNow())
		if left <= 0 {
			return nil, c.backendErr(ctx, "lease", errLeaseStuck)
		}
		if rec, err = c.awaitRecord(ctx, key, min(wait, left), &w); err != nil {
			return nil, err
		}
	}
}

// awaitRecord polls key's record while another worker holds the lease,
// until a fresh record appears or the lease's remaining life (wait) has
// passed, whichever is first, and returns the record it read last (the
// caller adopts it when fresh, or asks for the lease again). w.poll is
// the step between reads: it doubles up to pollMax, and one read happens
// however short wait is, so that a Backend answering a wait of 0 is not
// asked in a tight loop. A read that fails is only a suspicion while the
// Backend answers the probe it raised (Cache.again): the wait goes on, as
// the holder's fetch does; a second failure, or a Backend that does not
// answer, ends the wait with the error.
func (c *Cache) awaitRecord(ctx context.Context, key string, wait time.Duration, w *leaseWait) (*backend.Record, error) {
	deadline := c.waitNow().Add(max(wait, w.poll))
	for {
		if err := c.sleep(ctx, min(w.poll, max(deadline.Sub(c.waitNow()), 0))); err != nil {
			return nil, err
		}
		w.poll = min(w.poll*2, pollMax)
		rec, err := c.cfg.Backend.Load(ctx, key)
		if err != nil {
			err = c.backendErr(ctx, "load", err)
			if w.settled || ctx.Err() != nil || !c.again(ctx, err) {
				return nil, err
			}
			w.settled = true
			continue
		}
		if fresh(rec, c.cfg.Now()) || !c.waitNow().Before(deadline) {
			return rec, nil
		}
	}
}

// fetchShared fetches o's robots.txt under lease and stores the record.
// The entry is installed locally even when the store is refused (the
// lease was lost): this worker obeys what it fetched.
func (c *Cache) fetchShared(ctx context.Context, o Origin, prev *backend.Record, lease backend.Lease) (*Entry, error) {
	b, key := c.cfg.Backend, o.String()
	var good *Robots
	if g := goodAnswer(prev); g != nil {
		good = robotsOf(g, c.errs)
	}
	failures := 1
	if prev != nil {
		failures = prev.Failures + 1
	}
	hdr := c.header()
	stop := sync.OnceFunc(c.renewWhileFetching(ctx, key, lease))
	defer stop() // when the paced wait ended with ctx
	return c.fetchPaced(ctx, o, func() (*Entry, error) {
		r, err := c.cfg.Fetcher.Fetch(ctx, o, hdr, good, failures)
		stop()
		if err != nil {
			return nil, err // the lease expires by itself
		}
		rec := nextRecord(prev, r, r.Body)
		r.Body = nil
		if err := b.Store(ctx, key, lease, rec); err != nil {
			if errors.Is(err, backend.ErrLeaseLost) {
				c.cfg.Logger.Debug("robotsext: robots.txt lease lost; keeping this fetch locally", "origin", key)
			} else {
				_ = c.backendErr(ctx, "store", err)
			}
		}
		en := entryOf(o, rec, r, c.errs)
		c.install(ctx, en, hdr, true)
		return en, nil
	})
}

// leaseTTL is the life of a robots.txt lease: short when the Backend
// renews leases, else the whole fetch timeout and a margin.
func (c *Cache) leaseTTL() time.Duration {
	if _, ok := c.cfg.Backend.(backend.LeaseRenewer); ok {
		return leaseShort
	}
	return c.cfg.Fetcher.Timeout() + c.cfg.LeaseMargin
}

// renewWhileFetching renews lease every leaseShort/3 until the returned
// stop is called, when the Backend is a LeaseRenewer; otherwise it does
// nothing. A renewal that fails is not retried: the lease then expires,
// and Store tells whether another worker took it.
func (c *Cache) renewWhileFetching(ctx context.Context, key string, lease backend.Lease) (stop func()) {
	lr, ok := c.cfg.Backend.(backend.LeaseRenewer)
	if !ok {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(leaseShort / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if err := lr.Renew(ctx, key, lease, leaseShort); err != nil {
					if !errors.Is(err, backend.ErrLeaseLost) {
						_ = c.backendErr(ctx, "renew", err)
					}
					return
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}
