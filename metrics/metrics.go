// Package metrics is the one table of what a robotsext.Extension counts,
// as the metrics adapters export it: for each measure its Prometheus name
// and its OpenTelemetry name, its kind and unit, its help text, and how
// to read it from a robotsext.Stats snapshot (with, for a measure by
// reason, outcome, cause or status class, its label and every value the
// label can take).
//
// robotsprom and robotsotel read it, and so does the test that holds
// docs/observability.md to it: a new counter is one row of All, and both
// adapters export it. A program exporting to another system can read it
// too.
package metrics

import "github.com/robotsext/robotsext"

// Kind is what a Metric measures, which each adapter maps to its own
// instrument.
type Kind uint8

const (
	// Counter only grows: a Prometheus counter, an OpenTelemetry
	// observable counter.
	Counter Kind = iota
	// UpDown is a number of things there are now (origins cached,
	// requests held): a Prometheus gauge, an OpenTelemetry observable
	// up-down counter.
	UpDown
	// Gauge is a state (1 or 0): a Prometheus gauge, an OpenTelemetry
	// observable gauge.
	Gauge
	// Histogram is a distribution of durations in seconds
	// (robotsext.Histogram): a Prometheus histogram, an OpenTelemetry
	// histogram with the Extension's bucket boundaries.
	Histogram
)

// String returns "counter", "updown", "gauge" or "histogram".
func (k Kind) String() string {
	switch k {
	case Counter:
		return "counter"
	case UpDown:
		return "updown"
	case Gauge:
		return "gauge"
	case Histogram:
		return "histogram"
	}
	return "kind?"
}

// Metric is one row of the table: one measure of an Extension.
type Metric struct {
	// Prom is the Prometheus name, without the "robotsext_" namespace:
	// "robotstxt_fetches_total".
	Prom string
	// OTel is the OpenTelemetry instrument name: "robotsext.robotstxt.fetches".
	OTel string
	// Kind is what it measures.
	Kind Kind
	// Unit is its UCUM unit, as OpenTelemetry states it: "{fetch}",
	// "By", "s", "1". Prometheus names carry theirs (_seconds, _bytes).
	Unit string
	// Help is its help text (Prometheus) or description (OpenTelemetry),
	// one sentence.
	Help string
	// Value reads a measure without a label from a snapshot; nil for a
	// Histogram or a measure with a Label.
	Value func(*robotsext.Stats) int64
	// Histogram reads a Histogram from a snapshot; nil for other kinds.
	Histogram func(*robotsext.Stats) robotsext.Histogram
	// Label is the label of a measure reported per value of it; nil for
	// one reported as a single number.
	Label *Label
}

// Label is the label of a Metric reported per value: by reason, outcome,
// cause, result or status class.
type Label struct {
	// Prom is its Prometheus name: "reason".
	Prom string
	// OTel is its OpenTelemetry attribute key: "robotsext.reason".
	OTel string
	// Values lists every value the label can take in this version, in
	// order, so that an adapter can prepare each one's series.
	Values []string
	// Points calls point with each value to report from s and its count:
	// every value the measure can count, from the first collection on
	// (at 0 until counted), and any value counted that Values does not
	// list.
	Points func(s *robotsext.Stats, point func(value string, n uint64))
}

// Name returns the Prometheus name with its namespace:
// "robotsext_robotstxt_fetches_total".
func (m Metric) Name() string { return "robotsext_" + m.Prom }

