package lifecycle

// This file keeps each origin's /.well-known/tdmrep.json (the TDM
// Reservation Protocol, TDMRep) in force for a crawler that declares its
// purposes: at most one fetch per origin at a time, cached like robots.txt
// (its lifetime from the response within FetcherConfig.MaxTTL,
// unreachable origins retried after a backoff, an earlier good copy kept
// meanwhile) in a bounded cache of its own. Reading the file is
// internal/tdmrep's work; what its rules mean for a request is the root
// package's.
//
// The file is fetched as robots.txt is: the Fetcher's client (its
// redirect rules, Web Bot Auth signature, timeout), the robots.txt
// request's headers, a fetch slot, and the host's pace, so that it counts
// as a request to the host. It is fetched even where robots.txt disallows
// /.well-known/: like robots.txt, it is a file of the protocol, which an
// agent must read before it may use the site.
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
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/internal/closing"
	"github.com/robotsext/robotsext/internal/tdmrep"
	"golang.org/x/sync/singleflight"
)

// TDMRepState is what the latest fetch of an origin's tdmrep.json found.
type TDMRepState uint8

const (
	// TDMRepFound: a valid file.
	TDMRepFound TDMRepState = iota + 1
	// TDMRepMissing: 4xx, a redirect that could not be followed, or a
	// body that is not JSON at all (a site's HTML page served in its
	// place). Nothing is stated.
	TDMRepMissing
	// TDMRepMalformed: a body that is JSON but not a valid file, or
	// larger than tdmrep.MaxFileSize. Nothing is stated; it is logged.
	TDMRepMalformed
	// TDMRepUnreachable: 5xx, 429, a network error or a timeout. An
	// earlier good copy stays in force, else nothing is stated.
	TDMRepUnreachable
)

// TDMRepConfig configures a TDMRep. Fetcher, Header and Pace must be set.
type TDMRepConfig struct {
	// Fetcher makes the requests (the robots.txt cache's): its client,
	// fetch slots, clock, TTL and errors are the file's too.
	Fetcher *Fetcher
	// Size and MaxBytes bound the cache: origins, and octets retained (a
	// budget of its own, beside the robots.txt cache's).
	Size     int
	MaxBytes int64
	// Logger gets a malformed file (once per origin until it changes) and
	// an unreachable one (debug); nil: slog.Default().
	Logger *slog.Logger
	// Header returns a new header for a request, as the robots.txt
	// request sends it; Accept is application/json unless it sets one.
	Header func() http.Header
	// Pace waits for the host's turn; an error (ctx ended) ends the fetch.
	Pace func(ctx context.Context, host string) error
	// Fetched, when set, is told of each fetch's state, for the counters.
	Fetched func(TDMRepState)
	// Closing ends when the owner closes: a fetch and its waiters end
	// then too (closing.Bound); nil: never.
	Closing context.Context
}

// tdmEntry is one origin's tdmrep.json in force. It is never modified once
// stored, so it may be read without a lock.
type tdmEntry struct {
	origin   Origin
	file     *tdmrep.File // the file in force; nil states nothing
	state    TDMRepState  // what the latest fetch found
	stale    bool         // file is an earlier good copy, kept while the origin is unreachable
	goodAt   time.Time    // when file was fetched; zero without a file
	failures int          // unreachable answers in a row
	expires  time.Time    // when to fetch again
	size     int64        // octets retained, for TDMRepConfig.MaxBytes
}

// tdmEntryOverhead estimates what an entry retains besides its file.
const tdmEntryOverhead = 256

// newTDMEntry combines a fetch with the entry it replaces (nil if none):
// an unreachable origin keeps its last good file while it was fetched
// within backend.MaxStale.
func newTDMEntry(o Origin, prev *tdmEntry, res tdmFetch) *tdmEntry {
	en := &tdmEntry{origin: o, state: res.state, expires: res.expires}
	switch res.state {
	case TDMRepFound:
		en.file, en.goodAt = res.file, res.at
	case TDMRepUnreachable:
		en.failures = 1
		if prev != nil {
			en.failures = prev.failures + 1
			if prev.file != nil && res.at.Sub(prev.goodAt) <= backend.MaxStale {
				en.file, en.goodAt, en.stale = prev.file, prev.goodAt, true
				if end := prev.goodAt.Add(backend.MaxStale); end.Before(en.expires) {
					en.expires = end
				}
			}
		}
	}
	en.size = tdmEntryOverhead + int64(en.file.Size())
	return en
}

