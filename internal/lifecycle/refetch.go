package lifecycle

// This file keeps robots.txt re-fetches polite: a re-fetch of a paced
// host's robots.txt (after Forget, or on expiry) waits for the host's
// pace (Config.Pace) as any other request to the host does, and Forget
// calls that come while a fetch is on the wire are coalesced into one
// re-fetch after it.

import (
	"context"
	"sync"
)

// refetches tracks the robots.txt requests on the wire, so that Forget can
// tell whether the answer about to be installed was requested before it.
// The zero value is ready; it is safe for concurrent use and holds at most
// one entry per fetch in flight.
type refetches struct {
	mu     sync.Mutex
	flying map[Origin]*refetch // guarded by mu; origins whose request has gone out and whose answer is not installed
}

// refetch is one robots.txt request on the wire.
type refetch struct {
	forgotten bool // guarded by refetches.mu: Forget came after the request went out
}

// sent records that o's robots.txt request is going out now.
func (rs *refetches) sent(o Origin) *refetch {
	f := &refetch{}
	rs.mu.Lock()
	if rs.flying == nil {
		rs.flying = make(map[Origin]*refetch)
	}
	rs.flying[o] = f
	rs.mu.Unlock()
	return f
}

// forget marks o's request on the wire, if any, as answered too early: the
// answer may predate what Forget was told of.
func (rs *refetches) forget(o Origin) {
	rs.mu.Lock()
	if f := rs.flying[o]; f != nil {
		f.forgotten = true
	}
	rs.mu.Unlock()
}

// forgetAll is forget for every origin on the wire.
func (rs *refetches) forgetAll() {
	rs.mu.Lock()
	for _, f := range rs.flying {
		f.forgotten = true
	}
	rs.mu.Unlock()
}

// landed ends f, o's request, and reports whether Forget came while it was
// on the wire. Call it after the answer is installed.
func (rs *refetches) landed(o Origin, f *refetch) (forgotten bool) {
	rs.mu.Lock()
	if rs.flying[o] == f {
		delete(rs.flying, o)
	}
	forgotten = f.forgotten
	rs.mu.Unlock()
	return forgotten
}

// fetchPaced fetches o's robots.txt as a request to the host like any
// other: it first waits for the host's pace (Config.Pace). Its answer is
// installed by fetch, called then; a Forget that came while the request
// was on the wire then drops the installed entry, so that the next
// request fetches again: any number of such Forgets make one re-fetch,
// itself paced.
func (c *Cache) fetchPaced(ctx context.Context, o Origin, fetch func() (*Entry, error)) (*Entry, error) {
	if c.cfg.Pace != nil {
		if err := c.cfg.Pace(ctx, o.Host); err != nil {
			return nil, err
		}
	}
	f := c.refetch.sent(o)
	en, err := fetch()
	if c.refetch.landed(o, f) && err == nil {
		c.lru.remove(o)
	}
	return en, err
}