// All returns the table, a new copy at each call: every measure the
// adapters export, in the order of their documentation.
func All() []Metric {
	return []Metric{
		{Prom: "robotstxt_fetches_total", OTel: "robotsext.robotstxt.fetches", Kind: Counter, Unit: "{fetch}",
			Help:  "robots.txt fetches by outcome (ok, unavailable, unreachable, unauthorized), revalidations included.",
			Label: outcomes()},
		counter("robotstxt_not_modified_total", "robotsext.robotstxt.not_modified", "{fetch}",
			"robots.txt revalidations answered 304 Not Modified (also counted among the fetches as ok).",
			func(s *robotsext.Stats) uint64 { return s.NotModified }),
		counter("robotstxt_local_errors_total", "robotsext.robotstxt.local_errors", "{fetch}",
			"robots.txt fetches that failed because of this machine (no file descriptors, fetch slot wait ended), after their retries.",
			func(s *robotsext.Stats) uint64 { return s.LocalErrors }),
		{Prom: "robotstxt_fetch_duration_seconds", OTel: "robotsext.robotstxt.fetch.duration", Kind: Histogram, Unit: "s",
			Help:      "Duration of the robots.txt fetches of this process, answer or failure.",
			Histogram: func(s *robotsext.Stats) robotsext.Histogram { return s.FetchDurations }},

		counter("checks_total", "robotsext.checks", "{request}",
			"Requests and redirect hops robots.txt decided: those allowed plus those blocked.",
			func(s *robotsext.Stats) uint64 { return sum(s.Allowed) + sum(s.Blocked) }),
		{Prom: "allowed_total", OTel: "robotsext.allowed", Kind: Counter, Unit: "{request}",
			Help:  "Requests and redirect hops robots.txt let through, by reason.",
			Label: reasons(func(s *robotsext.Stats) map[robotsext.Reason]uint64 { return s.Allowed }, robotsext.Reason.CanAllow)},
		{Prom: "blocked_total", OTel: "robotsext.blocked", Kind: Counter, Unit: "{request}",
			Help:  "Requests and redirect hops robots.txt refused, by reason; in shadow mode they went out all the same.",
			Label: reasons(func(s *robotsext.Stats) map[robotsext.Reason]uint64 { return s.Blocked }, robotsext.Reason.CanBlock)},
		counter("shadowed_total", "robotsext.shadowed", "{request}",
			"Requests robots.txt refused that shadow mode let through.",
			func(s *robotsext.Stats) uint64 { return s.Shadowed }),
		counter("redirects_blocked_total", "robotsext.redirects.blocked", "{redirect}",
			"Redirect hops robots.txt refused (also counted as blocked).",
			func(s *robotsext.Stats) uint64 { return s.RedirectsBlocked }),
		counter("redirects_deferred_total", "robotsext.redirects.deferred", "{redirect}",
			"Redirect hops to paced hosts re-issued as requests of their own.",
			func(s *robotsext.Stats) uint64 { return s.RedirectsDeferred }),
		counter("retries_dropped_total", "robotsext.retries.dropped", "{request}",
			"Requests dropped because the redirect hop they would lead to was already re-issued.",
			func(s *robotsext.Stats) uint64 { return s.RetriesDropped }),
		counter("cancelled_total", "robotsext.cancelled", "{request}",
			"Requests passed on undecided because the collector's context ended while robots.txt was being fetched.",
			func(s *robotsext.Stats) uint64 { return s.Cancelled }),
		counter("crawl_delays_clamped_total", "robotsext.crawl_delays.clamped", "{crawl_delay}",
			"Crawl-delay values above the maximum that were clamped to it.",
			func(s *robotsext.Stats) uint64 { return s.CrawlDelaysClamped }),
		{Prom: "pace_wait_seconds", OTel: "robotsext.pace.wait", Kind: Histogram, Unit: "s",
			Help:      "How long requests to hosts with a Crawl-delay waited for their turn.",
			Histogram: func(s *robotsext.Stats) robotsext.Histogram { return s.PaceWaits }},

		counter("cache_hits_total", "robotsext.cache.hits", "{request}",
			"Decisions made from a fresh cached robots.txt.",
			func(s *robotsext.Stats) uint64 { return s.CacheHits }),
		counter("cache_misses_total", "robotsext.cache.misses", "{request}",
			"Decisions that fetched robots.txt or waited for its fetch.",
			func(s *robotsext.Stats) uint64 { return s.CacheMisses }),
		counter("cache_stale_served_total", "robotsext.cache.stale_served", "{request}",
			"Decisions made from a last good robots.txt while its origin was unreachable.",
			func(s *robotsext.Stats) uint64 { return s.StaleServed }),
		counter("cache_evictions_total", "robotsext.cache.evictions", "{origin}",
			"Origins the robots.txt cache dropped to stay within its size and memory bounds.",
			func(s *robotsext.Stats) uint64 { return s.Evictions }),
		upDown("cache_origins", "robotsext.cache.origins", "{origin}",
			"Origins whose robots.txt is cached now.",
			func(s *robotsext.Stats) int64 { return int64(s.Origins) }),
		upDown("cache_bytes", "robotsext.cache.memory.usage", "By",
			"Estimated memory the cached robots.txt policies retain now.",
			func(s *robotsext.Stats) int64 { return s.CacheBytes }),

		counter("page_cache_hits_total", "robotsext.page_cache.hits", "{page}",
			"Pages served fresh from WithPageCache's cache: no request sent, no pace waited.",
			func(s *robotsext.Stats) uint64 { return s.PageCache.Hits }),
		counter("page_cache_revalidated_total", "robotsext.page_cache.revalidated", "{page}",
			"Stored pages revalidated by a 304 Not Modified and served.",
			func(s *robotsext.Stats) uint64 { return s.PageCache.Revalidated }),
		counter("page_cache_misses_total", "robotsext.page_cache.misses", "{page}",
			"Pages downloaded with nothing usable in the page cache.",
			func(s *robotsext.Stats) uint64 { return s.PageCache.Misses }),
		counter("page_cache_stale_total", "robotsext.page_cache.stale", "{page}",
			"Stored pages the origin replaced with a new response instead of a 304.",
			func(s *robotsext.Stats) uint64 { return s.PageCache.Stale }),
		counter("page_cache_saved_bytes_total", "robotsext.page_cache.saved", "By",
			"Body bytes served from the page cache (hits and revalidations): not downloaded.",
			func(s *robotsext.Stats) uint64 { return s.PageCache.BytesSaved }),
		counter("page_cache_corrupt_total", "robotsext.page_cache.corrupt", "{entry}",
			"Stored pages that could not be read back; each was downloaded again.",
			func(s *robotsext.Stats) uint64 { return s.PageCache.Corrupt }),
		counter("page_cache_store_errors_total", "robotsext.page_cache.store_errors", "{error}",
			"Failures of the PageStore itself; each page was downloaded, or not stored.",
			func(s *robotsext.Stats) uint64 { return s.PageCache.StoreErrors }),

		counter("sitemaps_fetched_total", "robotsext.sitemaps.fetched", "{sitemap}",
			"Sitemap files fetched by ReadSitemaps.",
			func(s *robotsext.Stats) uint64 { return uint64(s.Sitemaps.Sitemaps) }),
		counter("sitemaps_failed_total", "robotsext.sitemaps.failed", "{sitemap}",
			"Sitemap files not fetched (refused by robots.txt or the back-off, not a 2xx) or not read whole (broken XML or gzip).",
			func(s *robotsext.Stats) uint64 { return uint64(s.Sitemaps.Failed) }),
		counter("sitemap_entries_total", "robotsext.sitemap.entries", "{entry}",
			"Page entries ReadSitemaps yielded.",
			func(s *robotsext.Stats) uint64 { return uint64(s.Sitemaps.Entries) }),
		counter("sitemap_entries_outside_total", "robotsext.sitemap.entries.outside", "{entry}",
			"Sitemap entries (and sitemaps of an index) dropped by the protocol's location rule.",
			func(s *robotsext.Stats) uint64 { return uint64(s.Sitemaps.Outside) }),
		counter("sitemap_entries_skipped_total", "robotsext.sitemap.entries.skipped", "{entry}",
			"Bad sitemap entries (no URL, or not an absolute http(s) one) and alternates (a bad href, past 256 an entry) skipped.",
			func(s *robotsext.Stats) uint64 { return uint64(s.Sitemaps.Skipped) }),
		counter("sitemap_entries_unchanged_total", "robotsext.sitemap.entries.unchanged", "{entry}",
			"Sitemap entries not yielded because the page cache holds a copy at least as recent as their lastmod.",
			func(s *robotsext.Stats) uint64 { return uint64(s.Sitemaps.Unchanged) }),
		counter("sitemap_loops_total", "robotsext.sitemap.loops", "{sitemap}",
			"Sitemaps an index lists that lead back to it (an index loop), not read again.",
			func(s *robotsext.Stats) uint64 { return uint64(s.Sitemaps.Loops) }),
		counter("sitemap_duplicates_total", "robotsext.sitemap.duplicates", "{sitemap}",
			"Sitemaps reached again another way (named by robots.txt and listed by an index), not read again.",
			func(s *robotsext.Stats) uint64 { return uint64(s.Sitemaps.Duplicates) }),
		counter("sitemap_limits_total", "robotsext.sitemap.limits", "{limit}",
			"Sitemap bounds reached: a file's URLs or bytes, the nesting of indexes, the sitemaps or entries of a call.",
			func(s *robotsext.Stats) uint64 { return uint64(s.Sitemaps.Cut) }),

		counter("backend_errors_total", "robotsext.backend.errors", "{error}",
			"Failed Backend calls; each was answered locally.",
			func(s *robotsext.Stats) uint64 { return s.BackendErrors }),
		counter("backend_anomalies_total", "robotsext.backend.anomalies", "{anomaly}",
			"Backend answers that cannot be right (a pace wait too long, a stored pace unreadable or in the future), replaced.",
			func(s *robotsext.Stats) uint64 { return s.BackendAnomalies }),
		{Prom: "backend_fallback", OTel: "robotsext.backend.fallback", Kind: Gauge, Unit: "1",
			Help:  "1 while a Backend call failed recently and the Extension fetches and paces locally, else 0.",
			Value: func(s *robotsext.Stats) int64 { return one(s.Fallback) }},

		upDown("held_requests", "robotsext.hold.requests", "{request}",
			"Requests held now because robots.txt could not be had (WithDeferUnreachable).",
			func(s *robotsext.Stats) int64 { return s.HeldNow }),
		counter("held_total", "robotsext.hold.entered", "{request}",
			"Requests held because robots.txt could not be had (WithDeferUnreachable).",
			func(s *robotsext.Stats) uint64 { return s.Held }),
		{Prom: "held_ended_total", OTel: "robotsext.hold.ended", Kind: Counter, Unit: "{request}",
			Help:  "How held requests ended: released (decided by a robots.txt that came in time) or gave_up (refused when the bound was reached).",
			Label: heldEnded()},
		counter("hold_full_total", "robotsext.hold.full", "{request}",
			"Requests refused at once because MaxHeld requests were already held.",
			func(s *robotsext.Stats) uint64 { return s.HoldFull }),

		counter("usage_refused_total", "robotsext.usage.refused", "{request}",
			"URLs refused before fetching because robots.txt or the origin's tdmrep.json says \"n\" for every purpose declared with WithPurpose (also counted as blocked, reason usage).",
			func(s *robotsext.Stats) uint64 { return s.UsageRefused }),
		counter("usage_withheld_total", "robotsext.usage.withheld", "{page}",
			"Pages whose body was not downloaded because their headers (Content-Usage, Content-Signal, tdm-reservation, X-Robots-Tag noai), with robots.txt and tdmrep.json, say \"n\" for every declared purpose.",
			func(s *robotsext.Stats) uint64 { return s.UsageWithheld }),
		counter("usage_meta_refused_total", "robotsext.usage.meta_refused", "{page}",
			"Pages whose meta tags (tdm-reservation, robots noai), with the rest, say \"n\" for every declared purpose: read, reported, their links refused.",
			func(s *robotsext.Stats) uint64 { return s.UsageMetaRefused }),
		counter("tdmrep_fetches_total", "robotsext.tdmrep.fetches", "{request}",
			"Fetches of an origin's /.well-known/tdmrep.json (WithPurpose only).",
			func(s *robotsext.Stats) uint64 { return s.TDMRepFetches }),
		counter("tdmrep_files_total", "robotsext.tdmrep.files", "{request}",
			"Fetches of tdmrep.json that found a valid file.",
			func(s *robotsext.Stats) uint64 { return s.TDMRepFiles }),
		counter("tdmrep_malformed_total", "robotsext.tdmrep.malformed", "{request}",
			"Fetches of tdmrep.json that found a malformed file, which states nothing.",
			func(s *robotsext.Stats) uint64 { return s.TDMRepMalformed }),

		{Prom: "backoff_pauses_total", OTel: "robotsext.backoff.pauses", Kind: Counter, Unit: "{pause}",
			Help:  "Hosts paused because they asked for less, by cause: 429, 503, 5xx_run (a run of other 5xx), probe_failed or ratelimit (a RateLimit field with no quota left); a pause doubled after a failed probe counts again.",
			Label: pauseCauses()},
		counter("backoff_pauses_capped_total", "robotsext.backoff.pauses.capped", "{pause}",
			"Pauses cut short by WithMaxBackoff.",
			func(s *robotsext.Stats) uint64 { return s.PausesCapped }),
		counter("backoff_probes_total", "robotsext.backoff.probes", "{request}",
			"Requests sent to probe a host when its pause ended.",
			func(s *robotsext.Stats) uint64 { return s.Probes }),
		counter("backoff_waited_total", "robotsext.backoff.waited", "{request}",
			"Requests that waited for a paused host.",
			func(s *robotsext.Stats) uint64 { return s.BackoffWaited }),
		counter("backoff_refused_total", "robotsext.backoff.refused", "{request}",
			"Requests refused because they would have waited past WithBackoffWait (also counted as blocked, reason backoff).",
			func(s *robotsext.Stats) uint64 { return s.BackoffRefused }),
		counter("backoff_requeued_total", "robotsext.backoff.requeued", "{request}",
			"Requests of Async collectors sent again to wait in the OnRequest hook: their host was paused while they waited for a LimitRule slot.",
			func(s *robotsext.Stats) uint64 { return s.BackoffRequeued }),
		counter("pace_turn_requeued_total", "robotsext.pace.turn_requeued", "{request}",
			"Requests of Async collectors sent again to wait in the OnRequest hook: the fleet's Backend granted their start there, and another request took their host while they waited for a LimitRule slot.",
			func(s *robotsext.Stats) uint64 { return s.TurnRequeued }),
		upDown("backoff_waiting_requests", "robotsext.backoff.requests", "{request}",
			"Requests waiting for a paused host now.",
			func(s *robotsext.Stats) int64 { return s.BackoffWaiting }),
		upDown("backoff_paused_hosts", "robotsext.backoff.hosts", "{host}",
			"Hosts paused, probed or recovering now.",
			func(s *robotsext.Stats) int64 { return int64(s.PausedHosts) }),

		counter("directive_pages_total", "robotsext.directive.pages", "{page}",
			"Pages whose X-Robots-Tag headers or robots meta tags said something to the crawler's token.",
			func(s *robotsext.Stats) uint64 { return s.DirectivePages }),
		counter("links_refused_total", "robotsext.links.refused", "{request}",
			"Links refused because their page said nofollow or none, or marked them rel=\"nofollow\" (also counted as blocked, reason nofollow or rel_nofollow; in shadow mode they went out).",
			func(s *robotsext.Stats) uint64 { return s.LinksRefused }),
		{Prom: "responses_total", OTel: "robotsext.responses", Kind: Counter, Unit: "{response}",
			Help:  "What the page requests got back, by status class: none (no response: a network error or timeout), 1xx, 2xx, 3xx (redirects followed or refused included), 4xx or 5xx.",
			Label: statusClasses()},
	}
}
