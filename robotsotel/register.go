// Package robotsotel reports what a robotsext.Extension counts as
// OpenTelemetry metrics.
//
// Register creates the instruments below on a metric.MeterProvider and
// one callback that reads Extension.Stats when a reader collects: nothing
// runs between collections, and the Extension's request hook does no more
// work when instruments are registered than when none are.
//
// It is a module of its own, as go-redis keeps its metrics adapters in
// modules of their own, so that the robotsext module itself depends on
// no metrics library; robotsprom is the Prometheus counterpart, with the
// same measures under Prometheus's names.
//
// Names are dot-separated under the robotsext namespace, units are UCUM
// ("s", "By", and annotations such as "{request}" for counts), there are
// no per-host attributes, so that the number of series stays fixed
// however many sites are crawled, and the attributes are namespaced:
//
//	robotsext.robotstxt.fetches         counter {fetch}          robots.txt fetches, revalidations included; robotsext.outcome: ok, unavailable, unreachable, unauthorized
//	robotsext.robotstxt.not_modified    counter {fetch}          revalidations answered 304 (also counted as ok)
//	robotsext.robotstxt.local_errors    counter {fetch}          fetches that failed because of this machine
//	robotsext.robotstxt.fetch.duration  histogram s              the robots.txt fetches' durations
//	robotsext.checks                    counter {request}        requests and redirect hops decided (allowed + blocked)
//	robotsext.allowed                   counter {request}        those let through; robotsext.reason
//	robotsext.blocked                   counter {request}        those robots.txt refused (in shadow mode let through all the same); robotsext.reason
//	robotsext.shadowed                  counter {request}        blocked ones let through because of shadow mode
//	robotsext.redirects.blocked         counter {redirect}       redirect hops refused (also counted as blocked)
//	robotsext.redirects.deferred        counter {redirect}       redirect hops to paced hosts re-issued as requests
//	robotsext.retries.dropped           counter {request}        retries dropped because their redirect hop was already re-issued
//	robotsext.cancelled                 counter {request}        requests passed on undecided because the crawl's context ended
//	robotsext.crawl_delays.clamped      counter {crawl_delay}    Crawl-delay values above the maximum, clamped
//	robotsext.pace.wait                 histogram s              the waits of requests to hosts with a Crawl-delay
//	robotsext.cache.hits                counter {request}        decisions made from a fresh cached robots.txt
//	robotsext.cache.misses              counter {request}        decisions that fetched robots.txt or waited for its fetch
//	robotsext.cache.stale_served        counter {request}        decisions made from a last good copy while its origin was unreachable
//	robotsext.cache.evictions           counter {origin}         origins dropped to keep the cache within its bounds
//	robotsext.cache.origins             updowncounter {origin}   origins cached now
//	robotsext.cache.memory.usage        updowncounter By         estimated memory the cached robots.txt policies retain now
//	robotsext.backend.errors            counter {error}          failed Backend calls, each answered locally
//	robotsext.backend.anomalies         counter {anomaly}        Backend answers that cannot be right, replaced
//	robotsext.backend.fallback          gauge 1                  1 while the Extension fetches and paces locally after a Backend failure
//	robotsext.hold.requests             updowncounter {request}  requests held now because robots.txt could not be had (WithDeferUnreachable)
//	robotsext.hold.entered              counter {request}        requests held so far
//	robotsext.hold.ended                counter {request}        how held requests ended; robotsext.hold.result: released, gave_up
//	robotsext.hold.full                 counter {request}        requests refused at once because MaxHeld requests were held
//	robotsext.usage.refused             counter {request}        URLs refused before fetching by AI usage preferences: robots.txt, tdmrep.json (WithPurpose)
//	robotsext.usage.withheld            counter {page}           pages aborted at their headers by their usage preferences (WithPurpose)
//	robotsext.usage.meta_refused        counter {page}           pages read whose meta tags refuse every declared purpose; their links refused (WithPurpose)
//	robotsext.tdmrep.fetches            counter {request}        fetches of an origin's tdmrep.json (WithPurpose)
//	robotsext.tdmrep.files              counter {request}        fetches of tdmrep.json that found a valid file
//	robotsext.tdmrep.malformed          counter {request}        fetches of tdmrep.json that found a malformed file, which states nothing
//	robotsext.backoff.pauses            counter {pause}          hosts paused because they asked for less; robotsext.backoff.cause: 429, 503, 5xx_run, probe_failed, ratelimit
//	robotsext.backoff.pauses.capped     counter {pause}          pauses cut short by WithMaxBackoff
//	robotsext.backoff.probes            counter {request}        probes sent when a pause ended
//	robotsext.backoff.waited            counter {request}        requests that waited for a paused host
//	robotsext.backoff.refused           counter {request}        requests refused past WithBackoffWait (also blocked, reason backoff)
//	robotsext.backoff.requeued          counter {request}        requests of Async collectors sent again to wait, their host paused while they waited for a slot
//	robotsext.backoff.requests          updowncounter {request}  requests waiting for a paused host now
//	robotsext.backoff.hosts             updowncounter {host}     hosts paused, probed or recovering now
//	robotsext.directive.pages           counter {page}           pages whose X-Robots-Tag or robots meta tags said something to the crawler
//	robotsext.links.refused             counter {request}        links refused because their page said nofollow (or rel="nofollow", WithRelNofollow)
//	robotsext.responses                 counter {response}       what the page requests got back; robotsext.status_class: none (no response), 1xx, 2xx, 3xx, 4xx, 5xx
//	robotsext.sitemaps.fetched          counter {sitemap}        sitemap files fetched by ReadSitemaps
//	robotsext.sitemaps.failed           counter {sitemap}        sitemap files not fetched (refused, not a 2xx) or not read whole (broken)
//	robotsext.sitemap.entries           counter {entry}          page entries ReadSitemaps yielded
//	robotsext.sitemap.entries.outside   counter {entry}          entries (and indexed sitemaps) dropped by the location rule
//	robotsext.sitemap.entries.skipped   counter {entry}          bad entries (no URL, or not an absolute http(s) one) and alternates (a bad href, past 256) skipped
//	robotsext.sitemap.entries.unchanged counter {entry}          entries not yielded because the page cache's copy is as recent (SkipUnchanged)
//	robotsext.sitemap.loops             counter {sitemap}        sitemaps listed again by an index, not read again
//	robotsext.sitemap.limits            counter {limit}          sitemap bounds reached (a file's URLs or bytes, nesting, sitemaps or entries per call)
//
// Through OpenTelemetry's Prometheus exporter these become
// robotsext_robotstxt_fetches_total, robotsext_pace_wait_seconds and so
// on, mostly robotsprom's names, with namespaced labels; a program that
// only serves Prometheus is better off with robotsprom.
//
// robotsext.reason takes short, stable values: no_match, allow_rule,
// disallow_rule, empty_rule, robots_txt, unavailable, unreachable,
// unauthorized, override, not_applicable, local_error, usage, backoff,
// nofollow, rel_nofollow, identity (one per
// robotsext.Reason, not Reason.String's prose). Each value a counter can
// take is reported from the first collection on, at 0.
//
// # Histograms
//
// The OpenTelemetry API has no observable histogram, and the Extension
// keeps its own (Stats.PaceWaits, Stats.FetchDurations: fixed buckets,
// counts and a sum). robotsotel exports them as real histograms, which is
// what a backend needs for quantiles and heatmaps, rather than as
// counters of bucket counts, which no backend reads as a distribution:
// the callback records each observation the Extension made since the
// previous collection into a synchronous Float64Histogram, which the SDK
// then aggregates as it would any other. The instruments advise the
// Extension's own bucket boundaries (WithExplicitBucketBoundaries), so
// with the SDK's default aggregation the bucket counts are exactly the
// Extension's and the sum is the Extension's (a difference of rounding
// in one collection is carried to the next). The Extension does not keep
// each duration, so the values recorded are placed within their buckets
// to add up to that sum: a View with other boundaries, or an exponential
// histogram, sees them at those places, and the data points' Min and Max
// are within the buckets of the true minimum and maximum, not those
// values themselves. Observations appear at the next collection of any
// reader, each exactly once for the MeterProvider, however many readers
// it has.
package robotsotel

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/robotsext/robotsext"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// ScopeName is the instrumentation scope of the instruments Register
// creates: the name of the Meter it asks the MeterProvider for, which a
// View can select them by.
const ScopeName = "github.com/robotsext/robotsext/robotsotel"

