package robotsext

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/robotsext/robotsext/internal/closing"
	"github.com/robotsext/robotsext/internal/health"
	"github.com/robotsext/robotsext/internal/lifecycle"
	"github.com/robotsext/robotsext/internal/pacing"
	"github.com/robotsext/robotsext/internal/pagecache"
	"github.com/robotsext/robotsext/internal/redact"
	"github.com/robotsext/robotsext/internal/tally"

	"github.com/gocolly/colly/v2"
	whatwgUrl "github.com/nlnwa/whatwg-url/url"
	"github.com/robotsext/robotsext/internal/robotstxt"
)

// Extension makes Colly collectors obey robots.txt. Apply creates it for
// one collector and Attach adds more; its methods are safe for concurrent
// use, also while the collectors are crawling.
//
// Per origin (scheme, host, port) robots.txt is fetched once, outside the
// collectors, and cached for its HTTP lifetime within 24 hours (LRU,
// bounded by WithCacheSize origins and WithCacheMemory bytes); concurrent
// requests to an origin wait for one fetch, and at most
// WithFetchConcurrency fetches run at once. With WithBackend, the cache is
// a near-cache of records shared with other Extensions or processes. A
// long-running service closes each Extension when its crawl ends (Close).
type Extension struct {
	c        *colly.Collector  // the collector given to Apply; may be nil
	cfg      *config           // read-only after Apply
	urls     whatwgUrl.Parser  // reads URLs as Colly's Visit does; safe for concurrent use
	cache    *lifecycle.Cache  // each origin's robots.txt (lifecycle.go); read-only after Apply
	tdm      *lifecycle.TDMRep // each origin's tdmrep.json (lifecycle.go); nil without WithPurpose
	pacer    *pacing.Pacer     // each host's Crawl-delay pace (delay.go); read-only after Apply
	pauses   *pacing.Backoff   // the hosts that asked for less (backoff.go); read-only after Apply
	adaptive *pacing.Adaptive  // WithAdaptivePace (delay.go); read-only after Apply
	stats    counters
	tallies  tally.Hosts // page responses per host (responses.go)
	id       identity    // the product token, derived once per User-Agent
	exports  sync.Map    // keys claimed by metrics adapters (ClaimExport)

	health        *health.Tracker // the Backend's health (health.go); read-only after Apply
	held          atomic.Int64    // requests held now (hold.go)
	maxHeld       int64           // MaxHeld when 0; tests set it before use
	builtinWarned atomic.Bool     // the warning of Colly's own check was logged
	marks         atomic.Int64    // pages marked so far (nofollow.go); 0: no request carries a mark
	closer        *closing.Closer // Close (close.go): it wakes every wait, and every lookup fails with ErrClosed

	ident identityState // what the identity checks remember (identitycheck.go)

	blockedMu sync.Mutex                                      // serializes OnBlocked registrations
	onBlocked atomic.Pointer[[]func(*colly.Request, Verdict)] // copy-on-write; read without a lock

	attachMu sync.Mutex
	attached map[*colly.Collector]bool        // guarded by attachMu
	visits   map[*colly.Collector]*visitStore // guarded by attachMu: each attached collector's storage wrapper (visits.go)

	storageWarned atomic.Bool // the warning of a storage replaced after Attach was logged
	paceSaid      atomic.Bool // the default pace was announced at Info (logging.go)

	// The page cache (pagecache.go): nil without WithPageCache; the
	// requests answered without leaving the machine (*colly.Request →
	// localPage or localColly); the collectors whose transport was
	// replaced (*colly.Collector → true).
	pages            *pagecache.Cache
	local            pagecache.Marks
	pagesLost        sync.Map
	collyCacheWarned atomic.Bool
}

