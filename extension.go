package robotsext

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gocolly/colly/v2"
	"golang.org/x/sync/singleflight"
)

// Extension makes one Colly collector obey robots.txt. Apply creates it and
// registers its hooks; its methods are safe for concurrent use, also while
// the collector is crawling.
//
// Per origin (scheme, host, port) robots.txt is fetched once, outside the
// collector, and cached (LRU, WithCacheSize origins) for its HTTP lifetime
// within 24 hours; concurrent requests to an origin wait for one fetch.
type Extension struct {
	c       *colly.Collector // may be nil: Check and Sitemaps still work
	cfg     *config          // read-only after Apply
	fetcher *fetcher         // read-only after Apply
	cache   *lru
	flights singleflight.Group // one robots.txt fetch per origin at a time
	pacer   *pacer
	stats   counters

	blockedMu sync.Mutex                                      // serializes OnBlocked registrations
	onBlocked atomic.Pointer[[]func(*colly.Request, Verdict)] // copy-on-write; read without a lock

	warnedUA atomic.Bool // the token/User-Agent mismatch was logged

	attachMu sync.Mutex
	attached map[*colly.Collector]bool // guarded by attachMu
}

// Apply makes c obey robots.txt and returns the Extension doing it: it
// builds the Extension from opts and attaches c (see Attach). Apply(nil)
// returns an Extension whose Check and Sitemaps work without a collector.
//
// Callbacks registered before Apply run before the hook; a request they
// abort is not checked. A collector made with c.Clone() shares c's
// redirect handler but not its OnRequest hook: give it to ext.Attach so
// that both share one cache and one pace per host.
func Apply(c *colly.Collector, opts ...Option) *Extension {
	cfg := newConfig(opts)
	e := &Extension{c: c, cfg: cfg, fetcher: cfg.newFetcher()}
	e.pacer = newPacer(cfg.maxCrawlDelay, cfg.logger)
	e.pacer.now = cfg.now // fetchedAt values come from this clock
	e.cache = newLRU(cfg.cacheSize, e.evicted)
	for _, p := range cfg.badOverrides {
		cfg.logger.Warn("robotsext: ignoring WithOverride pattern", "pattern", p)
	}
	e.Attach(c)
	return e
}

// Attach makes c obey robots.txt through e: one robots.txt cache, one
// pace per host, one Stats and the same OnBlocked functions for every
// collector attached, as for the one given to Apply. Use it for clones
// (detail := c.Clone(); ext.Attach(detail)) and for other collectors of
// the same crawl. It turns Colly's own robots.txt check off
// (c.IgnoreRobotsTxt = true), so nothing is fetched twice, registers an
// OnRequest hook that aborts disallowed requests of every method, HEAD
// included, and installs a redirect handler that refuses redirect hops
// into disallowed URLs (see WithRedirectHandler for composing it with your
// own). The product token and the robots.txt request's headers come from
// the collector given to Apply. Attaching a collector twice does nothing
// more; Attach(nil) does nothing.
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
	e.attachMu.Unlock()
	if seen {
		return
	}
	c.IgnoreRobotsTxt = true
	c.OnRequest(func(r *colly.Request) { e.onRequest(c, r) })
	next := e.cfg.redirect
	if !e.cfg.redirectSet {
		// Colly's COLLY_FOLLOW_REDIRECTS=no installs a handler we cannot
		// read back; honour the variable the way Colly does.
		if v, ok := os.LookupEnv("COLLY_FOLLOW_REDIRECTS"); ok && !isYes(v) {
			next = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		}
	}
	c.SetRedirectHandler(e.RedirectHandler(next))
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
// for long.
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

// Check decides rawURL as the OnRequest hook would, fetching its
// robots.txt if needed, with the collector's context and User-Agent. It
// is not counted in Stats' Allowed and Blocked. URLs that are not http or
// https are allowed with ReasonNotApplicable; the error is ErrInvalidURL
// for URLs without a host, or the context's error.
func (e *Extension) Check(rawURL string) (Verdict, error) {
	return e.CheckContext(e.context(), rawURL)
}

