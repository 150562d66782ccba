package robotsext

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/internal/lifecycle"
	"github.com/robotsext/robotsext/internal/pacing"
	"github.com/robotsext/robotsext/internal/useragent"
	"github.com/robotsext/robotsext/internal/warnlog"
	"github.com/robotsext/robotsext/sitemap"
	"github.com/robotsext/robotsext/webbotauth"
)

// Defaults and hard limits of the robots.txt fetch and cache.
const (
	// MaxCacheTTL is the longest a fetched robots.txt is used before it is
	// fetched again (RFC 9309 §2.4), whatever the HTTP caching headers or
	// WithCacheTTL say.
	MaxCacheTTL = 24 * time.Hour
	// MaxBodySize is how much of a robots.txt body is read (RFC 9309 §2.5
	// requires at least 500 KiB). The rest is ignored, and a line cut by the
	// limit is dropped.
	MaxBodySize = 500 << 10
	// MaxRedirects is how many consecutive redirects a robots.txt request
	// follows (RFC 9309 §2.3.1.2). One more and robots.txt is unavailable.
	MaxRedirects = 5
	// MaxStale is how long a good robots.txt keeps being obeyed while its
	// origin is unreachable (RFC 9309 §2.4).
	MaxStale = backend.MaxStale

	defaultTimeout          = 10 * time.Second
	defaultCacheSize        = 1 << 18
	defaultCacheMemory      = 256 << 20
	defaultFetchConcurrency = 32
)

// FailMode says what an unreachable robots.txt (5xx, 429, network error,
// timeout) means for the URLs it governs.
type FailMode uint8

const (
	// FailClosed treats an unreachable robots.txt as "disallow everything",
	// as RFC 9309 §2.3.1.4 requires. It is the zero value and the default.
	FailClosed FailMode = iota
	// FailOpen treats an unreachable robots.txt as "allow everything". Use
	// it only for sites you are entitled to crawl regardless.
	FailOpen
)

// String returns "fail-closed" or "fail-open".
func (m FailMode) String() string {
	if m == FailOpen {
		return "fail-open"
	}
	return "fail-closed"
}

// Option configures Apply and FetchRobots. Options that only make sense
// for a collector (such as WithOverride or WithShadowMode) are ignored by
// FetchRobots.
type Option func(*config)

// RedirectHandler is the signature of http.Client.CheckRedirect and of
// colly.Collector.SetRedirectHandler.
type RedirectHandler = func(req *http.Request, via []*http.Request) error

// config is the settled form of the options. It is built once and then
// only read.
type config struct {
	token            string // WithUserAgent's product token, reduced
	tokenGiven       string // WithUserAgent's value as given
	tokenSet         bool   // WithUserAgent was given; else the token comes from the User-Agent
	failMode         FailMode
	deferMax         time.Duration // WithDeferUnreachable; ≤ 0: off
	overrides        []lifecycle.HostPattern
	badOverrides     []badPattern // patterns WithOverride could not use, logged by Apply
	ignored          []string     // other option values not used as given, logged by Apply
	client           *http.Client
	ttl              time.Duration
	timeout          time.Duration
	cacheSize        int
	cacheMemory      int64 // bytes the cached entries may retain
	fetchConcurrency int
	shadow           bool
	nofollowOff      bool // WithNofollow(false)
	relNofollow      bool // WithRelNofollow
	authDisallow     bool // 401/403 mean "disallow all"
	logger           *slog.Logger
	headers          http.Header
	redirect         RedirectHandler // the user's redirect handler, run after ours
	redirectSet      bool
	sitemaps         sitemap.Rules                                    // WithSitemapRules
	now              func() time.Time                                 // injectable clock
	nowSet           bool                                             // WithClock gave now; false: time.Now
	sleep            func(ctx context.Context, d time.Duration) error // waits on the clock now reads; tests replace it
	forgetGrace      time.Duration                                    // pacing.Config.ForgetGrace; tests shorten it
	leaseMargin      time.Duration                                    // lifecycle.Config.LeaseMargin (0: its default); tests shorten it
	localRetryWait   time.Duration                                    // lifecycle.Config.LocalRetryWait (0: its default); tests shorten it
	backend          backend.Backend                                  // shared state; nil: the Extension's own
	purposes         []Purpose                                        // WithPurpose; none: usage preferences are not enforced
	pageDir          string                                           // WithPageCache; "": none
	pageStore        PageStore                                        // WithPageStore; nil: none, or the disk store of pageDir

	// Who the crawler is: WithStrictIdentity (identitycheck.go), and
	// WithWebBotAuth's signer, or why its key or URL cannot be used
	// (webbotauth.go; wraps ErrIdentity). A nil signer signs nothing.
	strictIdentity bool
	signer         *webbotauth.Signer
	signErr        error

	// The back-off (backoff.go): the first pause without Retry-After, its
	// cap, the bound of a request's wait (0: the defaults), and off. They
	// are handed to pacing.NewBackoff.
	backoffBase, backoffMax, backoffWait time.Duration
	backoffOff                           bool
	adaptiveTarget                       float64 // WithAdaptivePace; ≤ 0: off

	// maxCrawlDelay caps Crawl-delay (0: the pacer's default). It is set
	// by the Crawl-delay option of delay.go and handed to pacing.New.
	maxCrawlDelay time.Duration
	// defaultDelay is the pace of a host whose robots.txt states none
	// (WithDefaultDelay, settled by settleDefaultDelay; 0: off).
	defaultDelay    time.Duration
	defaultDelaySet bool
	// rand is the jitter's randomness (nil: math/rand/v2); tests fix it.
	rand func() float64
	// epoch is when newConfig ran: the instant 0 of the clock the pacer
	// and the robots.txt cache share (instant). Read-only.
	epoch time.Time
}