// Apply makes c obey robots.txt and returns the Extension doing it: it
// builds the Extension from opts and attaches c (see Attach). Apply(nil)
// returns an Extension whose Check and Sitemaps work without a collector.
//
//	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; AcmeBot/2.1; +https://acme.example/bot)"))
//	ext := robotsext.Apply(c) // matches "User-agent: AcmeBot" groups
//
// The product token matched against robots.txt's user-agent lines comes
// from WithUserAgent, else from the collector's User-Agent (see
// WithUserAgent for how it is found). Without WithLogger, warnings (an
// unreachable robots.txt, a clamped Crawl-delay, an ignored option, a
// User-Agent without a crawler token) go to slog.Default().
//
// robots.txt goes out through the transport of the collector given to
// Apply, read at each fetch: a proxy or transport set with c.SetProxy,
// c.SetProxyFunc or c.WithTransport, before or after Apply, applies to it
// too, and a host's first page reuses robots.txt's connection.
// WithHTTPClient sets another.
//
// With WithPageCache, Apply puts the cache in front of the collector's
// transport (a proxy or transport set before Apply), else WithHTTPClient's;
// a transport or proxy set after Apply otherwise (WithTransport,
// SetProxy, SetProxyFunc, SetClient) replaces the cache: one Warn at the
// next request says so, and pages go out paced and uncached.
//
// Callbacks registered before Apply run before the hook; a request they
// abort is not checked. One aborted by a callback registered after Apply
// (any callback of a c.Clone() given to ext.Attach) has waited its host's
// pace, and costs it its turn's hold (a delay, more when Colly's slots
// are saturated; docs/politeness.md): filter URLs before Apply, or with
// colly.URLFilters or DisallowedURLFilters, which Visit checks before any
// OnRequest. OnRequest callbacks registered after Apply run even for a
// request the hook refused (Colly runs them all after an abort): test
// r.IsAbort() in them, or watch refusals with OnBlocked. A collector made
// with c.Clone() copies IgnoreRobotsTxt = true and c's redirect handler
// but none of its callbacks: unattached, it skips robots.txt silently, so
// give it to ext.Attach, and both share one cache and one pace per host.
// One Extension per collector: Apply on a collector that carries one
// already adds a second beside it (both hook every request, and once the
// first is closed it refuses them all with ErrClosed; one Warn says so):
// make a new collector per job.
func Apply(c *colly.Collector, opts ...Option) *Extension {
	cfg := newConfig(opts)
	e := &Extension{
		c:    c,
		cfg:  cfg,
		urls: whatwgUrl.NewParser(whatwgUrl.WithPercentEncodeSinglePercentSign()),
	}
	e.closer = closing.New(e.context())
	e.health = e.newHealth()
	e.newPacing()
	e.cache = e.newCache()
	e.newPageCache()
	if len(cfg.purposes) > 0 {
		e.tdm = e.newTDMRep()
	}
	for _, p := range cfg.badOverrides {
		cfg.logger.Warn("robotsext: ignoring WithOverride pattern: it can never match a URL's host", "pattern", p.pattern, "why", p.why)
	}
	for _, msg := range cfg.ignored {
		cfg.logger.Warn("robotsext: option adjusted: " + msg)
	}
	cfg.warnUnpaced()
	if cfg.signErr != nil {
		cfg.logger.Warn("robotsext: every request is refused until WithWebBotAuth is given a usable key and URL", "error", cfg.signErr.Error())
	}
	if cfg.tokenGiven != cfg.token {
		cfg.logger.Warn("robotsext: WithUserAgent takes a product token; using the token found in the value",
			"given", cfg.tokenGiven, "token", cfg.token)
	}
	e.Attach(c)
	return e
}