// Register creates the instruments of ext's counters, gauges and
// histograms (see the package documentation for the list) on a Meter of
// mp, and a callback reading ext.Stats that the SDK runs at each
// collection. Register once per Extension, MeterProvider and attrs: a
// second registration, which would report every value twice, is refused
// with ErrAlreadyRegistered; Unregister the
// Registration returned to stop reporting ext (the instruments stay, as
// the API cannot remove them, but get no more measurements).
//
//	reader := sdkmetric.NewPeriodicReader(exporter)
//	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
//	reg, err := robotsotel.Register(ext, mp)
//
// attrs, if any, are added to every data point: to report the Extensions
// of several crawls through one MeterProvider, whose instruments are the
// same, register each with an attribute telling them apart, such as
// attribute.String("crawl", name). Register returns an error if ext or mp
// is nil, or if mp refuses an instrument or the callback.
func Register(ext *robotsext.Extension, mp metric.MeterProvider, attrs ...attribute.KeyValue) (metric.Registration, error) {
	if ext == nil || mp == nil {
		return nil, errors.New("robotsotel: Register needs an Extension and a MeterProvider")
	}
	set := attribute.NewSet(attrs...)
	release, ok := ext.ClaimExport(exportKey{mp, set.Equivalent()})
	if !ok {
		return nil, ErrAlreadyRegistered
	}
	o, err := newObserver(ext, mp.Meter(ScopeName), attrs)
	if err != nil {
		release()
		return nil, err
	}
	reg, err := o.meter.RegisterCallback(o.observe, o.observables...)
	if err != nil {
		release()
		return nil, err
	}
	return registration{reg, release}, nil
}

