package robotsext

// This file wires the robots.txt lifecycle (internal/lifecycle: the
// fetch, its outcomes, freshness, the cache and the shared records) into
// the Extension: the cache's configuration (and, with WithPurpose, that of
// the tdmrep.json cache beside it), the lookup every request makes, and
// what the Extension does with each entry installed (the host's pace, the
// counters, the log).

import (
	"context"
	"net/http"
	"time"

	"github.com/robotsext/robotsext/internal/lifecycle"
	"github.com/robotsext/robotsext/internal/pagecache"
)

// newCache builds e's robots.txt cache; e.pacer must be ready.
func (e *Extension) newCache() *lifecycle.Cache {
	cfg := e.cfg
	fc := cfg.fetcherConfig(cfg.backend != nil)                                     // records carry the raw body
	fc.Base = func() http.RoundTripper { return pagecache.CollectorTransport(e.c) } // robots.txt goes out as the pages do
	return lifecycle.New(lifecycle.Config{
		Fetcher:  lifecycle.NewFetcher(fc),
		Size:     cfg.cacheSize,
		MaxBytes: cfg.cacheMemory,
		Backend:  cfg.backend,
		Health:   backendHealth{e},

		LeaseMargin:    cfg.leaseMargin,
		LocalRetryWait: cfg.localRetryWait,
		Now:            cfg.clock(),
		Epoch:          cfg.epoch,
		Logger:         cfg.logger,

		Header:     e.requestHeader,
		Token:      e.token,
		Overridden: cfg.overridden,
		Pace:       e.pacer.PaceFetch,
		Installed:  e.installed,
		Evicted:    e.forgetHost, // the pacer and the response counts are no larger than the cache
		Context:    e.context,
		Closing:    e.closer.Context(),
		Origin:     originOfKey,
	})
}

// newTDMRep builds e's cache of tdmrep.json files (WithPurpose); e.cache
// must be ready: its Fetcher makes the requests.
func (e *Extension) newTDMRep() *lifecycle.TDMRep {
	return lifecycle.NewTDMRep(lifecycle.TDMRepConfig{
		Fetcher:  e.cache.Fetcher(),
		Size:     e.cfg.cacheSize,
		MaxBytes: e.cfg.cacheMemory,
		Logger:   e.cfg.logger,
		Header:   e.requestHeader,
		Pace:     e.pacer.PaceFetch,
		Fetched:  e.stats.tdmFetched,
		Closing:  e.closer.Context(),
	})
}

// entryFor returns o's entry in force, fetching robots.txt when it is
// missing or expired (lifecycle.Cache.Get); with a Backend that shares
// pauses, it first reads the fleet's pauses when due (backoff.go).
func (e *Extension) entryFor(ctx context.Context, o lifecycle.Origin) (*lifecycle.Entry, error) {
	en, _, _, err := e.entryAt(ctx, o)
	return en, err
}

// entryAt is entryFor for the OnRequest hook, which reads the clock once:
// now is the instant the entry was found fresh at, and hit reports that
// it was cached and fresh, so that nothing waited since now.
func (e *Extension) entryAt(ctx context.Context, o lifecycle.Origin) (en *lifecycle.Entry, now time.Duration, hit bool, err error) {
	if e.closer.Closed() {
		return nil, 0, false, ErrClosed
	}
	if e.pauses.Fleet() {
		e.pauses.Poll(e.cfg.now(), o.Host)
	}
	now = e.cfg.instant()
	en, hit, err = e.cache.GetAt(ctx, o, now)
	if !hit && e.closer.Closed() { // Close came while robots.txt was awaited
		return nil, now, false, ErrClosed
	}
	return en, now, hit, err
}

// installed tells the pacer of the entry the cache installed, and, for a
// fetch this Extension made, counts and logs it.
func (e *Extension) installed(ctx context.Context, en *lifecycle.Entry, hdr http.Header, fetched bool) {
	delay, ok := en.Policy.CrawlDelay(en.SelToken)
	e.pacer.Loaded(en.Origin.Host, delay, ok, en.Robots.FetchedAt)
	if fetched {
		if e.closer.Closed() { // a fetch in flight at Close: its connection goes too
			e.cache.Fetcher().Close()
		}
		e.stats.fetched(en.Robots)
		e.stats.fetchDurations.Observe(e.cfg.now().Sub(en.Robots.FetchedAt))
		// The robots.txt request is the host's first request fleet-wide.
		e.pacer.Fetched(ctx, en.Origin.Host)
		e.logFetch(ctx, en, en.SelToken, userAgentOf(hdr))
	}
	if !ok {
		e.logDefaultPace(ctx, en.Origin.Host) // logging.go
	}
}

// forgetHost drops what the Extension keeps of host once the cache holds
// no origin on it: its pace and its response counts.
func (e *Extension) forgetHost(host string) {
	e.pacer.Forget(host)
	e.tallies.Forget(host)
}

// originOfKey reads an origin a Backend's purge log names.
func originOfKey(s string) (lifecycle.Origin, bool) {
	o, _, err := parseOrigin(s)
	return o, err == nil
}
