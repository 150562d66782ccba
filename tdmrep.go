package robotsext

// This file reads each origin's /.well-known/tdmrep.json (the TDM
// Reservation Protocol, TDMRep) for a crawler that declares its purposes:
// at most one fetch per origin at a time, cached like robots.txt (its
// lifetime from the response within MaxCacheTTL, unreachable origins
// retried after a backoff, an earlier good copy kept meanwhile) in a
// bounded cache of its own. Reading the file is internal/tdmrep's work;
// what its rules mean for a request is usagehook.go's. Without
// WithPurpose nothing here runs.
//
// The file is fetched as robots.txt is: the Extension's HTTP client (its
// redirect rules, Web Bot Auth signature, timeout), the robots.txt
// request's headers, a fetch slot (WithFetchConcurrency), and the host's
// pace, so that it counts as a request to the host. It is fetched even
// where robots.txt disallows /.well-known/: like robots.txt, it is a file
// of the protocol, which an agent must read before it may use the site.
//
// The cache is not shared through a Backend: each process reads the file
// once per origin and day, which is what a shared record would save, and
// a record of its own would widen the Backend contract for one request a
// day.

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotsext/robotsext/internal/lifecycle"
	"github.com/robotsext/robotsext/internal/tdmrep"
	"golang.org/x/sync/singleflight"
)

// tdmState is what the latest fetch of an origin's tdmrep.json found.
type tdmState uint8

const (
	// tdmFound: a valid file.
	tdmFound tdmState = iota + 1
	// tdmMissing: 4xx, a redirect that could not be followed, or a body
	// that is not JSON at all (a site's HTML page served in its place).
	// Nothing is stated.
	tdmMissing
	// tdmMalformed: a body that is JSON but not a valid file, or larger
	// than tdmrep.MaxFileSize. Nothing is stated; it is logged.
	tdmMalformed
	// tdmUnreachable: 5xx, 429, a network error or a timeout. An earlier
	// good copy stays in force, else nothing is stated.
	tdmUnreachable
)

// tdmEntry is one origin's tdmrep.json in force. It is never modified once
// stored, so it may be read without a lock.
type tdmEntry struct {
	origin   lifecycle.Origin
	file     *tdmrep.File // the file in force; nil states nothing
	state    tdmState     // what the latest fetch found
	stale    bool         // file is an earlier good copy, kept while the origin is unreachable
	goodAt   time.Time    // when file was fetched; zero without a file
	failures int          // unreachable answers in a row
	expires  time.Time    // when to fetch again
	size     int64        // octets retained, for WithCacheMemory
}

// tdmEntryOverhead estimates what an entry retains besides its file.
const tdmEntryOverhead = 256

// newTDMEntry combines a fetch with the entry it replaces (nil if none):
// an unreachable origin keeps its last good file while it was fetched
// within MaxStale.
func newTDMEntry(o lifecycle.Origin, prev *tdmEntry, res tdmFetch) *tdmEntry {
	en := &tdmEntry{origin: o, state: res.state, expires: res.expires}
	switch res.state {
	case tdmFound:
		en.file, en.goodAt = res.file, res.at
	case tdmUnreachable:
		en.failures = 1
		if prev != nil {
			en.failures = prev.failures + 1
			if prev.file != nil && res.at.Sub(prev.goodAt) <= MaxStale {
				en.file, en.goodAt, en.stale = prev.file, prev.goodAt, true
				if end := prev.goodAt.Add(MaxStale); end.Before(en.expires) {
					en.expires = end
				}
			}
		}
	}
	en.size = tdmEntryOverhead + int64(en.file.Size())
	return en
}

