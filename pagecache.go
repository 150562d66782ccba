package robotsext

// This file is the page cache's glue (internal/pagecache holds the
// machinery): its options, CacheResult, and the hooks' part — a fresh page
// is claimed in OnRequest, after its URL was decided and before the pace;
// the request as sent decides (at the wire and in the cache's transport):
// served without a request, or paced there and sent. A page Colly serves
// from its own CacheDir skips the pace too.

import (
	"context"
	"net/http"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/cacheresult"
	"github.com/robotsext/robotsext/internal/pagecache"
)

// DefaultPageCacheSize is the bound of WithPageCache's directory: past
// it, the least recently used pages are evicted down to 90% of it.
const DefaultPageCacheSize = pagecache.DefaultDiskLimit

// PageStore keeps the page cache's entries by key, for WithPageStore: a
// store a fleet shares (redisbackend.PageStore) or one of your own. Get
// reports ok false for a key it does not hold; an error is the store's own
// failure, logged once and taken as a miss. Implementations must be safe
// for concurrent use.
type PageStore interface {
	Get(ctx context.Context, key string) (entry []byte, ok bool, err error)
	Set(ctx context.Context, key string, entry []byte) error
	Delete(ctx context.Context, key string) error
}

// NewDiskPageStore returns the PageStore WithPageCache uses: a directory
// of one file per page, written atomically (a crash mid-write leaves no
// torn entry), shared safely by collectors and processes, bounded to
// limit bytes (DefaultPageCacheSize when limit ≤ 0).
func NewDiskPageStore(dir string, limit int64) (PageStore, error) {
	return pagecache.NewDisk(dir, limit)
}

// WithPageCache caches the collectors' pages under dir, as an RFC 9111
// private cache kept across runs (see docs/page-cache.md): a fresh page is
// served without a request and without waiting for its host's pace; a
// stale one is revalidated (If-None-Match, If-Modified-Since) by a request
// like any other, and a 304 reaches the callbacks as the stored 200. Every
// URL is decided first: a URL robots.txt refuses is never served from the
// cache. The directory is bounded by DefaultPageCacheSize (use
// WithPageStore(NewDiskPageStore(dir, n)) for another bound); one that
// cannot be created is logged and the crawl goes on uncached.
//
// The cache is the collectors' transport: Apply and Attach set it, in
// front of the collector's own (a proxy or transport set before Apply),
// else WithHTTPClient's (http.DefaultTransport without). One set after
// Apply must be wrapped: c.WithTransport(ext.PageTransport(t)). One set
// otherwise (SetProxy, SetProxyFunc, SetClient, WithTransport) replaces
// the cache: a Warn says so at the collector's next request, and its
// pages go out paced and uncached; none is lost.
func WithPageCache(dir string) Option { return func(c *config) { c.pageDir, c.pageStore = dir, nil } }

// WithPageStore is WithPageCache over a PageStore of your choice.
func WithPageStore(s PageStore) Option { return func(c *config) { c.pageStore, c.pageDir = s, "" } }

// CacheResult is what the page cache did for one response
// (cacheresult.Result, where it reads in full); see CacheResultOf.
type CacheResult = cacheresult.Result

// The CacheResult values.
const (
	CacheNone        CacheResult = cacheresult.None        // the cache had no part: off, not a GET or HEAD, or a request with its own conditional
	CacheMiss        CacheResult = cacheresult.Miss        // nothing usable was stored: downloaded
	CacheHit         CacheResult = cacheresult.Hit         // a fresh copy was served: nothing was sent
	CacheRevalidated CacheResult = cacheresult.Revalidated // the stored copy was validated (304) and served
	CacheStale       CacheResult = cacheresult.Stale       // the origin replaced the stored copy with a new response (an error keeps it: CacheNone)
)

// CacheResultOf returns what the page cache did for resp, in OnResponse,
// OnHTML or OnScraped.
func CacheResultOf(resp *colly.Response) CacheResult {
	if resp == nil || resp.Headers == nil {
		return CacheNone
	}
	return pagecache.ParseResult(resp.Headers.Get(pagecache.StatusHeader))
}

// PageTransport returns rt behind the Extension's page cache, for
// c.WithTransport after Apply; rt itself without WithPageCache.
func (e *Extension) PageTransport(rt http.RoundTripper) http.RoundTripper {
	if e.pages == nil {
		return rt
	}
	return &pagecache.Transport{Cache: e.pages, Next: rt, Pace: e.paceClaimed}
}