// ErrAlreadyRegistered is returned by Register for an Extension already
// registered with the same MeterProvider and attributes (and not
// unregistered since): a second registration would report every value
// twice. robotsprom refuses the same mistake through Prometheus's registry.
var ErrAlreadyRegistered = errors.New("robotsotel: this Extension is already registered with this MeterProvider and attributes")

// exportKey is what Register claims on the Extension (ClaimExport).
type exportKey struct {
	mp    metric.MeterProvider
	attrs attribute.Distinct
}

// registration is a metric.Registration that frees the Extension's claim
// when unregistered, so that ext can be registered again.
type registration struct {
	metric.Registration
	release func()
}

// Unregister stops reporting the Extension.
func (r registration) Unregister() error {
	err := r.Registration.Unregister()
	if err == nil {
		r.release()
	}
	return err
}

// observer holds the instruments of one Extension and the attribute
// options of their data points, all made by newObserver and only read
// afterwards; the histograms' feeds have locks of their own.
type observer struct {
	ext         *robotsext.Extension
	meter       metric.Meter
	attrs       []attribute.KeyValue   // added to every data point
	base        []metric.ObserveOption // attrs alone
	scalars     []scalar               // the instruments without attributes
	observables []metric.Observable    // every observable instrument, for RegisterCallback

	fetches, allowed, blocked, holdEnded metric.Int64ObservableCounter
	checks                               metric.Int64ObservableCounter
	outcomes                             [][]metric.ObserveOption // robotsext.outcome, indexed by Outcome
	reasons                              []reasonAttr             // robotsext.reason, indexed by Reason
	released, gaveUp                     []metric.ObserveOption
	pauses                               metric.Int64ObservableCounter
	causes                               []causeAttr // robotsext.backoff.cause
	responses                            metric.Int64ObservableCounter
	classes                              []classAttr // robotsext.status_class

	paceWait, fetchDuration *feed
}

// causeAttr is a pause cause and the options of its data point.
type causeAttr struct {
	cause robotsext.PauseCause
	opts  []metric.ObserveOption
}

// classAttr is a status class and the options of its data point.
type classAttr struct {
	class robotsext.StatusClass
	opts  []metric.ObserveOption
}

// scalar is an observable instrument without attributes read from one
// field of Stats.
type scalar struct {
	inst  metric.Int64Observable
	value func(*robotsext.Stats) int64
}