// Attach makes c obey robots.txt through e: one robots.txt cache, one
// pace per host, one Stats and the same OnBlocked functions for every
// collector attached, as for the one given to Apply. Use it for clones
// (detail := c.Clone(); ext.Attach(detail)): a clone not attached skips
// robots.txt, and after Close its redirects fail with ErrClosed. Use it
// for other collectors of the same crawl too. It turns Colly's own robots.txt check off
// (c.IgnoreRobotsTxt = true), so nothing is fetched twice; registers an
// OnRequest hook that aborts disallowed requests of every method, HEAD
// included, and waits for the host's Crawl-delay; an OnRequestHeaders hook
// that keeps the delay at the wire; an OnError hook that re-issues
// deferred redirect hops (see ErrRedirectDeferred); and a redirect handler
// that refuses redirect hops into disallowed URLs (see WithRedirectHandler
// for composing it with your own). The product token and the robots.txt
// request's headers come from the collector given to Apply. Attaching a
// collector twice does nothing more; Attach(nil) does nothing.
//
// Attach also wraps the collector's storage (Colly's storage.Storage, the
// default one or yours), so that a link refused for its page's sake
// (WithNofollow, WithRelNofollow, a page whose own usage preferences
// refuse the crawl) is not left marked visited; the wrapper passes every
// call through and keeps at most 32768 such marks forgotten. Collectors
// that share a storage share its wrapper, however they were made (a
// c.Clone() before or after Apply, given to Attach), so such a link
// refused by one is reachable from all of them; a collector with a
// storage of its own (c.SetStorage before Attach) gets a wrapper of its
// own. Call c.SetStorage before Apply or Attach: a storage set afterwards
// replaces the wrapper, and such links then stay marked visited, as in
// Colly. When it cannot keep them reachable (a storage set afterwards, a
// Colly keeping its storage elsewhere, a storage of a type Go cannot
// compare shared by clones), the Extension says so once at Warn.
func (e *Extension) Attach(c *colly.Collector) {
	if c == nil {
		return
	}
	e.attachMu.Lock()
	if e.attached == nil {
		e.attached = make(map[*colly.Collector]bool)
	}
	seen := e.attached[c]
	e.attached[c] = true
	var prev *Extension
	if !seen {
		prev = e.attachVisits(c) // visits.go: links refused for their page's sake stay reachable
	}
	e.attachMu.Unlock()
	if seen {
		return
	}
	if prev.hooks(c) {
		e.cfg.logger.Warn("robotsext: the collector carries another Extension already: both hook each request, and once that one is closed " +
			"it refuses them all with ErrClosed; use a new collector per Extension (see Apply)")
	}
	c.IgnoreRobotsTxt = true
	e.attachIdentity(c) // identitycheck.go: warnings, and the gate that refuses an unidentifiable crawl
	c.OnRequest(func(r *colly.Request) { e.onRequest(c, r) })
	c.OnRequestHeaders(func(r *colly.Request) { e.onRequestHeaders(c, r) })
	e.attachSigning(c)   // webbotauth.go: each request signed at the wire, after its pace
	e.attachPageCache(c) // pagecache.go: the page cache is the transport
	c.OnResponseHeaders(func(resp *colly.Response) { e.onResponseHeaders(c, resp) })
	c.OnResponse(e.onResponse)
	if e.cfg.relNofollow {
		c.OnHTML("html", e.onLinks)
	}
	c.OnError(func(resp *colly.Response, err error) { e.onError(c, resp, err) })
	next := e.cfg.redirect
	if !e.cfg.redirectSet {
		// Colly's COLLY_FOLLOW_REDIRECTS=no installs a handler we cannot
		// read back; honour the variable the way Colly does.
		if v, ok := os.LookupEnv("COLLY_FOLLOW_REDIRECTS"); ok && !isYes(v) {
			next = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		}
	}
	c.SetRedirectHandler(e.WrapRedirectHandler(next))
}

func isYes(s string) bool {
	switch strings.ToLower(s) {
	case "1", "yes", "true", "y":
		return true
	}
	return false
}

// OnBlocked registers fn to be called for every request the Extension
// aborts (in shadow mode: would abort), with the Verdict saying which rule
// on which line decided, or which fetch outcome. Functions run in the
// order registered, on the goroutine of the request, and must not block
// for long. OnRequest callbacks registered after Apply still run for a
// refused request (Colly runs each after an abort): OnBlocked is where a
// refusal shows, or test r.IsAbort() there.
//
// For a redirect hop the request describes the hop (URL, Method, Headers,
// Host) with a fresh empty Ctx and is not attached to the collector, so
// do not call its Visit, Retry or Do; the original request then reaches
// the collector's OnError with an error wrapping ErrBlocked.
func (e *Extension) OnBlocked(fn func(r *colly.Request, v Verdict)) {
	if fn == nil {
		return
	}
	e.blockedMu.Lock()
	defer e.blockedMu.Unlock()
	var fns []func(*colly.Request, Verdict)
	if old := e.onBlocked.Load(); old != nil {
		fns = append(fns, *old...)
	}
	fns = append(fns, fn)
	e.onBlocked.Store(&fns)
}

// Check decides rawURL as the OnRequest hook would decide c.Visit(rawURL),
// fetching its robots.txt if needed, with the collector's context and
// User-Agent. It reads the URL exactly as Colly's Visit does (WHATWG URL
// parsing: IDNA hosts, "." and ".." segments, escaping), so Check and the
// hook always agree. It is not counted in Stats' Allowed and Blocked. URLs
// that are not http or https are allowed with ReasonNotApplicable; the
// error is ErrInvalidURL for URLs Colly would reject or without a host,
// or the context's error; after Close it is ErrClosed, with a
// ReasonClosed Verdict. While the WithWebBotAuth key or URL is
// unusable, every other URL is refused with ReasonIdentity and the cause,
// as the hook refuses every request, and no robots.txt is fetched (its
// request could not be signed either).
func (e *Extension) Check(rawURL string) (Verdict, error) {
	return e.CheckContext(e.context(), rawURL)
}