// tdmFiles keeps the tdmrep.json in force per origin: an LRU bounded by
// WithCacheSize origins and WithCacheMemory octets (a budget of its own,
// beside the robots.txt cache's), and one fetch per origin at a time. It
// is safe for concurrent use; mu is held only for map and list
// operations, never across I/O.
type tdmFiles struct {
	max      int
	maxBytes int64
	flights  singleflight.Group // one fetch per origin at a time

	mu    sync.Mutex
	items map[lifecycle.Origin]*list.Element // guarded by mu; values are *tdmEntry
	order list.List                          // guarded by mu; front is most recent
	bytes int64                              // guarded by mu; the entries' sizes

	// front is the entry the last locked get returned, while no put has
	// happened since: it is then the front of order, so a get of its
	// origin may return it without the lock. Written under mu only.
	front atomic.Pointer[tdmEntry]
}

func newTDMFiles(max int, maxBytes int64) *tdmFiles {
	return &tdmFiles{max: max, maxBytes: maxBytes, items: make(map[lifecycle.Origin]*list.Element)}
}

// get returns o's entry, or nil, and marks it most recently used.
func (c *tdmFiles) get(o lifecycle.Origin) *tdmEntry {
	if en := c.front.Load(); en != nil && en.origin == o {
		return en
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[o]
	if !ok {
		return nil
	}
	c.order.MoveToFront(el)
	en := el.Value.(*tdmEntry)
	c.front.Store(en)
	return en
}

// peek returns o's entry, or nil, without marking it used.
func (c *tdmFiles) peek(o lifecycle.Origin) *tdmEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[o]; ok {
		return el.Value.(*tdmEntry)
	}
	return nil
}

// put stores en as its origin's entry, evicting the least recently used
// origins until both bounds hold. An entry larger than the whole byte
// bound is not kept, nor is an older entry of its origin.
func (c *tdmFiles) put(en *tdmEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.front.Store(nil)
	if el, ok := c.items[en.origin]; ok {
		c.bytes -= el.Value.(*tdmEntry).size
		c.order.Remove(el)
		delete(c.items, en.origin)
	}
	if en.size > c.maxBytes {
		return
	}
	c.items[en.origin] = c.order.PushFront(en)
	c.bytes += en.size
	for c.order.Len() > c.max || c.bytes > c.maxBytes {
		old := c.order.Remove(c.order.Back()).(*tdmEntry)
		delete(c.items, old.origin)
		c.bytes -= old.size
	}
}

// remove drops o's entry, if any.
func (c *tdmFiles) remove(o lifecycle.Origin) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.front.Store(nil)
	if el, ok := c.items[o]; ok {
		c.bytes -= el.Value.(*tdmEntry).size
		c.order.Remove(el)
		delete(c.items, o)
	}
}