// How a request was served without leaving the machine (Extension.local).
const (
	localPage  = pagecache.LocalPage  // claimed from the page cache
	localColly = pagecache.LocalColly // in Colly's CacheDir
)

// newPageCache sets e.pages to the page cache the options ask for; it
// stays nil without one.
func (e *Extension) newPageCache() {
	st := e.cfg.pageStore
	if st == nil && e.cfg.pageDir != "" {
		d, err := pagecache.NewDisk(e.cfg.pageDir, 0)
		if err != nil {
			e.cfg.logger.Warn("robotsext: WithPageCache's directory cannot be used; pages are not cached", "error", err.Error())
			return
		}
		st = d
	}
	if st != nil {
		e.pages = pagecache.New(pagecache.Config{Store: st, Now: e.cfg.now, Logger: e.cfg.logger})
	}
}

// attachPageCache makes the page cache c's transport, in front of c's own.
func (e *Extension) attachPageCache(c *colly.Collector) {
	if e.pages == nil {
		return
	}
	next := pagecache.CollectorTransport(c)
	if next == nil && e.cfg.client != nil {
		next = e.cfg.client.Transport // nil: http.DefaultTransport
	}
	c.WithTransport(e.PageTransport(next))
}

// servedLocally reports whether r will be answered without a request,
// from the page cache (claimed for the transport) or Colly's CacheDir,
// so that it skips the pace. A request either one cannot serve after all
// goes out paced: the OnRequestHeaders gate still runs for it.
func (e *Extension) servedLocally(c *colly.Collector, r *colly.Request) bool {
	if r.Headers == nil {
		return false
	}
	if e.pages != nil && c.CacheDir != "" && e.collyCacheWarned.CompareAndSwap(false, true) {
		e.cfg.logger.Warn("robotsext: the collector's CacheDir is set beside WithPageCache: Colly answers from its own cache first " +
			"(keyed on the URL alone, never revalidated) before the page cache is asked; leave CacheDir empty")
	}
	var mark pagecache.Kind
	if c.CacheDir != "" && pagecache.InCollyCache(c.CacheDir, c.CacheExpiration, r.Method, r.URL.String(), r.Headers.Get("Cache-Control")) {
		mark = localColly
	} else if e.pages != nil {
		if fronts, known := e.pages.Fronts(c); known && !fronts {
			e.lostPages(c)
		} else if _, lost := e.pagesLost.Load(c); !lost {
			if en, fresh := e.pages.Lookup(contextOf(c), r.Method, r.URL, *r.Headers); fresh && e.pages.Claim(r.URL, en, claimOwner{c, r}) {
				mark = localPage
			}
		}
	}
	if mark != 0 {
		e.local.Mark(r, mark, r.URL, e.abandoned)
	}
	return mark != 0
}

// abandoned reports a marked request that was aborted (a callback after
// Apply may abort it, and no hook then unmarks it), releasing its claim.
func (e *Extension) abandoned(k any) bool {
	r := k.(*colly.Request)
	if r.IsAbort() && e.pages != nil {
		e.pages.Release(r.URL)
	}
	return r.IsAbort()
}

// claimOwner is the request a claim was made for.
type claimOwner struct {
	c *colly.Collector
	r *colly.Request
}

// localAtWire is the OnRequestHeaders hook's part: true for a request the
// page cache serves (no pace at the wire), decided again on the header as
// it will be sent (all OnRequest callbacks run, the jar's cookies added).
// A claim that no longer fits, and a request marked for Colly's CacheDir
// (this hook runs only for a request Colly sends), are unmarked and
// paced here as any other.
func (e *Extension) localAtWire(c *colly.Collector, r *colly.Request) bool {
	m, ok := e.local.Kind(r)
	if !ok {
		return false
	}
	if m == localPage {
		if en, ok := e.pages.Claimed(r.URL); ok && e.pages.Usable(en, r.Method, pagecache.SentHeader(*r.Headers, c.Cookies(r.URL.String()))) {
			return true
		}
	}
	e.paceLate(c, r)
	return r.IsAbort()
}