// reasonAttr is the robotsext.reason attribute of one Reason, and which
// of robotsext.allowed and robotsext.blocked report it from the start.
type reasonAttr struct {
	opts           []metric.ObserveOption
	allows, blocks bool
}

// newObserver creates ext's instruments on meter; attrs are added to
// every data point.
func newObserver(ext *robotsext.Extension, meter metric.Meter, attrs []attribute.KeyValue) (*observer, error) {
	o := &observer{ext: ext, meter: meter, attrs: slices.Clone(attrs)}
	baseSet := metric.WithAttributeSet(attribute.NewSet(attrs...))
	o.base = []metric.ObserveOption{baseSet}
	var errs []error
	counter := func(name, unit, desc string) metric.Int64ObservableCounter {
		inst, err := meter.Int64ObservableCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		o.observables = append(o.observables, inst)
		return inst
	}
	scalarCounter := func(name, unit, desc string, value func(*robotsext.Stats) uint64) {
		o.scalars = append(o.scalars, scalar{counter(name, unit, desc),
			func(s *robotsext.Stats) int64 { return int64(value(s)) }})
	}
	upDown := func(name, unit, desc string, value func(*robotsext.Stats) int64) {
		inst, err := meter.Int64ObservableUpDownCounter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		o.observables = append(o.observables, inst)
		o.scalars = append(o.scalars, scalar{inst, value})
	}
	gauge := func(name, unit, desc string, value func(*robotsext.Stats) int64) {
		inst, err := meter.Int64ObservableGauge(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		o.observables = append(o.observables, inst)
		o.scalars = append(o.scalars, scalar{inst, value})
	}
	// The Extension's bounds, the same for both histograms, as the
	// instruments' advised boundaries.
	var bounds []float64
	for _, b := range ext.Stats().PaceWaits.Bounds {
		bounds = append(bounds, b.Seconds())
	}
	histogram := func(name, desc string) *feed {
		h, err := meter.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc),
			metric.WithExplicitBucketBoundaries(bounds...))
		errs = append(errs, err)
		return &feed{hist: h, opts: []metric.RecordOption{baseSet}}
	}

	o.fetches = counter("robotsext.robotstxt.fetches", "{fetch}",
		"robots.txt fetches by outcome (ok, unavailable, unreachable, unauthorized), revalidations included.")
	scalarCounter("robotsext.robotstxt.not_modified", "{fetch}",
		"robots.txt revalidations answered 304 Not Modified (also counted in robotsext.robotstxt.fetches as ok).",
		func(s *robotsext.Stats) uint64 { return s.NotModified })
	scalarCounter("robotsext.robotstxt.local_errors", "{fetch}",
		"robots.txt fetches that failed because of this machine (no file descriptors, fetch slot wait ended), after their retries.",
		func(s *robotsext.Stats) uint64 { return s.LocalErrors })
	o.fetchDuration = histogram("robotsext.robotstxt.fetch.duration",
		"Duration of the robots.txt fetches of this process, answer or failure.")

	o.checks = counter("robotsext.checks", "{request}",
		"Requests and redirect hops robots.txt decided: robotsext.allowed plus robotsext.blocked.")
	o.allowed = counter("robotsext.allowed", "{request}",
		"Requests and redirect hops robots.txt let through, by reason.")
	o.blocked = counter("robotsext.blocked", "{request}",
		"Requests and redirect hops robots.txt refused, by reason; in shadow mode they went out all the same.")
	scalarCounter("robotsext.shadowed", "{request}",
		"Requests robots.txt refused that shadow mode let through.",
		func(s *robotsext.Stats) uint64 { return s.Shadowed })
	scalarCounter("robotsext.redirects.blocked", "{redirect}",
		"Redirect hops robots.txt refused (also counted in robotsext.blocked).",
		func(s *robotsext.Stats) uint64 { return s.RedirectsBlocked })
	scalarCounter("robotsext.redirects.deferred", "{redirect}",
		"Redirect hops to paced hosts re-issued as requests of their own.",
		func(s *robotsext.Stats) uint64 { return s.RedirectsDeferred })
	scalarCounter("robotsext.retries.dropped", "{request}",
		"Requests dropped because the redirect hop they would lead to was already re-issued.",
		func(s *robotsext.Stats) uint64 { return s.RetriesDropped })
	scalarCounter("robotsext.cancelled", "{request}",
		"Requests passed on undecided because the collector's context ended while robots.txt was being fetched.",
		func(s *robotsext.Stats) uint64 { return s.Cancelled })
	scalarCounter("robotsext.crawl_delays.clamped", "{crawl_delay}",
		"Crawl-delay values above the maximum that were clamped to it.",
		func(s *robotsext.Stats) uint64 { return s.CrawlDelaysClamped })
	o.paceWait = histogram("robotsext.pace.wait",
		"How long requests to hosts with a Crawl-delay waited for their turn.")

	scalarCounter("robotsext.cache.hits", "{request}",
		"Decisions made from a fresh cached robots.txt.",
		func(s *robotsext.Stats) uint64 { return s.CacheHits })
	scalarCounter("robotsext.cache.misses", "{request}",
		"Decisions that fetched robots.txt or waited for its fetch.",
		func(s *robotsext.Stats) uint64 { return s.CacheMisses })
	scalarCounter("robotsext.cache.stale_served", "{request}",
		"Decisions made from a last good robots.txt while its origin was unreachable.",
		func(s *robotsext.Stats) uint64 { return s.StaleServed })
	scalarCounter("robotsext.cache.evictions", "{origin}",
		"Origins the robots.txt cache dropped to stay within its size and memory bounds.",
		func(s *robotsext.Stats) uint64 { return s.Evictions })
	scalarCounter("robotsext.page_cache.hits", "{page}",
		"Pages served fresh from WithPageCache's cache: no request sent, no pace waited.",
		func(s *robotsext.Stats) uint64 { return s.PageCache.Hits })
	scalarCounter("robotsext.page_cache.revalidated", "{page}",
		"Stored pages revalidated by a 304 Not Modified and served.",
		func(s *robotsext.Stats) uint64 { return s.PageCache.Revalidated })
	scalarCounter("robotsext.page_cache.misses", "{page}",
		"Pages downloaded with nothing usable in the page cache.",
		func(s *robotsext.Stats) uint64 { return s.PageCache.Misses })
	scalarCounter("robotsext.page_cache.stale", "{page}",
		"Stored pages the origin replaced with a new response instead of a 304.",
		func(s *robotsext.Stats) uint64 { return s.PageCache.Stale })
	scalarCounter("robotsext.page_cache.saved", "By",
		"Body bytes served from the page cache (hits and revalidations): not downloaded.",
		func(s *robotsext.Stats) uint64 { return s.PageCache.BytesSaved })
	scalarCounter("robotsext.sitemaps.fetched", "{sitemap}",
		"Sitemap files fetched by ReadSitemaps.",
		func(s *robotsext.Stats) uint64 { return uint64(s.Sitemaps.Sitemaps) })
	scalarCounter("robotsext.sitemaps.failed", "{sitemap}",
		"Sitemap files not fetched (refused by robots.txt or the back-off, not a 2xx) or not read whole (broken XML or gzip).",
		func(s *robotsext.Stats) uint64 { return uint64(s.Sitemaps.Failed) })
	scalarCounter("robotsext.sitemap.entries", "{entry}",
		"Page entries ReadSitemaps yielded.",
		func(s *robotsext.Stats) uint64 { return uint64(s.Sitemaps.Entries) })
	scalarCounter("robotsext.sitemap.entries.outside", "{entry}",
		"Sitemap entries (and sitemaps of an index) dropped by the protocol's location rule.",
		func(s *robotsext.Stats) uint64 { return uint64(s.Sitemaps.Outside) })
	scalarCounter("robotsext.sitemap.entries.skipped", "{entry}",
		"Bad sitemap entries (no URL, or not an absolute http(s) one) and alternates (a bad href, past 256 an entry) skipped.",
		func(s *robotsext.Stats) uint64 { return uint64(s.Sitemaps.Skipped) })
	scalarCounter("robotsext.sitemap.entries.unchanged", "{entry}",
		"Sitemap entries not yielded because the page cache holds a copy at least as recent as their lastmod.",
		func(s *robotsext.Stats) uint64 { return uint64(s.Sitemaps.Unchanged) })
	scalarCounter("robotsext.sitemap.loops", "{sitemap}",
		"Sitemaps listed again by an index, not read again.",
		func(s *robotsext.Stats) uint64 { return uint64(s.Sitemaps.Loops) })
	scalarCounter("robotsext.sitemap.limits", "{limit}",
		"Sitemap bounds reached: a file's URLs or bytes, the nesting of indexes, the sitemaps or entries of a call.",
		func(s *robotsext.Stats) uint64 { return uint64(s.Sitemaps.Cut) })
	upDown("robotsext.cache.origins", "{origin}",
		"Origins whose robots.txt is cached now.",
		func(s *robotsext.Stats) int64 { return int64(s.Origins) })
	upDown("robotsext.cache.memory.usage", "By",
		"Estimated memory the cached robots.txt policies retain now.",
		func(s *robotsext.Stats) int64 { return s.CacheBytes })

	scalarCounter("robotsext.backend.errors", "{error}",
		"Failed Backend calls; each was answered locally.",
		func(s *robotsext.Stats) uint64 { return s.BackendErrors })
	scalarCounter("robotsext.backend.anomalies", "{anomaly}",
		"Backend answers that cannot be right (a pace wait too long, a stored pace unreadable or in the future), replaced.",
		func(s *robotsext.Stats) uint64 { return s.BackendAnomalies })
	gauge("robotsext.backend.fallback", "1",
		"1 while a Backend call failed recently and the Extension fetches and paces locally, else 0.",
		func(s *robotsext.Stats) int64 {
			if s.Fallback {
				return 1
			}
			return 0
		})

	upDown("robotsext.hold.requests", "{request}",
		"Requests held now because robots.txt could not be had (WithDeferUnreachable).",
		func(s *robotsext.Stats) int64 { return s.HeldNow })
	scalarCounter("robotsext.hold.entered", "{request}",
		"Requests held because robots.txt could not be had (WithDeferUnreachable).",
		func(s *robotsext.Stats) uint64 { return s.Held })
	o.holdEnded = counter("robotsext.hold.ended", "{request}",
		"How held requests ended: released (decided by a robots.txt that came in time) or gave_up (refused when the bound was reached).")
	scalarCounter("robotsext.hold.full", "{request}",
		"Requests refused at once because MaxHeld requests were already held.",
		func(s *robotsext.Stats) uint64 { return s.HoldFull })
	scalarCounter("robotsext.usage.refused", "{request}",
		"URLs refused before fetching because robots.txt or the origin's tdmrep.json says \"n\" for every purpose declared with WithPurpose (also counted as blocked, reason usage).",
		func(s *robotsext.Stats) uint64 { return s.UsageRefused })
	scalarCounter("robotsext.usage.withheld", "{page}",
		"Pages whose body was not downloaded because their headers (Content-Usage, Content-Signal, tdm-reservation, X-Robots-Tag noai), with robots.txt and tdmrep.json, say \"n\" for every declared purpose.",
		func(s *robotsext.Stats) uint64 { return s.UsageWithheld })
	scalarCounter("robotsext.usage.meta_refused", "{page}",
		"Pages whose meta tags (tdm-reservation, robots noai), with the rest, say \"n\" for every declared purpose: read, reported, their links refused.",
		func(s *robotsext.Stats) uint64 { return s.UsageMetaRefused })
	scalarCounter("robotsext.tdmrep.fetches", "{request}",
		"Fetches of an origin's /.well-known/tdmrep.json (WithPurpose only).",
		func(s *robotsext.Stats) uint64 { return s.TDMRepFetches })
	scalarCounter("robotsext.tdmrep.files", "{request}",
		"Fetches of tdmrep.json that found a valid file.",
		func(s *robotsext.Stats) uint64 { return s.TDMRepFiles })
	scalarCounter("robotsext.tdmrep.malformed", "{request}",
		"Fetches of tdmrep.json that found a malformed file, which states nothing.",
		func(s *robotsext.Stats) uint64 { return s.TDMRepMalformed })
	scalarCounter("robotsext.directive.pages", "{page}",
		"Pages whose X-Robots-Tag headers or robots meta tags said something to the crawler's token.",
		func(s *robotsext.Stats) uint64 { return s.DirectivePages })
	scalarCounter("robotsext.links.refused", "{request}",
		"Links refused because their page said nofollow or none, or marked them rel=\"nofollow\" (also counted as blocked, reason nofollow or rel_nofollow; in shadow mode they went out).",
		func(s *robotsext.Stats) uint64 { return s.LinksRefused })

	o.pauses = counter("robotsext.backoff.pauses", "{pause}",
		"Hosts paused because they asked for less, by cause: 429, 503, 5xx_run (a run of other 5xx), probe_failed or ratelimit (a RateLimit field with no quota left); a pause doubled after a failed probe counts again.")
	scalarCounter("robotsext.backoff.pauses.capped", "{pause}",
		"Pauses cut short by WithMaxBackoff.",
		func(s *robotsext.Stats) uint64 { return s.PausesCapped })
	scalarCounter("robotsext.backoff.probes", "{request}",
		"Requests sent to probe a host when its pause ended.",
		func(s *robotsext.Stats) uint64 { return s.Probes })
	scalarCounter("robotsext.backoff.waited", "{request}",
		"Requests that waited for a paused host.",
		func(s *robotsext.Stats) uint64 { return s.BackoffWaited })
	scalarCounter("robotsext.backoff.refused", "{request}",
		"Requests refused because they would have waited past WithBackoffWait (also in robotsext.blocked, reason backoff).",
		func(s *robotsext.Stats) uint64 { return s.BackoffRefused })
	scalarCounter("robotsext.backoff.requeued", "{request}",
		"Requests of Async collectors sent again to wait in the OnRequest hook: their host was paused while they waited for a LimitRule slot.",
		func(s *robotsext.Stats) uint64 { return s.BackoffRequeued })
	upDown("robotsext.backoff.requests", "{request}",
		"Requests waiting for a paused host now.",
		func(s *robotsext.Stats) int64 { return s.BackoffWaiting })
	upDown("robotsext.backoff.hosts", "{host}",
		"Hosts paused, probed or recovering now.",
		func(s *robotsext.Stats) int64 { return int64(s.PausedHosts) })
	o.responses = counter("robotsext.responses", "{response}",
		"What the page requests got back, by status class: none (no response: a network error or timeout), 1xx, 2xx, 3xx (redirects followed or refused included), 4xx or 5xx.")

	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	attr := func(key, value string) []metric.ObserveOption {
		return []metric.ObserveOption{o.with(attribute.String(key, value))}
	}
	for _, out := range robotsext.Outcomes() {
		o.outcomes = append(o.outcomes, attr("robotsext.outcome", out.String()))
	}
	for _, r := range robotsext.Reasons() {
		o.reasons = append(o.reasons, reasonAttr{attr("robotsext.reason", r.Label()), r.CanAllow(), r.CanBlock()})
	}
	o.released = attr("robotsext.hold.result", "released")
	o.gaveUp = attr("robotsext.hold.result", "gave_up")
	for _, c := range robotsext.PauseCauses() {
		o.causes = append(o.causes, causeAttr{c, attr("robotsext.backoff.cause", c.String())})
	}
	for _, c := range robotsext.StatusClasses() {
		o.classes = append(o.classes, classAttr{c, attr("robotsext.status_class", c.String())})
	}
	return o, nil
}