// TDMRep keeps the tdmrep.json in force per origin: an LRU bounded by
// TDMRepConfig.Size origins and MaxBytes octets, and one fetch per origin
// at a time. It is safe for concurrent use; mu is held only for map and
// list operations, never across I/O.
type TDMRep struct {
	cfg     TDMRepConfig
	flights singleflight.Group // one fetch per origin at a time

	mu    sync.Mutex
	items map[Origin]*list.Element // guarded by mu; values are *tdmEntry
	order list.List                // guarded by mu; front is most recent
	bytes int64                    // guarded by mu; the entries' sizes

	// front is the entry the last locked get returned, while no put has
	// happened since: it is then the front of order, so a get of its
	// origin may return it without the lock. Written under mu only.
	front atomic.Pointer[tdmEntry]
}

// NewTDMRep returns an empty TDMRep.
func NewTDMRep(cfg TDMRepConfig) *TDMRep {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &TDMRep{cfg: cfg, items: make(map[Origin]*list.Element)}
}

// get returns o's entry, or nil, and marks it most recently used.
func (c *TDMRep) get(o Origin) *tdmEntry {
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
func (c *TDMRep) peek(o Origin) *tdmEntry {
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
func (c *TDMRep) put(en *tdmEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.front.Store(nil)
	if el, ok := c.items[en.origin]; ok {
		c.bytes -= el.Value.(*tdmEntry).size
		c.order.Remove(el)
		delete(c.items, en.origin)
	}
	if en.size > c.cfg.MaxBytes {
		return
	}
	c.items[en.origin] = c.order.PushFront(en)
	c.bytes += en.size
	for c.order.Len() > c.cfg.Size || c.bytes > c.cfg.MaxBytes {
		old := c.order.Remove(c.order.Back()).(*tdmEntry)
		delete(c.items, old.origin)
		c.bytes -= old.size
	}
}

// Forget drops o's entry, if any.
func (c *TDMRep) Forget(o Origin) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.front.Store(nil)
	if el, ok := c.items[o]; ok {
		c.bytes -= el.Value.(*tdmEntry).size
		c.order.Remove(el)
		delete(c.items, o)
	}
}

// Cached returns the tdmrep.json cached for o, however old, without
// fetching it, and marks it most recently used; nil when none is cached
// or the cached one states nothing.
func (c *TDMRep) Cached(o Origin) *tdmrep.File {
	if en := c.get(o); en != nil {
		return en.file
	}
	return nil
}

// File returns the tdmrep.json in force for o, fetching it when it is
// not cached or has expired; nil states nothing. Callers for one origin
// share one fetch. The error is ctx's, when it ended first. When this
// machine could not fetch (Errors.Local), the file in force is the last
// one cached, however old, and nothing is cached.
//
// freshUntil is a time the caller knows is still ahead (the expiry of
// the robots.txt entry it has just been given): a file that expires after
// it is fresh without a look at the clock, which is most of the time, as
// the file is fetched just after robots.txt and lives as long.
func (c *TDMRep) File(ctx context.Context, o Origin, freshUntil time.Time) (*tdmrep.File, error) {
	f, _, err := c.FileHit(ctx, o, freshUntil)
	return f, err
}

// FileHit is File, and reports whether o's file was cached and fresh
// (hit), so that the call neither fetched nor waited.
func (c *TDMRep) FileHit(ctx context.Context, o Origin, freshUntil time.Time) (f *tdmrep.File, hit bool, err error) {
	if en := c.get(o); en != nil && (freshUntil.Before(en.expires) || c.cfg.Fetcher.cfg.Now().Before(en.expires)) {
		return en.file, true, nil
	}
	f, err = c.fetchFile(ctx, o)
	return f, false, err
}

// fetchFile is File for an origin not cached fresh.
func (c *TDMRep) fetchFile(ctx context.Context, o Origin) (*tdmrep.File, error) {
	ctx, stop := closing.Bound(ctx, c.cfg.Closing)
	defer stop()
	key := o.String()
	for {
		ch := c.flights.DoChan(key, func() (any, error) { return c.refresh(ctx, o) })
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
			if prev := c.peek(o); prev != nil {
				return prev.file, nil
			}
			return nil, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// refresh fetches o's tdmrep.json and stores the new entry. It runs once
// per origin at a time (singleflight).
func (c *TDMRep) refresh(ctx context.Context, o Origin) (*tdmEntry, error) {
	prev := c.peek(o)
	if prev != nil && c.cfg.Fetcher.cfg.Now().Before(prev.expires) {
		return prev, nil // a fetch that finished while we queued
	}
	failures := 1
	if prev != nil {
		failures = prev.failures + 1
	}
	res, err := c.fetch(ctx, o, failures)
	if err != nil {
		return nil, err
	}
	en := newTDMEntry(o, prev, res)
	c.put(en)
	if c.cfg.Fetched != nil {
		c.cfg.Fetched(res.state)
	}
	switch res.state {
	case TDMRepMalformed:
		if prev == nil || prev.state != TDMRepMalformed {
			c.cfg.Logger.Warn("robotsext: tdmrep.json is malformed and states nothing; the crawl goes on without it",
				"url", res.url, "error", res.err.Error())
		}
	case TDMRepUnreachable:
		c.cfg.Logger.Debug("robotsext: tdmrep.json unreachable", "url", res.url, "error", res.err.Error(), "stale_copy", en.stale)
	}
	return en, nil
}

// tdmFetch is one fetch of a tdmrep.json, classified.
type tdmFetch struct {
	url     string // the tdmrep.json URL, for logs
	state   TDMRepState
	file    *tdmrep.File // TDMRepFound only
	err     error        // why, for TDMRepMalformed and TDMRepUnreachable
	at      time.Time    // when the request was sent
	expires time.Time
}

// fetch requests o's tdmrep.json as the robots.txt request goes out (see
// the file comment) and classifies the answer. failures is how many
// unreachable answers in a row this one would make, for the backoff. The
// error is non-nil only when ctx ends, or this machine could not fetch
// (it wraps Errors.Local).
func (c *TDMRep) fetch(ctx context.Context, o Origin, failures int) (tdmFetch, error) {
	if err := c.cfg.Pace(ctx, o.Host); err != nil {
		return tdmFetch{}, err
	}
	hdr := c.cfg.Header()
	if hdr.Get("Accept") == "" {
		hdr.Set("Accept", "application/json")
	}
	f := c.cfg.Fetcher
	a, err := f.FetchFile(ctx, o, tdmrep.WellKnownPath, hdr, tdmrep.MaxFileSize)
	if err != nil {
		return tdmFetch{}, err
	}
	res := tdmFetch{url: a.URL, at: a.FetchedAt, expires: a.FetchedAt.Add(a.Fresh)}
	errs := &f.cfg.Errors
	switch s := a.Status; {
	case s == 0 && (errors.Is(a.Err, errs.TooManyRedirects) || errors.Is(a.Err, errs.RedirectNotHTTP)):
		res.state, res.expires = TDMRepMissing, a.FetchedAt.Add(f.cfg.TTL)
	case s == 0, s == http.StatusTooManyRequests, s >= 500, s < 200:
		res.state, res.err = TDMRepUnreachable, a.Err
		if res.err == nil {
			res.err = fmt.Errorf("%s answered HTTP %d", a.URL, s)
		}
		res.expires = a.FetchedAt.Add(backoff(failures, a.RetryAfter))
	case s < 300:
		file, err := tdmrep.Parse(a.Body)
		switch {
		case err == nil:
			res.state, res.file = TDMRepFound, file
		case errors.Is(err, tdmrep.ErrNotJSON):
			res.state = TDMRepMissing
		default:
			res.state, res.err = TDMRepMalformed, err
		}
	default: // 3xx not followed, 4xx
		res.state = TDMRepMissing
	}
	return res, nil
}
