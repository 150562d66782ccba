package lifecycle

// This file holds the Cache, which keeps each origin's entry in force:
// its configuration, the lookup every request makes, and what it counts.
// refresh.go brings an entry up to date, shared.go does so through a
// Backend, refetch.go keeps re-fetches polite, purge.go follows the
// fleet's purges.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/robotsext/robotsext/backend"
	"golang.org/x/sync/singleflight"
)

// Config is what a Cache is made of. The root package fills it from its
// options and hands it the crawl's side of each step as funcs; Fetcher,
// Size and MaxBytes are required, a nil func does nothing.
type Config struct {
	// Fetcher makes the requests; its Errors are the Cache's too.
	Fetcher *Fetcher
	// Size bounds the origins kept and MaxBytes the bytes their entries
	// retain; the least recently used go first.
	Size     int
	MaxBytes int64
	// Backend shares records with other Caches; nil: the Cache's own.
	// Health tells whether it may be tried and takes its failures; nil:
	// always up.
	Backend backend.Backend
	Health  Health
	// LeaseMargin is added to the fetch timeout for the life of a lease
	// from a Backend that cannot renew leases (0: 5 s); LocalRetryWait is
	// the first wait before a fetch that failed because of this machine
	// is tried again (0: 100 ms). Tests shorten them.
	LeaseMargin, LocalRetryWait time.Duration
	// Now is the clock of lifetimes; nil: time.Now.
	Now func() time.Time
	// Sleep waits d, or until ctx ends, for the Cache's own waits (the
	// reads of a record while another worker fetches it), which are then
	// timed by Now too; nil: real time, timed by time.Now whatever Now
	// is. Tests set both to move a hand clock.
	Sleep func(ctx context.Context, d time.Duration) error
	// Epoch is the instant 0 of that clock: GetAt takes the clock read as
	// an offset from it. Zero: Now() when New runs.
	Epoch time.Time
	// Logger takes the Cache's warnings; nil: none.
	Logger *slog.Logger

	// Header returns the header of the next robots.txt request, the
	// Cache's to keep (see RequestHeader); nil: no header.
	Header func() http.Header
	// Token returns the product token an entry resolves its groups for
	// (Entry.Sel); nil: "*".
	Token func() string
	// Overridden reports whether the crawl ignores o's rules
	// (Entry.Override).
	Overridden func(o Origin) bool
	// Pace waits until a robots.txt request to host may go out, as any
	// request to the host, and records it as the host's latest start.
	Pace func(ctx context.Context, host string) error
	// Installed is called with every entry installed, once it is in the
	// cache: fetched reports that this Cache made the request (with hdr),
	// rather than adopting a shared record.
	Installed func(ctx context.Context, en *Entry, hdr http.Header, fetched bool)
	// Evicted is called when the cache dropped the last origin on host to
	// stay within its bounds.
	Evicted func(host string)
	// Context returns the context the reads of a Backend's purge log run
	// under; nil: context.Background.
	Context func() context.Context
	// Closing ends when the owner closes: a miss's waits and fetch end
	// then too (closing.Bound); nil: never.
	Closing context.Context
	// Origin reads an origin named in a Backend's purge log; nil: only a
	// log that was cut (which drops every entry) is acted on.
	Origin func(s string) (Origin, bool)
}

// Health is what the Cache is told of its Backend, whose every call the
// root package tracks: whether it may be tried now, and where to report a
// failed call.
type Health interface {
	// Up reports whether the Backend may be tried now for host's
	// records; while it says no, the Cache fetches host's robots.txt
	// locally.
	Up(host string) bool
	// Failed reports a failed Backend call.
	Failed(err error)
	// Settle is called after Failed, before the Cache fetches locally:
	// while the part of the Backend the call failed in is suspect, it
	// waits for the verdict of the probe sent at once, or for ctx, and
	// reports whether the part answered.
	Settle(ctx context.Context, err error) bool
}

// LocalRetries is how many times a fetch that failed because of this
// machine (Errors.Local) is tried again, Config.LocalRetryWait apart and
// doubling, before Get gives up.
const LocalRetries = 3