// observe is the callback: it observes one Extension.Stats snapshot and
// feeds the histograms with what was observed since the last collection.
func (o *observer) observe(ctx context.Context, obs metric.Observer) error {
	s := o.ext.Stats()
	for _, sc := range o.scalars {
		obs.ObserveInt64(sc.inst, sc.value(&s), o.base...)
	}
	for i, opts := range o.outcomes {
		obs.ObserveInt64(o.fetches, int64(s.Fetches[robotsext.Outcome(i)]), opts...)
	}
	var checks uint64
	for _, n := range s.Allowed {
		checks += n
	}
	for _, n := range s.Blocked {
		checks += n
	}
	obs.ObserveInt64(o.checks, int64(checks), o.base...)
	o.observeReasons(obs, o.allowed, s.Allowed, false)
	o.observeReasons(obs, o.blocked, s.Blocked, true)
	obs.ObserveInt64(o.holdEnded, int64(s.Released), o.released...)
	obs.ObserveInt64(o.holdEnded, int64(s.GaveUp), o.gaveUp...)
	for _, c := range o.causes {
		obs.ObserveInt64(o.pauses, int64(s.Pauses[c.cause]), c.opts...)
	}
	for _, c := range o.classes {
		obs.ObserveInt64(o.responses, int64(s.Responses[c.class]), c.opts...)
	}
	o.paceWait.record(ctx, s.PaceWaits)
	o.fetchDuration.record(ctx, s.FetchDurations)
	return nil
}

