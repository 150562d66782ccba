// Package robotsprom exports what a robotsext.Extension counts to
// Prometheus.
//
// NewCollector returns a prometheus.Collector that reads
// Extension.Stats at each scrape and reports it as constant metrics:
// nothing runs between scrapes, and the Extension's request hook does no
// more work when a collector is registered than when none is.
//
// It is a module of its own, as go-redis keeps its metrics adapters in
// modules of their own, so that the robotsext module itself depends on
// no metrics library; robotsotel is the OpenTelemetry counterpart, with
// the same measures under OpenTelemetry's names.
//
// The metrics follow Prometheus's naming: the application prefix
// robotsext_, _total on counters, base units (_seconds, _bytes), and no
// per-host labels, so that their number stays fixed however many sites
// are crawled (Extension.Origin tells about one host). What is counted
// follows Scrapy's robots.txt statistics: the robots.txt fetches by
// outcome (its request and response counts), the requests robots.txt
// forbade, and the fetches that failed.
//
//	robotsext_robotstxt_fetches_total{outcome}     robots.txt fetches, revalidations included; outcome is ok, unavailable, unreachable or unauthorized
//	robotsext_robotstxt_not_modified_total         revalidations answered 304 (also counted as outcome="ok")
//	robotsext_robotstxt_local_errors_total         fetches that failed because of this machine
//	robotsext_robotstxt_fetch_duration_seconds     histogram of the robots.txt fetches' durations
//	robotsext_checks_total                         requests and redirect hops decided (allowed + blocked)
//	robotsext_allowed_total{reason}                those let through, by reason
//	robotsext_blocked_total{reason}                those robots.txt refused, by reason (in shadow mode let through all the same)
//	robotsext_shadowed_total                       blocked ones let through because of shadow mode
//	robotsext_redirects_blocked_total              redirect hops refused (also counted as blocked)
//	robotsext_redirects_deferred_total             redirect hops to paced hosts re-issued as requests
//	robotsext_retries_dropped_total                retries dropped because their redirect hop was already re-issued
//	robotsext_cancelled_total                      requests passed on undecided because the crawl's context ended
//	robotsext_crawl_delays_clamped_total           Crawl-delay values above the maximum, clamped
//	robotsext_pace_wait_seconds                    histogram of the waits of requests to hosts with a Crawl-delay
//	robotsext_cache_hits_total                     decisions made from a fresh cached robots.txt
//	robotsext_cache_misses_total                   decisions that fetched robots.txt or waited for its fetch
//	robotsext_cache_stale_served_total             decisions made from a last good copy while its origin was unreachable
//	robotsext_cache_evictions_total                origins dropped to keep the cache within its bounds
//	robotsext_cache_origins                        origins cached now
//	robotsext_cache_bytes                          estimated memory the cached robots.txt policies retain now
//	robotsext_page_cache_hits_total                pages served fresh from WithPageCache's cache: nothing sent
//	robotsext_page_cache_revalidated_total         stored pages revalidated by a 304 and served
//	robotsext_page_cache_misses_total              pages downloaded with nothing usable stored
//	robotsext_page_cache_stale_total               stored pages the origin replaced with a new response
//	robotsext_page_cache_saved_bytes_total         body bytes served from the page cache: not downloaded
//	robotsext_backend_errors_total                 failed Backend calls, each answered locally
//	robotsext_backend_anomalies_total              Backend answers that cannot be right, replaced
//	robotsext_backend_fallback                     1 while the Extension fetches and paces locally after a Backend failure
//	robotsext_held_requests                        requests held now because robots.txt could not be had (WithDeferUnreachable)
//	robotsext_held_total                           requests held so far
//	robotsext_held_ended_total{result}             how held requests ended: released (decided by a robots.txt that came in time) or gave_up (refused at the bound)
//	robotsext_hold_full_total                      requests refused at once because MaxHeld requests were held
//	robotsext_usage_refused_total                  URLs refused before fetching by AI usage preferences: robots.txt, tdmrep.json (WithPurpose)
//	robotsext_usage_withheld_total                 pages aborted at their headers by their usage preferences (WithPurpose)
//	robotsext_usage_meta_refused_total             pages read whose meta tags refuse every declared purpose; their links refused (WithPurpose)
//	robotsext_tdmrep_fetches_total                 fetches of an origin's tdmrep.json (WithPurpose)
//	robotsext_tdmrep_files_total                   fetches of tdmrep.json that found a valid file
//	robotsext_tdmrep_malformed_total               fetches of tdmrep.json that found a malformed file, which states nothing
//	robotsext_backoff_pauses_total{cause}          hosts paused because they asked for less; cause is 429, 503, 5xx_run, probe_failed or ratelimit
//	robotsext_backoff_pauses_capped_total          pauses cut short by WithMaxBackoff
//	robotsext_backoff_probes_total                 probes sent when a pause ended
//	robotsext_backoff_waited_total                 requests that waited for a paused host
//	robotsext_backoff_refused_total                requests refused because they would have waited past WithBackoffWait (also blocked, reason backoff)
//	robotsext_backoff_requeued_total               requests of Async collectors sent again to wait, their host paused while they waited for a slot
//	robotsext_backoff_waiting_requests             requests waiting for a paused host now
//	robotsext_backoff_paused_hosts                 hosts paused, probed or recovering now
//	robotsext_directive_pages_total                pages whose X-Robots-Tag or robots meta tags said something to the crawler
//	robotsext_links_refused_total                  links refused because their page said nofollow (or rel="nofollow", WithRelNofollow)
//	robotsext_responses_total{class}               what the page requests got back; class is none (no response), 1xx, 2xx, 3xx, 4xx or 5xx
//	robotsext_sitemaps_fetched_total               sitemap files fetched by ReadSitemaps
//	robotsext_sitemaps_failed_total                sitemap files not fetched (refused, not a 2xx) or not read whole (broken)
//	robotsext_sitemap_entries_total                page entries ReadSitemaps yielded
//	robotsext_sitemap_entries_outside_total        entries (and indexed sitemaps) dropped by the location rule
//	robotsext_sitemap_entries_skipped_total        bad entries (no URL, or not an absolute http(s) one) and alternates (a bad href, past 256) skipped
//	robotsext_sitemap_entries_unchanged_total      entries not yielded because the page cache's copy is as recent (SkipUnchanged)
//	robotsext_sitemap_loops_total                  sitemaps listed again by an index, not read again
//	robotsext_sitemap_limits_total                 sitemap bounds reached (a file's URLs or bytes, nesting, sitemaps or entries per call)
//
// The reason label is short and stable: no_match, allow_rule,
// disallow_rule, empty_rule, robots_txt, unavailable, unreachable,
// unauthorized, override, not_applicable, local_error, usage, backoff, nofollow,
// rel_nofollow, identity (one per
// robotsext.Reason, not Reason.String's prose). Each label value a
// counter can take is reported from the start, at 0, so that rate() and
// increase() see its first increment.
package robotsprom

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/robotsext/robotsext"
)

