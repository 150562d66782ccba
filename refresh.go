package robotsext

// This file keeps each origin's robots.txt in force: the near-cache
// lookup, one fetch per origin (singleflight), retries of local failures,
// and, with a Backend, the fleet-wide flow: load the shared record, or take
// the lease and fetch, or wait for the worker that holds it.

import (
	"context"
	"errors"
	"fmt"
	"github.com/robotsext/robotsext/backend"
	"sync"
	"time"
)

const (
	// localRetries is how many times a fetch that failed because of this
	// machine (ErrLocal) is tried again, localRetryWait apart and doubling,
	// before the request is dropped.
	localRetries   = 3
	localRetryWait = 100 * time.Millisecond

	// leaseMargin is added to the fetch timeout for the lease's life, so
	// that a holder's lease outlives its fetch, with a Backend that cannot
	// renew leases.
	leaseMargin = 5 * time.Second

	// leaseShort is the life of a lease a LeaseRenewer renews every
	// leaseShort/3 while the fetch runs: a holder that dies stalls its
	// origin for at most this long.
	leaseShort = 3 * time.Second

	// pollFirst and pollMax bound how often a worker waiting for another's
	// fetch reads the shared record.
	pollFirst = 10 * time.Millisecond
	pollMax   = 250 * time.Millisecond

	// backendCooldown is how long the Extension answers locally after a
	// Backend call failed, before it tries the backend again.
	backendCooldown = 5 * time.Second

	// recoveryShare is how long after a failed Backend call each worker
	// keeps to its own share of every paced host (delay × fleet size since
	// its own latest start) on top of what the Backend grants: the other
	// workers may still pace locally until their own cool-down ends, and
	// the fleet's total must stay within the delay meanwhile. It spans one
	// cool-down of this worker and one of the latest of the others.
	recoveryShare = 2 * backendCooldown
)

// errBackend marks a Backend failure, after which the Extension fetches and
// paces locally.
var errBackend = errors.New("robotsext: backend failed")

// entryFor returns o's entry in force, fetching robots.txt when it is
// missing or expired. Callers for one origin share one fetch. The error is
// the context's when ctx ends first, or wraps ErrLocal when this machine
// could not fetch robots.txt after localRetries tries.
func (e *Extension) entryFor(ctx context.Context, o origin) (*entry, error) {
	if e.purging || e.pauses.Fleet() {
		now := e.cfg.now()
		if e.purging {
			e.maybePurge(now)
		}
		if e.pauses.Fleet() {
			e.pauses.Poll(now)
		}
	}
	if en := e.cache.get(o); en != nil && e.cfg.now().Before(en.expires) {
		e.stats.hits.Add(1)
		return en, nil
	}
	e.stats.misses.Add(1)
	key := o.String()
	wait := e.cfg.localRetryWait
	for try := 0; ; {
		ch := e.flights.DoChan(key, func() (any, error) { return e.refresh(ctx, o) })
		var res resultOf
		select {
		case r := <-ch:
			res = resultOf{r.Val, r.Err}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if res.err == nil {
			return res.val.(*entry), nil
		}
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case isContextErr(res.err):
			// The fetch ran under another caller's context, which
			// ended. Ours has not: fetch again.
			continue
		case errors.Is(res.err, ErrLocal) && try < localRetries:
			try++
			if err := sleepCtx(ctx, wait); err != nil {
				return nil, err
			}
			wait *= 2
			continue
		}
		if errors.Is(res.err, ErrLocal) {
			e.stats.localErrors.Add(1)
			e.cfg.logger.Warn("robotsext: robots.txt not fetched because of a local error; requests to the origin are dropped until a fetch succeeds",
				"origin", key, "error", res.err.Error())
		}
		return nil, res.err
	}
}

type resultOf struct {
	val any
	err error
}

// refresh brings o's entry up to date. It runs once per origin at a time
// (singleflight) and holds no lock while fetching.
func (e *Extension) refresh(ctx context.Context, o origin) (*entry, error) {
	prev := e.cache.peek(o)
	if prev != nil && e.cfg.now().Before(prev.expires) {
		return prev, nil // a fetch that finished while we queued
	}
	if b := e.cfg.backend; b != nil && e.backendUp() {
		en, err := e.refreshShared(ctx, b, o)
		if err == nil || !errors.Is(err, errBackend) {
			return en, err
		}
		// The backend failed: obey robots.txt from a local fetch.
	}
	return e.refreshLocal(ctx, o, prev)
}