// paceLate paces a request that skipped the pace for a local answer it
// does not get after all: its claim is dropped, and it waits as the
// OnRequest hook would have made it wait.
func (e *Extension) paceLate(c *colly.Collector, r *colly.Request) {
	if e.pages != nil {
		e.pages.Release(r.URL)
	}
	e.local.Unmark(r)
	o, err := originOf(r.URL)
	ctx := contextOf(c)
	if err != nil || e.adaptive.On() && e.adaptive.Wait(ctx, o.Host) != nil {
		return
	}
	if e.pacer.Paced() {
		e.paceWait(ctx, r, o.Host, e.cfg.instant())
	}
}

// paceClaimed is the cache transport's Pace: a claimed request the
// transport found it may not serve (its header changed after the wire
// hook) is paced, and gated as at the wire, before it is sent; one sent
// again after a 304 no stored copy matched (owner nil), as a hop to itself.
func (e *Extension) paceClaimed(req *http.Request, owner any) error {
	if owner == nil {
		e.responded(req.URL, Status3xx)
		if err := e.paceHop(req, []*http.Request{pagecache.FirstHop(req), req}, true); err != nil {
			return err
		}
		return e.signHop(req) // webbotauth.go: a signature of its own, after its pace
	}
	o, ok := owner.(claimOwner)
	if !ok {
		return nil
	}
	e.paceLate(o.c, o.r)
	e.onRequestHeaders(o.c, o.r)
	if o.r.IsAbort() {
		return colly.ErrAbortedBeforeRequest
	}
	return contextOf(o.c).Err()
}

// localAnswer is the OnResponseHeaders hook's part: true for a response
// served without a request, which the host's pace, back-off and tallies
// never see (a page the transport served after the pace ends its claim).
// A response that did not pass the page cache's transport tells that the
// collector's transport was replaced. After a redirect answered locally,
// the response is the site's; its hops' claim (under the first URL) ends.
func (e *Extension) localAnswer(c *colly.Collector, resp *colly.Response) bool {
	if u, ok := e.local.Unmark(resp.Request); ok && u == resp.Request.URL {
		return true
	} else if ok {
		e.pacer.Ended(e.context(), u)
	}
	if e.pages == nil || resp.Headers == nil {
		return false
	}
	switch resp.Headers.Get(pagecache.StatusHeader) {
	case "":
		e.lostPages(c)
	case pagecache.Hit.String(): // paced, then served from an entry stored meanwhile
		if e.adaptive.On() {
			e.adaptive.Answered(resp.Request, resp.Request.URL.Host, true) // forgets its start; never shortens
		}
		e.pacer.Ended(e.context(), resp.Request)
		return true
	}
	return false
}

// pageFailed is the page cache's part of the OnError hook: a claimed
// request that failed (aborted after OnRequest) releases its claim. It
// reports whether the request's first hop was answered locally.
func (e *Extension) pageFailed(resp *colly.Response) bool {
	u, ok := e.local.Unmark(resp.Request)
	if ok {
		e.pages.Release(u)
		e.pacer.Ended(e.context(), u) // a hop after a redirect answered locally
	}
	return ok
}

// lostPages notes, once per collector, that its transport is no longer
// the page cache: its pages are fetched uncached from now on.
func (e *Extension) lostPages(c *colly.Collector) {
	if _, had := e.pagesLost.LoadOrStore(c, true); !had {
		e.cfg.logger.Warn("robotsext: the collector's transport is not the page cache's (SetProxy, SetProxyFunc, SetClient or WithTransport after Apply): " +
			"its pages are no longer cached, and are still paced; set the transport through WithHTTPClient, or after Apply as c.WithTransport(ext.PageTransport(t))")
	}
}

// pageStats fills the page cache's counters of s.
func (e *Extension) pageStats(s *Stats) {
	if e.pages == nil {
		return
	}
	n := e.pages.Counts()
	s.PageCache = PageCacheStats{Hits: n.Hits, Revalidated: n.Revalidated, Misses: n.Misses, Stale: n.Stale,
		BytesSaved: n.Saved, Corrupt: n.Corrupt, StoreErrors: n.StoreErrors}
}

// PageCacheStats counts what the page cache did (Stats.PageCache).
type PageCacheStats struct {
	Hits        uint64 // fresh pages served without a request
	Revalidated uint64 // stored pages validated by a 304 and served
	Misses      uint64 // pages downloaded with nothing usable stored
	Stale       uint64 // stored pages the origin replaced with a new response
	BytesSaved  uint64 // body bytes served from the cache: not downloaded
	Corrupt     uint64 // stored entries that could not be read back (each a miss)
	StoreErrors uint64 // failures of the store itself (each a miss or an entry not stored)
}