// namespace is the application prefix of every metric name.
const namespace = "robotsext"

// collector is the prometheus.Collector NewCollector returns. Its fields
// are set once by NewCollector and only read afterwards, so concurrent
// scrapes need no lock.
type collector struct {
	ext      *robotsext.Extension
	nreasons int // the Reason values the root module defines: 0..nreasons-1

	scalars []scalar // the metrics without labels

	fetches, checks, allowed, blocked, heldEnded *prometheus.Desc
	pauses, responses                            *prometheus.Desc
	paceWait, fetchDuration                      *prometheus.Desc
}

// scalar is a metric without labels read from one field of Stats.
type scalar struct {
	desc  *prometheus.Desc
	kind  prometheus.ValueType
	value func(*robotsext.Stats) float64
}

// NewCollector returns a prometheus.Collector of ext's counters, gauges and
// histograms (see the package documentation for the list). Register it
// once per Extension:
//
//	reg.MustRegister(robotsprom.NewCollector(ext))
//
// Each scrape takes one Extension.Stats snapshot and turns it into
// constant metrics, so the collector starts no goroutine, holds no state
// of its own and costs nothing between scrapes. To export the Extensions
// of several crawls from one registry, tell them apart with a constant
// label, prometheus.WrapRegistererWith(prometheus.Labels{"crawl": name},
// reg), since their metric names are the same. NewCollector panics if ext
// is nil, when the mistake is made rather than at the first scrape.
func NewCollector(ext *robotsext.Extension) prometheus.Collector {
	if ext == nil {
		panic("robotsprom: NewCollector(nil): an Extension is needed")
	}
	c := &collector{ext: ext, nreasons: len(robotsext.Reasons())}
	desc := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(namespace+"_"+name, help, labels, nil)
	}
	counter := func(name, help string, value func(*robotsext.Stats) uint64) {
		c.scalars = append(c.scalars, scalar{desc(name, help), prometheus.CounterValue,
			func(s *robotsext.Stats) float64 { return float64(value(s)) }})
	}
	gauge := func(name, help string, value func(*robotsext.Stats) float64) {
		c.scalars = append(c.scalars, scalar{desc(name, help), prometheus.GaugeValue, value})
	}

	c.fetches = desc("robotstxt_fetches_total",
		"robots.txt fetches by outcome (ok, unavailable, unreachable, unauthorized), revalidations included.", "outcome")
	counter("robotstxt_not_modified_total",
		"robots.txt revalidations answered 304 Not Modified (also counted in robotsext_robotstxt_fetches_total as ok).",
		func(s *robotsext.Stats) uint64 { return s.NotModified })
	counter("robotstxt_local_errors_total",
		"robots.txt fetches that failed because of this machine (no file descriptors, fetch slot wait ended), after their retries.",
		func(s *robotsext.Stats) uint64 { return s.LocalErrors })
	c.fetchDuration = desc("robotstxt_fetch_duration_seconds",
		"Duration of the robots.txt fetches of this process, answer or failure.")

	c.checks = desc("checks_total",
		"Requests and redirect hops robots.txt decided: robotsext_allowed_total plus robotsext_blocked_total.")
	c.allowed = desc("allowed_total",
		"Requests and redirect hops robots.txt let through, by reason.", "reason")
	c.blocked = desc("blocked_total",
		"Requests and redirect hops robots.txt refused, by reason; in shadow mode they went out all the same.", "reason")
	counter("shadowed_total",
		"Requests robots.txt refused that shadow mode let through.",
		func(s *robotsext.Stats) uint64 { return s.Shadowed })
	counter("redirects_blocked_total",
		"Redirect hops robots.txt refused (also counted in robotsext_blocked_total).",
		func(s *robotsext.Stats) uint64 { return s.RedirectsBlocked })
	counter("redirects_deferred_total",
		"Redirect hops to paced hosts re-issued as requests of their own.",
		func(s *robotsext.Stats) uint64 { return s.RedirectsDeferred })
	counter("retries_dropped_total",
		"Requests dropped because the redirect hop they would lead to was already re-issued.",
		func(s *robotsext.Stats) uint64 { return s.RetriesDropped })
	counter("cancelled_total",
		"Requests passed on undecided because the collector's context ended while robots.txt was being fetched.",
		func(s *robotsext.Stats) uint64 { return s.Cancelled })
	counter("crawl_delays_clamped_total",
		"Crawl-delay values above the maximum that were clamped to it.",
		func(s *robotsext.Stats) uint64 { return s.CrawlDelaysClamped })
	c.paceWait = desc("pace_wait_seconds",
		"How long requests to hosts with a Crawl-delay waited for their turn.")

	counter("cache_hits_total",
		"Decisions made from a fresh cached robots.txt.",
		func(s *robotsext.Stats) uint64 { return s.CacheHits })
	counter("cache_misses_total",
		"Decisions that fetched robots.txt or waited for its fetch.",
		func(s *robotsext.Stats) uint64 { return s.CacheMisses })
	counter("cache_stale_served_total",
		"Decisions made from a last good robots.txt while its origin was unreachable.",
		func(s *robotsext.Stats) uint64 { return s.StaleServed })
	counter("cache_evictions_total",
		"Origins the robots.txt cache dropped to stay within its size and memory bounds.",
		func(s *robotsext.Stats) uint64 { return s.Evictions })
	gauge("cache_origins",
		"Origins whose robots.txt is cached now.",
		func(s *robotsext.Stats) float64 { return float64(s.Origins) })
	gauge("cache_bytes",
		"Estimated memory the cached robots.txt policies retain now.",
		func(s *robotsext.Stats) float64 { return float64(s.CacheBytes) })

	counter("page_cache_hits_total",
		"Pages served fresh from WithPageCache's cache: no request sent, no pace waited.",
		func(s *robotsext.Stats) uint64 { return s.PageCache.Hits })
	counter("page_cache_revalidated_total",
		"Stored pages revalidated by a 304 Not Modified and served.",
		func(s *robotsext.Stats) uint64 { return s.PageCache.Revalidated })
	counter("page_cache_misses_total",
		"Pages downloaded with nothing usable in the page cache.",
		func(s *robotsext.Stats) uint64 { return s.PageCache.Misses })
	counter("page_cache_stale_total",
		"Stored pages the origin replaced with a new response instead of a 304.",
		func(s *robotsext.Stats) uint64 { return s.PageCache.Stale })
	counter("page_cache_saved_bytes_total",
		"Body bytes served from the page cache (hits and revalidations): not downloaded.",
		func(s *robotsext.Stats) uint64 { return s.PageCache.BytesSaved })

	sitemap := func(name, help string, get func(c robotsext.SitemapCounts) int) {
		counter(name, help, func(s *robotsext.Stats) uint64 { return uint64(get(s.Sitemaps)) })
	}
	sitemap("sitemaps_fetched_total", "Sitemap files fetched by ReadSitemaps.",
		func(c robotsext.SitemapCounts) int { return c.Sitemaps })
	sitemap("sitemaps_failed_total", "Sitemap files not fetched (refused by robots.txt or the back-off, not a 2xx) or not read whole (broken XML or gzip).",
		func(c robotsext.SitemapCounts) int { return c.Failed })
	sitemap("sitemap_entries_total", "Page entries ReadSitemaps yielded.",
		func(c robotsext.SitemapCounts) int { return c.Entries })
	sitemap("sitemap_entries_outside_total", "Sitemap entries (and sitemaps of an index) dropped by the protocol's location rule.",
		func(c robotsext.SitemapCounts) int { return c.Outside })
	sitemap("sitemap_entries_skipped_total", "Bad sitemap entries (no URL, or not an absolute http(s) one) and alternates (a bad href, past 256 an entry) skipped.",
		func(c robotsext.SitemapCounts) int { return c.Skipped })
	sitemap("sitemap_entries_unchanged_total", "Sitemap entries not yielded because the page cache holds a copy at least as recent as their lastmod.",
		func(c robotsext.SitemapCounts) int { return c.Unchanged })
	sitemap("sitemap_loops_total", "Sitemaps listed again by an index, not read again.",
		func(c robotsext.SitemapCounts) int { return c.Loops })
	sitemap("sitemap_limits_total", "Sitemap bounds reached: a file's URLs or bytes, the nesting of indexes, the sitemaps or entries of a call.",
		func(c robotsext.SitemapCounts) int { return c.Cut })

	counter("backend_errors_total",
		"Failed Backend calls; each was answered locally.",
		func(s *robotsext.Stats) uint64 { return s.BackendErrors })
	counter("backend_anomalies_total",
		"Backend answers that cannot be right (a pace wait too long, a stored pace unreadable or in the future), replaced.",
		func(s *robotsext.Stats) uint64 { return s.BackendAnomalies })
	gauge("backend_fallback",
		"1 while a Backend call failed recently and the Extension fetches and paces locally, else 0.",
		func(s *robotsext.Stats) float64 {
			if s.Fallback {
				return 1
			}
			return 0
		})

	gauge("held_requests",
		"Requests held now because robots.txt could not be had (WithDeferUnreachable).",
		func(s *robotsext.Stats) float64 { return float64(s.HeldNow) })
	counter("held_total",
		"Requests held because robots.txt could not be had (WithDeferUnreachable).",
		func(s *robotsext.Stats) uint64 { return s.Held })
	c.heldEnded = desc("held_ended_total",
		"How held requests ended: released (decided by a robots.txt that came in time) or gave_up (refused when the bound was reached).", "result")
	counter("hold_full_total",
		"Requests refused at once because MaxHeld requests were already held.",
		func(s *robotsext.Stats) uint64 { return s.HoldFull })
	counter("usage_refused_total",
		"URLs refused before fetching because robots.txt or the origin's tdmrep.json says \"n\" for every purpose declared with WithPurpose (also counted as blocked, reason usage).",
		func(s *robotsext.Stats) uint64 { return s.UsageRefused })
	counter("usage_withheld_total",
		"Pages whose body was not downloaded because their headers (Content-Usage, Content-Signal, tdm-reservation, X-Robots-Tag noai), with robots.txt and tdmrep.json, say \"n\" for every declared purpose.",
		func(s *robotsext.Stats) uint64 { return s.UsageWithheld })
	counter("usage_meta_refused_total",
		"Pages whose meta tags (tdm-reservation, robots noai), with the rest, say \"n\" for every declared purpose: read, reported, their links refused.",
		func(s *robotsext.Stats) uint64 { return s.UsageMetaRefused })
	counter("tdmrep_fetches_total",
		"Fetches of an origin's /.well-known/tdmrep.json (WithPurpose only).",
		func(s *robotsext.Stats) uint64 { return s.TDMRepFetches })
	counter("tdmrep_files_total",
		"Fetches of tdmrep.json that found a valid file.",
		func(s *robotsext.Stats) uint64 { return s.TDMRepFiles })
	counter("tdmrep_malformed_total",
		"Fetches of tdmrep.json that found a malformed file, which states nothing.",
		func(s *robotsext.Stats) uint64 { return s.TDMRepMalformed })

	c.pauses = desc("backoff_pauses_total",
		"Hosts paused because they asked for less, by cause: 429, 503, 5xx_run (a run of other 5xx), probe_failed or ratelimit (a RateLimit field with no quota left); a pause doubled after a failed probe counts again.", "cause")
	c.responses = desc("responses_total",
		"What the page requests got back, by status class: none (no response: a network error or timeout), 1xx, 2xx, 3xx (redirects followed or refused included), 4xx or 5xx.", "class")
	counter("backoff_pauses_capped_total",
		"Pauses cut short by WithMaxBackoff.",
		func(s *robotsext.Stats) uint64 { return s.PausesCapped })
	counter("backoff_probes_total",
		"Requests sent to probe a host when its pause ended.",
		func(s *robotsext.Stats) uint64 { return s.Probes })
	counter("backoff_waited_total",
		"Requests that waited for a paused host.",
		func(s *robotsext.Stats) uint64 { return s.BackoffWaited })
	counter("backoff_refused_total",
		"Requests refused because they would have waited past WithBackoffWait (also in robotsext_blocked_total, reason backoff).",
		func(s *robotsext.Stats) uint64 { return s.BackoffRefused })
	counter("backoff_requeued_total",
		"Requests of Async collectors sent again to wait in the OnRequest hook: their host was paused while they waited for a LimitRule slot.",
		func(s *robotsext.Stats) uint64 { return s.BackoffRequeued })
	gauge("backoff_waiting_requests",
		"Requests waiting for a paused host now.",
		func(s *robotsext.Stats) float64 { return float64(s.BackoffWaiting) })
	gauge("backoff_paused_hosts",
		"Hosts paused, probed or recovering now.",
		func(s *robotsext.Stats) float64 { return float64(s.PausedHosts) })
	counter("directive_pages_total",
		"Pages whose X-Robots-Tag headers or robots meta tags said something to the crawler's token.",
		func(s *robotsext.Stats) uint64 { return s.DirectivePages })
	counter("links_refused_total",
		"Links refused because their page said nofollow or none, or marked them rel=\"nofollow\" (also counted as blocked, reason nofollow or rel_nofollow; in shadow mode they went out).",
		func(s *robotsext.Stats) uint64 { return s.LinksRefused })
	return c
}