// CheckContext is Check with a context of the caller's choosing.
func (e *Extension) CheckContext(ctx context.Context, rawURL string) (Verdict, error) {
	o, u, err := parseOrigin(rawURL)
	if err == ErrNotHTTP {
		return Verdict{Allowed: true, Reason: ReasonNotApplicable}, nil
	} else if err != nil {
		return Verdict{}, err
	}
	en, err := e.entryFor(ctx, o)
	if err != nil {
		return Verdict{}, err
	}
	return e.decide(en, pathOf(u)), nil
}

// Sitemaps returns the Sitemap URLs of the robots.txt governing rawURL,
// fetching it if needed: nil when robots.txt is unavailable, the last
// good copy's while it is unreachable, and an error wrapping
// ErrUnreachable when it is unreachable with no good copy.
func (e *Extension) Sitemaps(rawURL string) ([]string, error) {
	o, _, err := parseOrigin(rawURL)
	if err != nil {
		return nil, err
	}
	en, err := e.entryFor(e.context(), o)
	if err != nil {
		return nil, err
	}
	if en.outcome == OutcomeUnreachable {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnreachable, en.robots.URL, en.robots.Err)
	}
	return en.policy.Sitemaps(), nil
}

// Stats returns a snapshot of the counters. It is safe to call while
// crawling.
func (e *Extension) Stats() Stats {
	s := e.stats.snapshot()
	s.Origins, s.Evictions = e.cache.counts()
	s.CrawlDelaysClamped = e.pacer.clamped()
	return s
}

// LimitRules describes the pace robots.txt currently imposes as Colly
// LimitRules, one per host with a Crawl-delay or Request-rate: DomainRegexp
// matches exactly that host, Parallelism is 1 and Delay the (capped)
// delay. They are for inspection: the Extension enforces the pace itself
// from its OnRequest hook and does not register them with the collector.
func (e *Extension) LimitRules() []colly.LimitRule { return e.pacer.rules() }

// RedirectHandler returns a redirect handler for c.SetRedirectHandler that
// first refuses hops into URLs their own origin's robots.txt disallows
// (the request then fails with a *BlockedError, reported to OnBlocked),
// then runs next. Colly has already applied its URL filters and marked the
// hop visited before any redirect handler runs. A nil next keeps Colly's
// default: at most 10 redirects, then the last response is returned, and
// Authorization is dropped when the host changes. Apply installs
// RedirectHandler(WithRedirectHandler's handler); call it yourself only
// when you set a redirect handler after Apply.
func (e *Extension) RedirectHandler(next RedirectHandler) RedirectHandler {
	return func(req *http.Request, via []*http.Request) error {
		if err := e.checkHop(req); err != nil {
			return err
		}
		if next != nil {
			return next(req, via)
		}
		if len(via) >= 10 {
			return http.ErrUseLastResponse
		}
		if req.URL.Host != via[len(via)-1].URL.Host {
			req.Header.Del("Authorization")
		}
		return nil
	}
}

// BlockedError is the error of a redirect hop robots.txt disallows; it
// wraps ErrBlocked.
type BlockedError struct {
	URL     string  // the refused hop
	Verdict Verdict // why
}

func (b *BlockedError) Error() string {
	if b.Verdict.Rule != "" || b.Verdict.Line > 0 {
		return fmt.Sprintf("robotsext: redirect to %s disallowed by robots.txt line %d (%q)", b.URL, b.Verdict.Line, b.Verdict.Rule)
	}
	return fmt.Sprintf("robotsext: redirect to %s not allowed: %s", b.URL, b.Verdict.Reason)
}

// Unwrap returns ErrBlocked.
func (b *BlockedError) Unwrap() error { return ErrBlocked }