// observeReasons observes one data point per reason counted, and a zero
// one for each other reason the instrument can count (blocked tells
// which).
func (o *observer) observeReasons(obs metric.Observer, inst metric.Int64ObservableCounter, counts map[robotsext.Reason]uint64, blocked bool) {
	for r, a := range o.reasons {
		n, counted := counts[robotsext.Reason(r)]
		if counted || (blocked && a.blocks) || (!blocked && a.allows) {
			obs.ObserveInt64(inst, int64(n), a.opts...)
		}
	}
	for r, n := range counts { // Reasons robotsext.Reasons() does not list: none in this version.
		if int(r) >= len(o.reasons) {
			obs.ObserveInt64(inst, int64(n), o.with(attribute.String("robotsext.reason", r.Label())))
		}
	}
}

// with returns the option of the attributes kv and o.attrs.
func (o *observer) with(kv attribute.KeyValue) metric.MeasurementOption {
	return metric.WithAttributeSet(attribute.NewSet(append(o.attrs, kv)...))
}

// feed records the observations of one of the Extension's histograms
// into a synchronous histogram, each once: it remembers how many of each
// bucket it recorded, and the sum of the values it recorded.
type feed struct {
	hist metric.Float64Histogram
	opts []metric.RecordOption // the attributes of every value, made once

	mu   sync.Mutex // serializes collections by different readers
	seen []uint64   // observations recorded so far, per bucket
	sum  float64    // sum of the values recorded so far, in seconds
}