// Describe sends the descriptors of every metric Collect sends.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range c.scalars {
		ch <- m.desc
	}
	for _, d := range []*prometheus.Desc{c.fetches, c.checks, c.allowed, c.blocked, c.heldEnded, c.pauses, c.responses, c.paceWait, c.fetchDuration} {
		ch <- d
	}
}

// Collect sends the metrics of one Extension.Stats snapshot.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	s := c.ext.Stats()
	for _, m := range c.scalars {
		ch <- constMetric(m.desc, m.kind, m.value(&s))
	}
	for _, o := range robotsext.Outcomes() {
		ch <- constMetric(c.fetches, prometheus.CounterValue, float64(s.Fetches[o]), o.String())
	}
	var checks uint64
	for _, n := range s.Allowed {
		checks += n
	}
	for _, n := range s.Blocked {
		checks += n
	}
	ch <- constMetric(c.checks, prometheus.CounterValue, float64(checks))
	c.collectReasons(ch, c.allowed, s.Allowed, false)
	c.collectReasons(ch, c.blocked, s.Blocked, true)
	ch <- constMetric(c.heldEnded, prometheus.CounterValue, float64(s.Released), "released")
	ch <- constMetric(c.heldEnded, prometheus.CounterValue, float64(s.GaveUp), "gave_up")
	for _, cause := range robotsext.PauseCauses() {
		ch <- constMetric(c.pauses, prometheus.CounterValue, float64(s.Pauses[cause]), cause.String())
	}
	for _, class := range robotsext.StatusClasses() {
		ch <- constMetric(c.responses, prometheus.CounterValue, float64(s.Responses[class]), class.String())
	}
	ch <- constHistogram(c.paceWait, s.PaceWaits)
	ch <- constHistogram(c.fetchDuration, s.FetchDurations)
}

