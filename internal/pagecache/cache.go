package pagecache

// This file is the Cache: the key of a request, the lookup the root's
// OnRequest hook makes before it paces (a fresh entry is claimed for the
// Transport to serve), and the counters.

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotsext/robotsext/cacheresult"
)

// Result is what the cache did for one response (cacheresult.Result,
// the public type the root package names CacheResult).
type Result = cacheresult.Result

// The Result values.
const (
	None        = cacheresult.None
	Miss        = cacheresult.Miss
	Hit         = cacheresult.Hit
	Revalidated = cacheresult.Revalidated
	Stale       = cacheresult.Stale
)

// ParseResult reads a Result's String back; anything else is None.
func ParseResult(s string) Result { return cacheresult.Parse(s) }

// SentStatus is the status the origin sent for a response the Transport
// returned with status and header h: 304 for a revalidated page (its
// callbacks get the stored status), status otherwise.
func SentStatus(status int, h *http.Header) int {
	if h != nil && h.Get(StatusHeader) == Revalidated.String() {
		return http.StatusNotModified
	}
	return status
}

const (
	// StatusHeader is the response field the Transport sets, on every
	// response it returns, to its Result (a server's own is replaced).
	StatusHeader = "Robotsext-Cache"
	// DefaultMaxEntry is the largest body stored when Config.MaxEntry is
	// 0; a larger page is passed through and not stored.
	DefaultMaxEntry = 8 << 20
	// maxClaims bounds the claims waiting for the Transport; past it,
	// Claim refuses (the request is then paced and sent as any other).
	maxClaims = 1 << 14
)

// Config configures New.
type Config struct {
	Store    Store
	Now      func() time.Time // nil: time.Now
	Logger   *slog.Logger     // nil: slog.Default()
	MaxEntry int64            // largest body stored; 0: DefaultMaxEntry
}

// Counts is a snapshot of a Cache's counters.
type Counts struct {
	Hits, Revalidated, Misses, Stale uint64
	// Saved is the bytes of body served from the cache (hits and
	// revalidations): what was not downloaded.
	Saved uint64
	// Corrupt is the entries that could not be read back (each a miss);
	// StoreErrors the failures of the store itself.
	Corrupt, StoreErrors uint64
}

// Cache is an RFC 9111 private cache over a Store. It is safe for
// concurrent use.
type Cache struct {
	store    Store
	now      func() time.Time
	logger   *slog.Logger
	maxEntry int64

	mu      sync.Mutex
	claims  map[*url.URL]claim // guarded by mu: fresh entries set aside by Claim, by the request's URL
	flights map[string]*flight // guarded by mu: the request sent for a key, landed once its entry is stored or dropped

	hits, revalidated, misses, stale, saved, corrupt, storeErrors atomic.Uint64
	corruptLogged, storeErrLogged                                 atomic.Bool
}

// New returns a Cache over cfg.Store.
func New(cfg Config) *Cache {
	c := &Cache{store: cfg.Store, now: cfg.Now, logger: cfg.Logger, maxEntry: cfg.MaxEntry, claims: map[*url.URL]claim{}, flights: map[string]*flight{}}
	if c.now == nil {
		c.now = time.Now
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	if c.maxEntry <= 0 {
		c.maxEntry = DefaultMaxEntry
	}
	return c
}

// Counts returns the counters.
func (c *Cache) Counts() Counts {
	return Counts{Hits: c.hits.Load(), Revalidated: c.revalidated.Load(), Misses: c.misses.Load(), Stale: c.stale.Load(),
		Saved: c.saved.Load(), Corrupt: c.corrupt.Load(), StoreErrors: c.storeErrors.Load()}
}

// Key is the cache key of a request (RFC 9111 §2): its method and its
// target URI without the fragment.
func Key(method string, u *url.URL) string {
	if u.Fragment != "" || u.RawFragment != "" {
		v := *u
		v.Fragment, v.RawFragment = "", ""
		u = &v
	}
	return method + " " + u.String()
}

// Cacheable reports whether a request may use the cache at all: a GET or
// HEAD without a conditional or Range header of its own (those are the
// caller's exchange with the origin, passed through untouched).
func Cacheable(method string, h http.Header) bool {
	if method != http.MethodGet && method != http.MethodHead {
		return false
	}
	for _, f := range [...]string{"If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"} {
		if len(h[f]) > 0 {
			return false
		}
	}
	return true
}

// Lookup returns the entry stored for a request and whether it is fresh
// for it now. A corrupt entry is deleted, logged once, and a miss; so is
// an entry whose Vary fields do not match (it stays stored).
func (c *Cache) Lookup(ctx context.Context, method string, u *url.URL, h http.Header) (e *Entry, fresh bool) {
	if u == nil || !Cacheable(method, h) {
		return nil, false
	}
	key := Key(method, u)
	b, ok, err := c.store.Get(ctx, key)
	if err != nil {
		c.storeFailed(err)
		return nil, false
	}
	if !ok {
		return nil, false
	}
	e, err = Decode(b)
	if err != nil || e.URL != key[len(method)+1:] || e.Method != method {
		c.corrupt.Add(1)
		if c.corruptLogged.CompareAndSwap(false, true) {
			c.logger.Warn("robotsext: a stored page could not be read back and is fetched again (logged once)", "error", ErrCorrupt.Error())
		}
		_ = c.store.Delete(ctx, key)
		return nil, false
	}
	if !VaryMatches(e, h) {
		return nil, false
	}
	return e, Fresh(e, ParseCacheControl(h), c.now())
}

// storeFailed counts a store failure, logged once.
func (c *Cache) storeFailed(err error) {
	c.storeErrors.Add(1)
	if c.storeErrLogged.CompareAndSwap(false, true) {
		c.logger.Warn("robotsext: the page cache's store failed; pages are fetched without it meanwhile (logged once)", "error", err.Error())
	}
}