// refreshLocal fetches o's robots.txt and stores the new entry.
func (e *Extension) refreshLocal(ctx context.Context, o origin, prev *entry) (*entry, error) {
	var good *Robots
	failures := 1
	if prev != nil {
		good, failures = prev.good, prev.failures+1
	}
	return e.fetchPaced(ctx, o, func() (*entry, error) {
		hdr := e.requestHeader()
		r, err := e.fetcher.fetch(ctx, o, hdr, good, failures)
		if err != nil {
			return nil, err
		}
		r.Body = nil // the local cache keeps the parsed policy only
		en := newEntry(o, prev, r)
		e.install(ctx, en, hdr, true)
		return en, nil
	})
}

// refreshShared keeps o's entry through backend b: it adopts a fresh
// shared record, or fetches under the lease and shares the result, or
// waits for the worker holding the lease. Backend failures are returned
// wrapping errBackend.
func (e *Extension) refreshShared(ctx context.Context, b backend.Backend, o origin) (*entry, error) {
	key := o.String()
	// However long the leases others hold, this worker waits for them at
	// most as long as an honest holder's fetch can take; past that, the
	// lease is treated as a Backend failure and robots.txt is fetched
	// locally, so that no request waits on a lease that never resolves.
	giveUp := time.Now().Add(e.cfg.timeout + e.cfg.leaseMargin)
	poll := pollFirst // backs off across leases too
	for {
		rec, err := b.Load(ctx, key)
		if err != nil {
			return nil, e.backendErr(ctx, "load", err)
		}
		if fresh(rec, e.cfg.now()) {
			en := entryOf(o, rec, nil)
			e.install(ctx, en, nil, false)
			return en, nil
		}
		lease, ok, wait, err := b.Lease(ctx, key, e.leaseTTL(b))
		if err != nil {
			return nil, e.backendErr(ctx, "lease", err)
		}
		if ok {
			// Another worker may have stored a fresh record between our
			// Load and our Lease: use it, and give the lease back by
			// storing that record unchanged.
			if cur, err := b.Load(ctx, key); err == nil && fresh(cur, e.cfg.now()) {
				_ = b.Store(ctx, key, lease, cur)
				en := entryOf(o, cur, nil)
				e.install(ctx, en, nil, false)
				return en, nil
			}
			return e.fetchShared(ctx, b, o, rec, lease)
		}
		left := time.Until(giveUp)
		if left <= 0 {
			return nil, e.backendErr(ctx, "lease", errLeaseStuck)
		}
		if err := e.awaitRecord(ctx, b, key, min(wait, left), &poll); err != nil {
			return nil, err
		}
	}
}

// errLeaseStuck is the Backend failure of a robots.txt lease that another
// worker held, renewed or took again for longer than a fetch can take.
var errLeaseStuck = errors.New("robots.txt lease held elsewhere for longer than a fetch can take")

// awaitRecord polls key's record while another worker holds the lease,
// until a fresh record appears or the lease's remaining life (wait) has
// passed, whichever is first. *poll is the interval between polls: it
// doubles up to pollMax, and one poll happens however short wait is, so
// that a Backend answering a wait of 0 is not asked in a tight loop.
func (e *Extension) awaitRecord(ctx context.Context, b backend.Backend, key string, wait time.Duration, poll *time.Duration) error {
	deadline := time.Now().Add(max(wait, *poll))
	for ; ; *poll = min(*poll*2, pollMax) {
		left := time.Until(deadline)
		if left <= 0 {
			return nil
		}
		if err := sleepCtx(ctx, min(*poll, left)); err != nil {
			return err
		}
		rec, err := b.Load(ctx, key)
		if err != nil {
			return e.backendErr(ctx, "load", err)
		}
		if fresh(rec, e.cfg.now()) {
			return nil
		}
	}
}

// fetchShared fetches o's robots.txt under lease and stores the record.
// The entry is installed locally even when the store is refused (the
// lease was lost): this worker obeys what it fetched.
func (e *Extension) fetchShared(ctx context.Context, b backend.Backend, o origin, prev *backend.Record, lease backend.Lease) (*entry, error) {
	var good *Robots
	if g := goodAnswer(prev); g != nil {
		good = robotsOf(g)
	}
	failures := 1
	if prev != nil {
		failures = prev.Failures + 1
	}
	hdr := e.requestHeader()
	stop := sync.OnceFunc(e.renewWhileFetching(ctx, b, o.String(), lease))
	defer stop() // when the paced wait ended with ctx
	return e.fetchPaced(ctx, o, func() (*entry, error) {
		r, err := e.fetcher.fetch(ctx, o, hdr, good, failures)
		stop()
		if err != nil {
			return nil, err // the lease expires by itself
		}
		rec := nextRecord(prev, r, r.Body)
		r.Body = nil
		if err := b.Store(ctx, o.String(), lease, rec); err != nil {
			if errors.Is(err, backend.ErrLeaseLost) {
				e.cfg.logger.Debug("robotsext: robots.txt lease lost; keeping this fetch locally", "origin", o.String())
			} else {
				_ = e.backendErr(ctx, "store", err)
			}
		}
		en := entryOf(o, rec, r)
		e.install(ctx, en, hdr, true)
		return en, nil
	})
}