// onRequest is the OnRequest hook. Once the origin is cached it takes
// one mutex (the LRU), makes no allocation for a path without a query and
// one for a path with a query, and calls the pacer without holding a lock.
func (e *Extension) onRequest(c *colly.Collector, r *colly.Request) {
	if r.IsAbort() || r.URL == nil {
		return
	}
	o, err := originOf(r.URL)
	if err != nil {
		e.stats.decided(Verdict{Allowed: true, Reason: ReasonNotApplicable})
		return
	}
	ctx := contextOf(c)
	en, err := e.entryFor(ctx, o)
	if err != nil { // the collector's context ended; Colly fails the request
		e.stats.cancelled.Add(1)
		return
	}
	v := e.decide(en, pathOf(r.URL))
	e.stats.decided(v)
	if !v.Allowed {
		if !e.cfg.shadow {
			r.Abort()
		}
		e.blocked(ctx, r, v)
		if !e.cfg.shadow {
			return
		}
	}
	_ = e.pacer.wait(ctx, o.host) // on error the context ended and Colly fails the request
}

// checkHop decides a redirect hop.
func (e *Extension) checkHop(req *http.Request) error {
	o, err := originOf(req.URL)
	if err != nil {
		return nil // not ours to judge; Colly's client rejects what it cannot fetch
	}
	ctx := req.Context()
	en, err := e.entryFor(ctx, o)
	if err != nil {
		return err
	}
	v := e.decide(en, pathOf(req.URL))
	e.stats.decided(v)
	if !v.Allowed {
		hop := &colly.Request{URL: req.URL, Headers: &req.Header, Host: req.Host, Method: req.Method, Ctx: colly.NewContext()}
		e.blocked(ctx, hop, v)
		if !e.cfg.shadow {
			e.stats.redirectsBlocked.Add(1)
			return &BlockedError{URL: req.URL.String(), Verdict: v}
		}
	}
	return e.pacer.wait(ctx, o.host)
}

// blocked reports a disallowed request.
func (e *Extension) blocked(ctx context.Context, r *colly.Request, v Verdict) {
	level := slog.LevelDebug
	if e.cfg.shadow {
		e.stats.shadowed.Add(1)
		level = slog.LevelInfo
	}
	if l := e.cfg.logger; l.Enabled(ctx, level) {
		l.Log(ctx, level, "robotsext: blocked", "url", r.URL.String(), "method", r.Method,
			"reason", v.Reason.String(), "line", v.Line, "rule", v.Rule, "shadow", e.cfg.shadow)
	}
	if fns := e.onBlocked.Load(); fns != nil {
		for _, fn := range *fns {
			fn(r, v)
		}
	}
}

// decide applies the entry in force to one request path.
func (e *Extension) decide(en *entry, path string) Verdict {
	if en.override {
		if path == "/robots.txt" {
			return Verdict{Allowed: true, Reason: ReasonRobotsTxt}
		}
		return Verdict{Allowed: true, Reason: ReasonOverride}
	}
	if en.stale {
		e.stats.staleServed.Add(1)
	}
	return decide(en.outcome, en.policy, e.token(), path, e.cfg.failMode)
}