func newConfig(opts []Option) *config {
	cfg := &config{
		ttl:              MaxCacheTTL,
		timeout:          defaultTimeout,
		cacheSize:        defaultCacheSize,
		cacheMemory:      defaultCacheMemory,
		fetchConcurrency: defaultFetchConcurrency,
		now:              time.Now,
		sleep:            pacing.SleepReal,
		epoch:            time.Now(),
	}
	for _, o := range opts {
		if o != nil {
			o(cfg)
		}
	}
	if cfg.logger == nil {
		cfg.logger = slog.New(warnlog.Default{})
	}
	cfg.settleDefaultDelay()
	return cfg
}

// WithUserAgent sets the product token matched against robots.txt
// user-agent lines (RFC 9309 §2.2.1), such as "AcmeBot". A value that is
// not a bare token ("AcmeBot/2.1", or a whole User-Agent) is reduced to its
// token by the rules below, and Apply logs one warning saying what it used.
//
// Without WithUserAgent the token is found in the User-Agent the robots.txt
// request sends (the collector's): the crawler named by a "compatible;"
// element ("Mozilla/5.0 (compatible; AcmeBot/2.1; +https://acme.example/bot)"
// gives "AcmeBot"), else the leading product ("FooBot/1.0 (+url)" gives
// "FooBot", Colly's default gives "colly"). A browser-style User-Agent that
// names no crawler gives no token: only the "*" groups apply, and one
// warning says to set WithUserAgent.
//
// The token should appear in the User-Agent actually sent; the Extension
// logs a warning once when it does not. FetchRobots also sends the token
// as its User-Agent header unless WithHeaders gives one.
func WithUserAgent(token string) Option {
	return func(c *config) {
		c.tokenGiven = strings.TrimSpace(token)
		c.token, _ = useragent.Reduce(c.tokenGiven)
		c.tokenSet = true
	}
}

// WithFailMode chooses what an unreachable robots.txt (5xx, 429, network
// error, timeout) means: FailClosed (the default, as RFC 9309 §2.3.1.4
// requires) blocks the origin, FailOpen allows it. A previously good copy
// of robots.txt is obeyed either way while it is at most 30 days old.
// Either way a warning is logged and Verdict.Err says why.
//
// An unreachable robots.txt is often this crawler's own network path: a
// crawl routed through c.SetProxy or c.SetProxyFunc fetches robots.txt
// without that proxy (the Extension cannot see the collector's transport),
// and a site reachable only through the proxy is then blocked, or, with
// FailOpen, crawled without its rules. Give the Extension the same route
// with WithHTTPClient.
func WithFailMode(m FailMode) Option {
	return func(c *config) { c.failMode = m }
}