// leaseTTL is the life of a robots.txt lease taken from b: short when b
// renews leases, else the whole fetch timeout and a margin.
func (e *Extension) leaseTTL(b backend.Backend) time.Duration {
	if _, ok := b.(backend.LeaseRenewer); ok {
		return leaseShort
	}
	return e.cfg.timeout + e.cfg.leaseMargin
}

// renewWhileFetching renews lease every leaseShort/3 until the returned
// stop is called, when b is a LeaseRenewer; otherwise it does nothing. A
// renewal that fails is not retried: the lease then expires, and Store
// tells whether another worker took it.
func (e *Extension) renewWhileFetching(ctx context.Context, b backend.Backend, key string, lease backend.Lease) (stop func()) {
	lr, ok := b.(backend.LeaseRenewer)
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
						_ = e.backendErr(ctx, "renew", err)
					}
					return
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}

// install puts en in the cache and tells the pacer. fetched reports that
// this Extension made the request (rather than adopting a shared record),
// so the robots.txt request counts as the host's latest start, also
// fleet-wide.
func (e *Extension) install(ctx context.Context, en *entry, hdr map[string][]string, fetched bool) {
	en.override = e.cfg.overridden(en.origin)
	token := e.token()
	en.sel, en.selToken = en.policy.engine().Select(token), token
	if !e.cache.put(en) {
		e.cfg.logger.Warn("robotsext: robots.txt policy larger than WithCacheMemory; obeyed for this fetch but not cached",
			"url", en.robots.URL, "bytes", en.size, "cache_memory", e.cfg.cacheMemory)
	}
	delay, ok := en.policy.CrawlDelay(token)
	e.pacer.Loaded(en.origin.host, delay, ok, en.robots.FetchedAt)
	if !fetched {
		return
	}
	e.stats.fetched(en.robots)
	e.stats.fetchDurations.observe(e.cfg.now().Sub(en.robots.FetchedAt))
	// The robots.txt request is the host's first request fleet-wide.
	e.pacer.Fetched(ctx, en.origin.host)
	e.logFetch(ctx, en, token, userAgentOf(hdr))
}

// backendErr counts and logs a failed Backend call and starts the
// cool-down during which the Extension works locally. It returns the error
// wrapping errBackend, or the context's error when ctx ended.
func (e *Extension) backendErr(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	e.backendFailed(err)
	return fmt.Errorf("%w: %s: %w", errBackend, op, err)
}

// backendFailed records a failed Backend call.
func (e *Extension) backendFailed(err error) {
	e.stats.backendErrors.Add(1)
	now := e.cfg.now().UnixNano()
	was := e.backendDownAt.Swap(now)
	if was == 0 || time.Duration(now-was) > backendCooldown {
		e.cfg.logger.Warn("robotsext: backend failed; fetching and pacing locally for a while", "error", err.Error(), "retry_in", backendCooldown)
	}
}

// backendUp reports whether the backend may be tried: no failure within
// backendCooldown.
func (e *Extension) backendUp() bool {
	at := e.backendDownAt.Load()
	return at == 0 || time.Duration(e.cfg.now().UnixNano()-at) > backendCooldown
}

// backendRecovering reports whether a Backend call failed within
// recoveryShare: each worker then keeps to its own share of every paced
// host (pacing.Health).
func (e *Extension) backendRecovering() bool {
	at := e.backendDownAt.Load()
	return at != 0 && time.Duration(e.cfg.now().UnixNano()-at) <= recoveryShare
}

// evicted keeps the pacer no larger than the cache: a host's pace is
// dropped with the last cached origin on that host.
func (e *Extension) evicted(en *entry) {
	twin := en.origin
	twin.https = !twin.https
	if !e.cache.has(twin) {
		e.pacer.Forget(en.origin.host)
	}
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
