package lifecycle

// This file brings an origin's entry up to date when Get finds it missing
// or expired: one fetch per origin (singleflight), retries of local
// failures, and the choice between a local fetch and the fleet's record
// (shared.go).

import (
	"context"
	"errors"
	"net/http"

	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/internal/closing"
)

// miss is Get for an origin not cached fresh.
func (c *Cache) miss(ctx context.Context, o Origin) (*Entry, error) {
	c.misses.Add(1)
	ctx, stop := closing.Bound(ctx, c.cfg.Closing)
	defer stop()
	key := o.String()
	wait := c.cfg.LocalRetryWait
	for try := 0; ; {
		ch := c.flights.DoChan(key, func() (any, error) { return c.refresh(ctx, o) })
		var res singleResult
		select {
		case r := <-ch:
			res = singleResult{r.Val, r.Err}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if res.err == nil {
			return res.val.(*Entry), nil
		}
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case isContextErr(res.err):
			// The fetch ran under another caller's context, which
			// ended. Ours has not: fetch again.
			continue
		case errors.Is(res.err, c.errs.Local) && try < LocalRetries:
			try++
			if err := sleep(ctx, wait); err != nil {
				return nil, err
			}
			wait *= 2
			continue
		}
		if errors.Is(res.err, c.errs.Local) {
			c.localErrors.Add(1)
			c.cfg.Logger.Warn("robotsext: robots.txt not fetched because of a local error; requests to the origin are dropped until a fetch succeeds",
				"origin", key, "error", res.err.Error())
		}
		return nil, res.err
	}
}

// singleResult is what a singleflight call gave.
type singleResult struct {
	val any
	err error
}

// refresh brings o's entry up to date. It runs once per origin at a time
// (singleflight) and holds no lock while fetching.
func (c *Cache) refresh(ctx context.Context, o Origin) (*Entry, error) {
	prev := c.lru.peek(o)
	if prev != nil && c.cfg.Now().Before(prev.Expires) {
		return prev, nil // a fetch that finished while we queued
	}
	if c.cfg.Backend != nil && c.backendUp(o.Host) {
		en, err := c.refreshShared(ctx, o)
		if errors.Is(err, errBackend) && ctx.Err() == nil && c.again(ctx, err) {
			// The fleet's copy is worth a second call before this
			// worker fetches robots.txt on its own.
			en, err = c.refreshShared(ctx, o)
		}
		if err == nil || !errors.Is(err, errBackend) {
			return en, err
		}
		// The backend failed: obey robots.txt from a local fetch.
	}
	return c.refreshLocal(ctx, o, prev)
}

// again reports whether a shared-record call that failed with err is made
// once more before this worker fetches robots.txt on its own: the part of
// the Backend it failed in (or the whole Backend, when it can be probed)
// answered the probe its failure raised (Health.Settle), or, for a
// Backend tracked as a whole, the call timed out, as a worker's first
// call on a connection still being set up may.
func (c *Cache) again(ctx context.Context, err error) bool {
	if c.cfg.Health != nil && c.cfg.Health.Settle(ctx, err) {
		return true
	}
	return backend.ScopeOf(err) == "" && timedOut(err)
}

// timedOut reports whether err says a call got no answer in time (the
// context's deadline, or a network timeout).
func timedOut(err error) bool {
	var te interface{ Timeout() bool }
	return errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &te) && te.Timeout())
}

// refreshLocal fetches o's robots.txt and installs the new entry.
func (c *Cache) refreshLocal(ctx context.Context, o Origin, prev *Entry) (*Entry, error) {
	var good *Robots
	failures := 1
	if prev != nil {
		good, failures = prev.Good, prev.Failures+1
	}
	return c.fetchPaced(ctx, o, func() (*Entry, error) {
		hdr := c.header()
		r, err := c.cfg.Fetcher.Fetch(ctx, o, hdr, good, failures)
		if err != nil {
			return nil, err
		}
		r.Body = nil // the local cache keeps the parsed policy only
		en := newEntry(o, prev, r)
		c.install(ctx, en, hdr, true)
		return en, nil
	})
}

// header returns the header of the next robots.txt request.
func (c *Cache) header() http.Header {
	if c.cfg.Header != nil {
		return c.cfg.Header()
	}
	return http.Header{}
}
