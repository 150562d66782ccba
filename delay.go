package robotsext

// This file is the public face of the pacing (internal/pacing): the
// options that set it, how the Extension builds it, and the Colly
// LimitRules that describe it. The pace itself (the per-host Crawl-delay
// wait, the gate at the wire, the fleet's claims), the back-off and the
// adaptive pace live in internal/pacing, which knows nothing of Colly.

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/internal/pacing"
)

// DefaultDelay is the pace of a host whose robots.txt states no
// Crawl-delay or Request-rate for the crawler: one request in flight, and
// starts at least this far apart (see WithDefaultDelay).
const DefaultDelay = time.Second

// WithDefaultDelay sets the pace of a host for which robots.txt states no
// delay for the crawler: no Crawl-delay or Request-rate line in the group
// that applies to it, a delay stated only for other crawlers, a
// robots.txt that is unavailable (404), or none at all under FailOpen.
// Such a host is paced exactly as a Crawl-delay host is: at most one
// request in flight, starts at least d apart at the wire, the robots.txt
// request counting as the first, shared by the fleet through a Backend.
// The default is DefaultDelay (1 s), about what crawling guidelines ask
// of a crawler that was told nothing.
//
// What a site states wins, lower or higher: "Crawl-delay: 0.3" paces the
// host 0.3 s apart, "Crawl-delay: 5" 5 s apart, and a stated
// "Crawl-delay: 0" leaves it unpaced. WithAdaptivePace may slow a host
// down below the default, never speed it up past it. Hosts covered by
// WithOverride get the default as well: an override lifts the site's
// Allow and Disallow rules, which are about what may be fetched, not the
// pace, which is about the load on a server the crawler may not own; a
// site of your own that should be crawled flat out says so with
// "Crawl-delay: 0" in its robots.txt.
//
// WithDefaultDelay(0) turns the default off: a host whose robots.txt
// states nothing is crawled as fast as the collector's own LimitRules
// allow, and Apply logs one warning saying so. A negative d is refused
// (DefaultDelay is kept, with a warning), and a d above WithMaxCrawlDelay
// is capped to it, with a warning.
func WithDefaultDelay(d time.Duration) Option {
	return func(c *config) { c.defaultDelay, c.defaultDelaySet = d, true }
}

// WithMaxCrawlDelay caps the Crawl-delay (or Request-rate interval) obeyed
// per host, so that an absurd value such as "Crawl-delay: 86400" cannot
// stall a crawl: longer delays are clamped to d, counted in Stats'
// CrawlDelaysClamped and logged once per host. The default is 60 seconds;
// values ≤ 0 restore it.
func WithMaxCrawlDelay(d time.Duration) Option {
	return func(c *config) { c.maxCrawlDelay = d }
}

// WithAdaptivePace makes the delay between requests to each host follow
// the host's response time (the time to its response headers): the
// delay tends to latency / target, so that about target requests are in
// flight to the host on average (1 or 2 are sensible; values ≤ 0 leave
// the option off). Each answer moves the delay halfway towards that
// value; an answer that is an error (429, 5xx or no answer) never
// shortens it. The host's Crawl-delay is the floor and WithMaxCrawlDelay
// (60 s by default) the cap. A host whose latency doubles is asked half
// as often; when it recovers, so does the pace. It is off by default.
func WithAdaptivePace(target float64) Option {
	return func(c *config) { c.adaptiveTarget = target }
}

// newPacing builds e's pace, back-off and adaptive pace from its
// settled options, on its clock, with its Backend.
func (e *Extension) newPacing() {
	cfg := e.cfg
	clock := pacing.Clock{Now: cfg.now, Sleep: e.closer.Sleep(cfg.sleep)} // fetchedAt values come from this clock; Close wakes its sleeps
	health := backendHealth{e}
	pacerClock := clock
	pacerClock.Now = cfg.clock() // nil for time.Now, which the Pacer then knows and reads cheaper (its monotonic part alone)
	e.pacer = pacing.New(pacing.Config{
		MaxDelay:    cfg.maxCrawlDelay,
		Default:     cfg.defaultDelay,
		Rand:        cfg.rand,
		Logger:      cfg.logger,
		Clock:       pacerClock,
		Epoch:       cfg.epoch,
		Backend:     cfg.backend,
		Health:      health,
		ObserveWait: e.stats.paceWaits.Observe,
		ForgetGrace: cfg.forgetGrace,
	})
	base, limit, wait := cfg.backoffLimits()
	pauser, _ := cfg.backend.(backend.Pauser)
	e.pauses = pacing.NewBackoff(pacing.BackoffConfig{
		Base: base, Max: limit, Wait: wait,
		ServerErrorRun: ServerErrorRun,
		Off:            cfg.backoffOff,
		Shadow:         cfg.shadow,
		Logger:         cfg.logger,
		Clock:          clock,
		Pacer:          e.pacer,
		Pauser:         pauser,
		Health:         health,
		Context:        e.context,
	})
	e.adaptive = pacing.NewAdaptive(cfg.adaptiveTarget, clock, e.pacer)
}

// settleDefaultDelay settles WithDefaultDelay against WithMaxCrawlDelay,
// whatever their order: a negative delay is refused and a delay above the
// cap is capped, each with a warning for Apply to log.
func (cfg *config) settleDefaultDelay() {
	limit := cfg.maxCrawlDelay
	if limit <= 0 {
		limit = pacing.DefaultMaxDelay
	}
	d := cfg.defaultDelay
	switch {
	case !cfg.defaultDelaySet:
		d = DefaultDelay // under a cap below it, the cap, without a word: the user set neither
	case d < 0:
		cfg.ignored = append(cfg.ignored, "WithDefaultDelay("+d.String()+") is negative; using the default pace, "+DefaultDelay.String())
		d = DefaultDelay
	case d > limit:
		cfg.ignored = append(cfg.ignored, "WithDefaultDelay("+d.String()+") is above WithMaxCrawlDelay; using "+limit.String())
	}
	cfg.defaultDelay = min(d, limit)
}

// warnUnpaced says, once per Extension, what WithDefaultDelay(0) means.
func (cfg *config) warnUnpaced() {
	if cfg.defaultDelaySet && cfg.defaultDelay == 0 {
		cfg.logger.Warn("robotsext: WithDefaultDelay(0): a site whose robots.txt states no Crawl-delay is not paced; " +
			"the crawl sends it as many requests at once as the collector's LimitRules allow, which most sites never asked for " +
			"and many read as abuse; keep it for sites you run or are entitled to load")
	}
}

// limitRules describes the pace of every paced host as Colly LimitRules,
// sorted by DomainRegexp: each matches exactly that host (any case, port
// included; metacharacters quoted), Parallelism 1, Delay the effective
// delay. They are values for inspection; nothing installs them.
// Registered with Collector.Limits before a later crawl they would pace it
// the same way, Colly counting the delay from the end of each response.
func limitRules(paced []pacing.Rule) []colly.LimitRule {
	rs := make([]colly.LimitRule, 0, len(paced))
	for _, p := range paced {
		rs = append(rs, colly.LimitRule{
			DomainRegexp: `(?i)^` + regexp.QuoteMeta(p.Key) + `$`,
			Delay:        p.Delay,
			Parallelism:  1,
		})
	}
	slices.SortFunc(rs, func(a, b colly.LimitRule) int { return strings.Compare(a.DomainRegexp, b.DomainRegexp) })
	return rs
}