// collectReasons sends one series per reason counted, and a zero series
// for each other reason the metric can count (blocked tells which).
func (c *collector) collectReasons(ch chan<- prometheus.Metric, desc *prometheus.Desc, counts map[robotsext.Reason]uint64, blocked bool) {
	for r := range c.nreasons {
		reason := robotsext.Reason(r)
		n, counted := counts[reason]
		if counted || (blocked && reason.CanBlock()) || (!blocked && reason.CanAllow()) {
			ch <- constMetric(desc, prometheus.CounterValue, float64(n), reason.Label())
		}
	}
	for r, n := range counts { // Reasons robotsext.Reasons() does not list: none in this version.
		if int(r) >= c.nreasons {
			ch <- constMetric(desc, prometheus.CounterValue, float64(n), r.Label())
		}
	}
}

// constMetric returns a constant metric, or an invalid one saying what
// went wrong, which the registry reports for this scrape instead of the
// process panicking.
func constMetric(desc *prometheus.Desc, kind prometheus.ValueType, v float64, labels ...string) prometheus.Metric {
	m, err := prometheus.NewConstMetric(desc, kind, v, labels...)
	if err != nil {
		return prometheus.NewInvalidMetric(desc, err)
	}
	return m
}

// constHistogram returns h as a constant Prometheus histogram: bounds in
// seconds and cumulative bucket counts, where h's are durations and
// counts per bucket; the bucket past the last bound is the +Inf bucket,
// whose count is h.Count.
func constHistogram(desc *prometheus.Desc, h robotsext.Histogram) prometheus.Metric {
	buckets := make(map[float64]uint64, len(h.Bounds))
	var cumulative uint64
	for i, bound := range h.Bounds {
		if i < len(h.Counts) {
			cumulative += h.Counts[i]
		}
		buckets[bound.Seconds()] = cumulative
	}
	m, err := prometheus.NewConstHistogram(desc, h.Count, h.Sum.Seconds(), buckets)
	if err != nil {
		return prometheus.NewInvalidMetric(desc, err)
	}
	return m
}