// tdmFile returns the tdmrep.json in force for o, fetching it when it is
// not cached or has expired; nil states nothing. Callers for one origin
// share one fetch. The error is ctx's, when it ended first. When this
// machine could not fetch (ErrLocal), the file in force is the last one
// cached, however old, and nothing is cached.
//
// freshUntil is a time the caller knows is still ahead (the expiry of
// the robots.txt entry it has just been given): a file that expires after
// it is fresh without a look at the clock, which is most of the time, as
// the file is fetched just after robots.txt and lives as long.
func (e *Extension) tdmFile(ctx context.Context, o lifecycle.Origin, freshUntil time.Time) (*tdmrep.File, error) {
	if en := e.tdm.get(o); en != nil && (freshUntil.Before(en.expires) || e.cfg.now().Before(en.expires)) {
		return en.file, nil
	}
	key := o.String()
	for {
		ch := e.tdm.flights.DoChan(key, func() (any, error) { return e.refreshTDMRep(ctx, o) })
		select {
		case r := <-ch:
			switch {
			case r.Err == nil:
				return r.Val.(*tdmEntry).file, nil
			case ctx.Err() != nil:
				return nil, ctx.Err()
			case errors.Is(r.Err, context.Canceled), errors.Is(r.Err, context.DeadlineExceeded):
				continue // the fetch ran under another caller's context, which ended
			}
			if prev := e.tdm.peek(o); prev != nil {
				return prev.file, nil
			}
			return nil, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// refreshTDMRep fetches o's tdmrep.json and stores the new entry. It runs
// once per origin at a time (singleflight).
func (e *Extension) refreshTDMRep(ctx context.Context, o lifecycle.Origin) (*tdmEntry, error) {
	prev := e.tdm.peek(o)
	if prev != nil && e.cfg.now().Before(prev.expires) {
		return prev, nil // a fetch that finished while we queued
	}
	failures := 1
	if prev != nil {
		failures = prev.failures + 1
	}
	res, err := e.fetchTDMRep(ctx, o, failures)
	if err != nil {
		return nil, err
	}
	en := newTDMEntry(o, prev, res)
	e.tdm.put(en)
	e.stats.tdmFetches.Add(1)
	switch res.state {
	case tdmFound:
		e.stats.tdmFiles.Add(1)
	case tdmMalformed:
		e.stats.tdmMalformed.Add(1)
		if prev == nil || prev.state != tdmMalformed {
			e.cfg.logger.Warn("robotsext: tdmrep.json is malformed and states nothing; the crawl goes on without it",
				"url", res.url, "error", res.err.Error())
		}
	case tdmUnreachable:
		e.cfg.logger.Debug("robotsext: tdmrep.json unreachable", "url", res.url, "error", res.err.Error(), "stale_copy", en.stale)
	}
	return en, nil
}

// tdmFetch is one fetch of a tdmrep.json, classified.
type tdmFetch struct {
	url     string // the tdmrep.json URL, for logs
	state   tdmState
	file    *tdmrep.File // tdmFound only
	err     error        // why, for tdmMalformed and tdmUnreachable
	at      time.Time    // when the request was sent
	expires time.Time
}

// fetchTDMRep requests o's tdmrep.json as the robots.txt request goes out
// (see the file comment) and classifies the answer. failures is how many
// unreachable answers in a row this one would make, for the backoff. The
// error is non-nil only when ctx ends, or this machine could not fetch
// (it wraps ErrLocal).
func (e *Extension) fetchTDMRep(ctx context.Context, o lifecycle.Origin, failures int) (tdmFetch, error) {
	if err := e.pacer.PaceFetch(ctx, o.Host); err != nil {
		return tdmFetch{}, err
	}
	hdr := e.requestHeader()
	if hdr.Get("Accept") == "" {
		hdr.Set("Accept", "application/json")
	}
	a, err := e.cache.Fetcher().FetchFile(ctx, o, tdmrep.WellKnownPath, hdr, tdmrep.MaxFileSize)
	if err != nil {
		return tdmFetch{}, err
	}
	res := tdmFetch{url: a.URL, at: a.FetchedAt, expires: a.FetchedAt.Add(a.Fresh)}
	switch s := a.Status; {
	case s == 0 && (errors.Is(a.Err, ErrTooManyRedirects) || errors.Is(a.Err, ErrRedirectNotHTTP)):
		res.state, res.expires = tdmMissing, a.FetchedAt.Add(e.cfg.ttl)
	case s == 0, s == http.StatusTooManyRequests, s >= 500, s < 200:
		res.state, res.err = tdmUnreachable, a.Err
		if res.err == nil {
			res.err = fmt.Errorf("%s answered HTTP %d", a.URL, s)
		}
		res.expires = a.FetchedAt.Add(lifecycle.Backoff(failures, a.RetryAfter))
	case s < 300:
		file, err := tdmrep.Parse(a.Body)
		switch {
		case err == nil:
			res.state, res.file = tdmFound, file
		case errors.Is(err, tdmrep.ErrNotJSON):
			res.state = tdmMissing
		default:
			res.state, res.err = tdmMalformed, err
		}
	default: // 3xx not followed, 4xx
		res.state = tdmMissing
	}
	return res, nil
}