// CheckContext is Check with a context of the caller's choosing.
func (e *Extension) CheckContext(ctx context.Context, rawURL string) (Verdict, error) {
	u, err := e.parseAsColly(rawURL)
	if err != nil {
		return Verdict{}, err
	}
	o, err := originOf(u)
	if err == ErrNotHTTP {
		return Verdict{Allowed: true, Reason: ReasonNotApplicable}, nil
	} else if err != nil {
		return Verdict{}, err
	}
	if e.cfg.signErr != nil {
		return Verdict{Allowed: false, Reason: ReasonIdentity, Err: e.cfg.signErr}, nil
	}
	en, err := e.entryFor(ctx, o)
	if err != nil {
		if err == ErrClosed {
			return closedVerdict(), err
		}
		if errors.Is(err, ErrLocal) {
			return Verdict{Allowed: false, Reason: ReasonLocalError, Err: err, RetryAt: e.cfg.now()}, nil
		}
		return Verdict{}, err
	}
	v := e.decide(en, robotstxt.PathOf(u))
	if v.Allowed {
		if _, err := e.usageVerdict(ctx, &v, en, u); err != nil && e.closer.Closed() {
			return closedVerdict(), ErrClosed
		} else if err != nil {
			return Verdict{}, err
		}
	}
	return v, nil
}

// parseAsColly reads rawURL as Colly's Visit does: the WHATWG parser, then
// net/url on its serialisation.
func (e *Extension) parseAsColly(rawURL string) (*url.URL, error) {
	w, err := e.urls.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrInvalidURL, redact.In(err.Error(), rawURL))
	}
	href := w.Href(false)
	u, err := url.Parse(href)
	if err != nil {
		return nil, fmt.Errorf("%w: %s", ErrInvalidURL, redact.In(err.Error(), href))
	}
	return u, nil
}

// Sitemaps returns the Sitemap URLs of the robots.txt governing rawURL,
// fetching it if needed: nil when robots.txt is unavailable, the last
// good copy's while it is unreachable, and an error wrapping
// ErrUnreachable when it is unreachable with no good copy.
func (e *Extension) Sitemaps(rawURL string) ([]string, error) {
	u, err := e.parseAsColly(rawURL)
	if err != nil {
		return nil, err
	}
	o, err := originOf(u)
	if err != nil {
		return nil, err
	}
	en, err := e.entryFor(e.context(), o)
	if err != nil {
		return nil, err
	}
	if en.Outcome == OutcomeUnreachable {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnreachable, en.Robots.URL, en.Robots.Err)
	}
	return en.Policy.Sitemaps(), nil
}

// Stats returns a snapshot of the counters. It is safe to call while
// crawling.
func (e *Extension) Stats() Stats {
	s := e.stats.snapshot()
	n := e.cache.Counts()
	s.CacheHits, s.CacheMisses, s.LocalErrors = n.Hits, n.Misses, n.LocalErrors
	s.Origins, s.CacheBytes, s.Evictions = n.Origins, n.Bytes, n.Evictions
	s.CrawlDelaysClamped = e.pacer.Clamped()
	s.BackendAnomalies = e.pacer.Anomalies()
	s.HeldNow = e.held.Load()
	s.Fallback = e.cfg.backend != nil && e.health.Fallback()
	backoffStats(&s, e.pauses.Counts())
	e.pageStats(&s)
	return s
}

// LimitRules describes the pace robots.txt currently imposes as Colly
// LimitRules, one per paced host (a Crawl-delay or Request-rate, or the
// default pace of a robots.txt that states neither): DomainRegexp
// matches exactly that host, Parallelism is 1 and Delay the (capped)
// delay. They are for inspection: the Extension enforces the pace itself
// from its OnRequest hook and does not register them with the collector.
func (e *Extension) LimitRules() []colly.LimitRule { return limitRules(e.pacer.Rules()) }

// context returns the context of the collector given to Apply, or
// Background.
func (e *Extension) context() context.Context { return contextOf(e.c) }

// contextOf returns c's context, or Background.
func contextOf(c *colly.Collector) context.Context {
	if c != nil && c.Context != nil {
		return c.Context
	}
	return context.Background()
}