// record records the observations h has that f has not recorded yet.
func (f *feed) record(ctx context.Context, h robotsext.Histogram) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.seen) != len(h.Counts) {
		if f.seen != nil {
			return // the Extension's buckets changed: they never do
		}
		f.seen = make([]uint64, len(h.Counts))
	}
	fresh := make([]uint64, len(h.Counts))
	news := false
	for i, n := range h.Counts {
		if n > f.seen[i] {
			fresh[i] = n - f.seen[i]
			news = true
		}
	}
	if !news {
		return
	}
	values := spread(h.Bounds, fresh, h.Sum.Seconds()-f.sum)
	for i, n := range fresh {
		for range n {
			f.hist.Record(ctx, values[i], f.opts...)
			f.sum += values[i]
		}
	}
	copy(f.seen, h.Counts)
}

// spread returns, for each bucket i that n has observations in, one value
// in it (above bounds[i-1] and at most bounds[i], in seconds; the bucket
// past the last bound has no upper bound) such that n[i] times value i,
// summed over the buckets, is sum, or as near as the buckets allow. Each
// value is at the same fraction of its bucket's width; what the finite
// buckets cannot hold goes to the last one.
func spread(bounds []time.Duration, n []uint64, sum float64) []float64 {
	lower := func(i int) float64 {
		if i == 0 {
			return 0
		}
		return bounds[i-1].Seconds()
	}
	var base, room float64 // the least sum the buckets allow, and what more the finite ones can hold
	for i, k := range n {
		if k == 0 {
			continue
		}
		base += float64(k) * lower(i)
		if i < len(bounds) {
			room += float64(k) * (bounds[i].Seconds() - lower(i))
		}
	}
	extra := max(sum-base, 0)
	t := 1.0 // the fraction of each finite bucket's width
	if room > 0 {
		t = min(extra/room, 1)
	}
	values := make([]float64, len(n))
	for i, k := range n {
		if k == 0 {
			continue
		}
		lo := lower(i)
		var v float64
		if i < len(bounds) {
			hi := bounds[i].Seconds()
			v = min(lo+t*(hi-lo), hi)
		} else {
			v = lo + max(extra-t*room, 0)/float64(k)
		}
		if i > 0 && v <= lo { // a value at the lower bound belongs to the bucket below
			v = math.Nextafter(lo, math.Inf(1))
		}
		values[i] = v
	}
	return values
}