// entryFor returns o's entry in force, fetching robots.txt when it is
// missing or expired. Callers for one origin share one fetch. The error
// is non-nil only when ctx ends first.
func (e *Extension) entryFor(ctx context.Context, o origin) (*entry, error) {
	if en := e.cache.get(o); en != nil && e.cfg.now().Before(en.expires) {
		e.stats.hits.Add(1)
		return en, nil
	}
	e.stats.misses.Add(1)
	key := o.String()
	for {
		ch := e.flights.DoChan(key, func() (any, error) { return e.refresh(ctx, o) })
		select {
		case res := <-ch:
			if res.Err == nil {
				return res.Val.(*entry), nil
			}
			// The fetch ran under another caller's context, which ended.
			// Unless ours has too, fetch again.
			if err := ctx.Err(); err != nil || !isContextErr(res.Err) {
				if err == nil {
					err = res.Err
				}
				return nil, err
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// refresh fetches o's robots.txt and stores the new entry. It runs once per
// origin at a time (singleflight), holds no lock while fetching, and
// reports the fetch to the pacer.
func (e *Extension) refresh(ctx context.Context, o origin) (*entry, error) {
	prev := e.cache.peek(o)
	if prev != nil && e.cfg.now().Before(prev.expires) {
		return prev, nil // a fetch that finished while we queued
	}
	var good *Robots
	failures := 1
	if prev != nil {
		good, failures = prev.good, prev.failures+1
	}
	hdr := e.requestHeader()
	r, err := e.fetcher.fetch(ctx, o, hdr, good, failures)
	if err != nil {
		return nil, err
	}
	en := newEntry(o, prev, r)
	en.override = e.cfg.overridden(o)
	e.cache.put(en)
	e.stats.fetched(r)

	token := e.token()
	delay, ok := en.policy.CrawlDelay(token)
	e.pacer.loaded(o.host, delay, ok, r.FetchedAt)
	e.logFetch(ctx, en, token, hdr.Get("User-Agent"))
	return en, nil
}

// evicted keeps the pacer no larger than the cache: a host's pace is
// dropped with the last cached origin on that host.
func (e *Extension) evicted(en *entry) {
	twin := en.origin
	twin.https = !twin.https
	if !e.cache.has(twin) {
		e.pacer.forget(en.origin.host)
	}
}

// logFetch logs a fetch outcome, and once a token that does not occur in
// the User-Agent sent.
func (e *Extension) logFetch(ctx context.Context, en *entry, token, ua string) {
	l, r := e.cfg.logger, en.robots
	level := slog.LevelInfo
	if r.Outcome == OutcomeUnreachable {
		level = slog.LevelWarn
	}
	if l.Enabled(ctx, level) {
		attrs := []any{"url", r.URL, "outcome", r.Outcome.String(), "status", r.Status, "expires", en.expires}
		if r.Err != nil {
			attrs = append(attrs, "error", r.Err.Error())
		}
		if r.Truncated {
			attrs = append(attrs, "truncated", true)
		}
		if r.NotModified {
			attrs = append(attrs, "not_modified", true)
		}
		if en.stale {
			attrs = append(attrs, "stale_copy_from", en.goodAt)
		}
		if en.override {
			attrs = append(attrs, "override", true)
		}
		l.Log(ctx, level, "robotsext: fetched robots.txt", attrs...)
	}
	if token != "" && !containsFold(ua, token) && e.warnedUA.CompareAndSwap(false, true) {
		l.Warn("robotsext: the product token does not occur in the User-Agent sent; robots.txt groups are matched against the token",
			"token", token, "user_agent", ua)
	}
}

func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

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

// token is the product token matched against user-agent lines: the
// WithUserAgent token, else the leading word of the User-Agent the
// robots.txt request sends (WithHeaders, the collector's Headers, then its
// UserAgent), read on every call because users may change them.
func (e *Extension) token() string {
	if e.cfg.token != "" {
		return e.cfg.token
	}
	if t := tokenOf(e.userAgent()); t != "" {
		return t
	}
	return "robotsext"
}

// userAgent is the User-Agent header the robots.txt request sends, "" when
// none is configured.
func (e *Extension) userAgent() string {
	if ua := e.cfg.headers.Get("User-Agent"); ua != "" {
		return ua
	}
	if e.c == nil {
		return ""
	}
	if e.c.Headers != nil {
		if ua := e.c.Headers.Get("User-Agent"); ua != "" {
			return ua
		}
	}
	return e.c.UserAgent
}

// requestHeader builds the robots.txt request's header from the
// collector's Headers and User-Agent and WithHeaders, as Colly builds a
// page request's.
func (e *Extension) requestHeader() http.Header {
	h := http.Header{}
	if e.c != nil && e.c.Headers != nil {
		h = (*e.c.Headers).Clone()
	}
	for k, vs := range e.cfg.headers {
		h[k] = append([]string(nil), vs...)
	}
	h = cloneHeader(h)
	if h.Get("User-Agent") == "" {
		ua := e.userAgent()
		if ua == "" {
			ua = e.token()
		}
		h.Set("User-Agent", ua)
	}
	return h
}

// overridden reports whether WithOverride covers o.
func (cfg *config) overridden(o origin) bool {
	if len(cfg.overrides) == 0 {
		return false
	}
	host, port := splitHostPort(o.host)
	if port == "" {
		port = "80"
		if o.https {
			port = "443"
		}
	}
	for _, p := range cfg.overrides {
		if p.match(host, port) {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains sub, ASCII case-insensitively.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}