// WithOverride lists sites the crawler owns or may crawl regardless: their
// Allow and Disallow rules are not applied and a failing robots.txt never
// blocks them, but their Crawl-delay (or the default pace, see
// WithDefaultDelay) and Sitemaps are still read. A pattern
// is either a host ("shop.example.com", matching any port), a host and port
// ("shop.example.com:8443", "[::1]:8080"), or "*." and a domain of at least
// two labels ("*.example.org", matching every subdomain but not
// example.org itself). Matching is case-insensitive. Patterns that can
// never match a URL's host (any other '*', "*.com", a scheme or a path,
// non-ASCII names: write them in punycode, "xn--…"; IPv6 zone IDs) are
// ignored and logged as a warning. WithOverride may be given several
// times; the lists add up.
func WithOverride(hosts ...string) Option {
	return func(c *config) {
		for _, h := range hosts {
			if p, why := lifecycle.ParseHostPattern(h); why == "" {
				c.overrides = append(c.overrides, p)
			} else {
				c.badOverrides = append(c.badOverrides, badPattern{h, why})
			}
		}
	}
}

// WithHTTPClient sets the client robots.txt is fetched with. By default
// robots.txt goes out through the transport of the collector given to
// Apply, read as each fetch starts (http.DefaultTransport, as Colly's,
// unless set with c.WithTransport, c.SetProxy or c.SetProxyFunc, before or
// after Apply), so that it takes the pages' proxy and their connections:
// a host's first page reuses robots.txt's. FetchRobots, which has no
// collector, uses a client of its own on a clone of http.DefaultTransport.
// The client's Transport, Jar and Timeout are used; its CheckRedirect is
// not (robots.txt requests follow at most five redirects, only to http and
// https URLs, and carry only User-Agent, Accept, Accept-Language and From
// to another host). The client is copied, never modified.
func WithHTTPClient(cl *http.Client) Option {
	return func(c *config) { c.client = cl }
}

// WithCacheTTL sets how long a robots.txt is used when its response has no
// Cache-Control max-age or Expires. The default and the cap are 24 hours
// (RFC 9309 §2.4); values ≤ 0 restore the default.
func WithCacheTTL(d time.Duration) Option {
	return func(c *config) {
		if d > MaxCacheTTL {
			c.ignored = append(c.ignored, "WithCacheTTL("+d.String()+") is above RFC 9309's 24 h limit; using 24h")
		}
		if d <= 0 || d > MaxCacheTTL {
			d = MaxCacheTTL
		}
		c.ttl = d
	}
}

// WithTimeout bounds one robots.txt fetch, redirects and body included.
// The default is 10 seconds; values ≤ 0 restore it. A fetch that times out
// makes robots.txt unreachable.
func WithTimeout(d time.Duration) Option {
	return func(c *config) { c.timeout = orDefault(d, defaultTimeout) }
}

// WithCacheSize bounds how many origins' robots.txt the Extension keeps
// (least recently used first out) beside WithCacheMemory. The default,
// 262,144, leaves the bytes to bind: a crawl of 100,000 hosts with small
// files fits. An origin in use (a request in the OnRequest hook, or that
// left it less than 2 minutes ago) is evicted only once no other is. An
// evicted origin's robots.txt is fetched again on its next request.
// Values < 1 restore the default.
func WithCacheSize(origins int) Option {
	return func(c *config) { c.cacheSize = orDefault(origins, defaultCacheSize) }
}

// WithCacheMemory bounds the memory the cached robots.txt policies retain,
// in bytes (default 256 MiB; values < 1 restore it). The cache evicts the
// least recently used origins until both this and WithCacheSize hold, so a
// crawl into thousands of hosts serving large files stays within it. A
// policy larger than the whole bound is still obeyed by the requests that
// waited for its fetch, but not kept: the origin's next request fetches it
// again, so keep the bound well above 4 × MaxBodySize. Stats reports the
// bytes held.
func WithCacheMemory(bytes int64) Option {
	return func(c *config) { c.cacheMemory = orDefault(bytes, defaultCacheMemory) }
}

// WithFetchConcurrency bounds the robots.txt fetches in flight at once
// (default 32; values < 1 restore it), for every attached collector, in
// the OnRequest hook, before Colly's own limits. A fetch without headers
// after 4 × the recent median wait for them (0.1–1 s), or out past 1 s,
// stops counting, up to 32 × n such fetches (33 × n connections at most),
// so it holds up no other host's. A request waits as its context allows.
func WithFetchConcurrency(n int) Option {
	return func(c *config) { c.fetchConcurrency = orDefault(n, defaultFetchConcurrency) }
}