const (
	// defaultLocalRetryWait is Config.LocalRetryWait's default.
	defaultLocalRetryWait = 100 * time.Millisecond

	// defaultLeaseMargin is Config.LeaseMargin's default.
	defaultLeaseMargin = 5 * time.Second
)

// Cache keeps each origin's robots.txt in force: a bounded LRU of entries
// in front of the fetches (or of a Backend's records), one fetch per
// origin at a time. It is safe for concurrent use.
type Cache struct {
	cfg     Config  // read-only after New
	errs    *Errors // the Fetcher's
	lru     *lru
	flights singleflight.Group // one robots.txt fetch per origin at a time
	refetch refetches          // robots.txt requests on the wire, for Forget (refetch.go)

	forgetter backend.Forgetter // the Backend, when it is one; read-only after New
	purges    purgeWatch        // position in the Forgetter's purge log (purge.go)

	hits, misses, localErrors atomic.Uint64
	// seen is the latest clock reading a GetAt was given, to the second
	// (pin.go).
	seen atomic.Int64

	// realClock: Config.Now was nil, and Get reads the monotonic clock
	// alone, as an offset from epoch (now). Read-only after New.
	realClock bool
	epoch     time.Time
}

// New makes a Cache of cfg.
func New(cfg Config) *Cache {
	realClock := cfg.Now == nil
	if realClock {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.LeaseMargin <= 0 {
		cfg.LeaseMargin = defaultLeaseMargin
	}
	if cfg.LocalRetryWait <= 0 {
		cfg.LocalRetryWait = defaultLocalRetryWait
	}
	epoch := cfg.Epoch
	if epoch.IsZero() {
		epoch = cfg.Now()
	}
	c := &Cache{cfg: cfg, errs: &cfg.Fetcher.cfg.Errors, realClock: realClock, epoch: epoch}
	c.lru = newLRU(cfg.Size, cfg.MaxBytes, c.evicted)
	if f, ok := cfg.Backend.(backend.Forgetter); ok && f != nil {
		c.forgetter = f
	}
	return c
}

// Get returns o's entry in force, fetching robots.txt when it is missing
// or expired. Callers for one origin share one fetch. The error is the
// context's when ctx ends first, or wraps Errors.Local when this machine
// could not fetch robots.txt after a few tries. Once o is cached, Get
// takes at most the LRU's mutex and allocates nothing.
func (c *Cache) Get(ctx context.Context, o Origin) (*Entry, error) {
	en, _, err := c.GetAt(ctx, o, c.now())
	return en, err
}

// GetAt is Get for a caller that has read the clock already: now, that
// reading as an offset from Config.Epoch, tells whether o's cached entry
// is still in force. hit reports that it was, and that GetAt returned
// without a fetch or a wait.
func (c *Cache) GetAt(ctx context.Context, o Origin, now time.Duration) (en *Entry, hit bool, err error) {
	if c.forgetter != nil {
		c.maybePurge(c.epoch.Add(now))
	}
	c.see(now)
	en = c.lru.atFront(o) // inlined: no call for a crawl of one host
	if en == nil {
		en = c.lru.get(o)
	}
	if en != nil && now < en.Expires.Sub(c.epoch) {
		c.hits.Add(1)
		return en, true, nil
	}
	en, err = c.miss(ctx, o)
	return en, false, err
}

// now reads the Cache's clock as an offset from its epoch. On the real
// clock it reads the monotonic clock alone (time.Since), about half of
// what time.Now costs, which reads the wall clock too. An entry's expiry
// is compared as an offset from the same epoch (a wall-clock difference
// when Expires carries no monotonic reading, as a record from a Backend
// does).
func (c *Cache) now() time.Duration {
	if c.realClock {
		return time.Since(c.epoch)
	}
	return c.cfg.Now().Sub(c.epoch)
}

// Peek returns o's entry as cached, fresh or not, without fetching or
// marking it used; nil when o is not cached.
func (c *Cache) Peek(o Origin) *Entry { return c.lru.peek(o) }

// Fetcher returns the Fetcher the Cache makes its requests with, for the
// caller's other files of an origin (FetchFile), which then share its
// client and its fetch slots.
func (c *Cache) Fetcher() *Fetcher { return c.cfg.Fetcher }

// Forget drops o's entry, so that its next Get fetches robots.txt again
// (an answer requested before Forget is dropped once installed: any
// number of Forgets during a fetch make one fetch after it), and, when the
// Backend is a Forgetter, deletes the shared record and logs the purge for
// the other Caches.
func (c *Cache) Forget(ctx context.Context, o Origin) error {
	c.drop(o)
	if c.forgetter != nil {
		if err := c.forgetter.Forget(ctx, o.String()); err != nil {
			return fmt.Errorf("robotsext: forget %s in the backend: %w", o.String(), err)
		}
	}
	return nil
}

// drop removes o's entry here, and marks its fetch on the wire, if any,
// as answered too early.
func (c *Cache) drop(o Origin) {
	c.lru.remove(o)
	c.refetch.forget(o)
}

// Counts is a snapshot of what a Cache counted and holds.
type Counts struct {
	// Hits counts the Gets answered from a fresh entry, Misses those that
	// fetched or waited for a fetch; LocalErrors the Gets that gave up
	// because this machine could not fetch.
	Hits, Misses, LocalErrors uint64
	// Origins is the number of origins cached now, Bytes what their
	// entries retain; Evictions counts the origins dropped to stay within
	// the bounds.
	Origins   int
	Bytes     int64
	Evictions uint64
}

// Counts returns a snapshot of the counters.
func (c *Cache) Counts() Counts {
	n := Counts{Hits: c.hits.Load(), Misses: c.misses.Load(), LocalErrors: c.localErrors.Load()}
	n.Origins, n.Bytes, n.Evictions = c.lru.counts()
	return n
}

// install resolves en's groups and override, puts it in the cache and
// tells Config.Installed. fetched reports that this Cache made the
// request, with hdr.
func (c *Cache) install(ctx context.Context, en *Entry, hdr http.Header, fetched bool) {
	if c.cfg.Overridden != nil {
		en.Override = c.cfg.Overridden(en.Origin)
	}
	token := "*"
	if c.cfg.Token != nil {
		token = c.cfg.Token()
	}
	en.Sel, en.SelToken = en.Policy.Select(token), token
	if !c.lru.put(en, c.now()) {
		c.cfg.Logger.Warn("robotsext: robots.txt policy larger than WithCacheMemory; obeyed for this fetch but not cached",
			"url", en.Robots.URL, "bytes", en.Size, "cache_memory", c.cfg.MaxBytes)
	}
	if c.cfg.Installed != nil {
		c.cfg.Installed(ctx, en, hdr, fetched)
	}
}

// evicted tells Config.Evicted when the LRU dropped the last origin on
// en's host.
func (c *Cache) evicted(en *Entry) {
	if c.cfg.Evicted != nil && !c.lru.has(en.Origin.Twin()) {
		c.cfg.Evicted(en.Origin.Host)
	}
}

// backendUp reports whether the Backend may be tried now for host.
func (c *Cache) backendUp(host string) bool { return c.cfg.Health == nil || c.cfg.Health.Up(host) }

// backendErr reports a failed Backend call to Health and returns the
// error wrapping errBackend, or the context's error when ctx ended.
func (c *Cache) backendErr(ctx context.Context, op string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if c.cfg.Health != nil {
		c.cfg.Health.Failed(err)
	}
	return fmt.Errorf("%w: %s: %w", errBackend, op, err)
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// sleep waits d, or until ctx is done, by Config.Sleep or the real clock.
func (c *Cache) sleep(ctx context.Context, d time.Duration) error {
	if c.cfg.Sleep != nil {
		return c.cfg.Sleep(ctx, d)
	}
	return sleep(ctx, d)
}

// waitNow reads the clock that times c.sleep.
func (c *Cache) waitNow() time.Time {
	if c.cfg.Sleep != nil {
		return c.cfg.Now()
	}
	return time.Now()
}

// sleep waits d on the real clock, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