// WithShadowMode reports the requests robots.txt would block, through
// OnBlocked, Stats and the logger, without aborting them. Use it to audit
// a crawl before enforcing robots.txt.
func WithShadowMode() Option {
	return func(c *config) { c.shadow = true }
}

// WithUnauthorizedDisallowAll makes a robots.txt that answers 401 or 403
// mean "disallow everything", the convention before RFC 9309. By default
// they are 4xx like any other: robots.txt is unavailable and everything is
// allowed (RFC 9309 §2.3.1.3).
func WithUnauthorizedDisallowAll() Option {
	return func(c *config) { c.authDisallow = true }
}

// WithLogger logs robots.txt fetch outcomes (Info, with the token and the
// groups chosen; Warn when unreachable), blocked requests (Debug; Info in
// shadow mode; Warn when a local error dropped them) and configuration
// problems (Warn). It takes over completely. Without it, records at Warn
// and above go to slog.Default() and the rest is dropped.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// WithHeaders adds headers to every robots.txt request. With Apply they
// are added to the collector's Headers and User-Agent; with FetchRobots
// they are the only ones. Conditional and encoding headers are managed by
// the fetch and ignored here.
func WithHeaders(h http.Header) Option {
	return func(c *config) {
		if c.headers == nil {
			c.headers = http.Header{}
		}
		for k, vs := range h {
			if managedHeader(k) {
				c.ignored = append(c.ignored, "WithHeaders: "+http.CanonicalHeaderKey(k)+" is managed by the robots.txt fetch and is not sent")
			}
			for _, v := range vs {
				c.headers.Add(k, v)
			}
		}
	}
}

// WithRedirectHandler gives Apply the collector's own redirect policy, run
// for every redirect hop the robots.txt check lets through. Colly keeps its
// redirect handler private, so Apply cannot find one set earlier with
// c.SetRedirectHandler: pass it here instead, or install
// e.WrapRedirectHandler(yours) with c.SetRedirectHandler after Apply. A nil
// handler keeps Colly's default (at most 10 redirects, Authorization
// dropped when the host changes).
func WithRedirectHandler(fn RedirectHandler) Option {
	return func(c *config) { c.redirect, c.redirectSet = fn, true }
}

// WithBackend shares the crawl's politeness state through b: robots.txt
// records (one fetch per origin for all the Extensions using b) and each
// host's pace (one Crawl-delay for all of them together). Use it for
// worker processes of one crawl (the redisbackend module) or for
// Extensions of one process that cannot share an Attach (backend.Memory;
// the backend package defines the contract). By default the
// state is the Extension's own, in memory. When b fails, robots.txt is
// still obeyed: it is fetched and cached locally, and hosts are paced
// locally until b answers again.
func WithBackend(b backend.Backend) Option {
	return func(c *config) { c.backend = b }
}

// WithClock replaces time.Now as the Extension's clock for cache
// lifetimes, backoff and local pacing, for tests and simulations. A Backend
// paces by its own clock.
func WithClock(now func() time.Time) Option { return withClock(now) }

// orDefault is v, or def when v < 1: the options whose values below one
// (≤ 0 for a duration) restore their default.
func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v < 1 {
		return def
	}
	return v
}

// withClock replaces time.Now, so that tests can move time by hand.
func withClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now, c.nowSet = now, true
		}
	}
}

// clock is the clock for the machinery that tells the real clock by a nil
// one (and then reads its monotonic part alone): nil unless WithClock
// gave one.
func (c *config) clock() func() time.Time {
	if !c.nowSet {
		return nil
	}
	return c.now
}

// instant reads the clock once, as an offset from epoch, for the steps of
// a request that need the time: the robots.txt cache's freshness and the
// pace's booking take it as it is. On the real clock it reads the
// monotonic clock alone (time.Since), about half of what time.Now costs.
func (c *config) instant() time.Duration {
	if !c.nowSet {
		return time.Since(c.epoch)
	}
	return c.now().Sub(c.epoch)
}

// managedHeader reports headers the robots.txt fetch sets itself.
func managedHeader(k string) bool { return lifecycle.Managed(k) }

// badPattern is a WithOverride pattern that was ignored, and why.
type badPattern struct{ pattern, why string }

// overridden reports whether WithOverride covers o.
func (cfg *config) overridden(o lifecycle.Origin) bool {
	return len(cfg.overrides) > 0 && lifecycle.Covers(cfg.overrides, o)
}
