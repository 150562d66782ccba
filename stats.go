package robotsext

import (
	"sync/atomic"

	"github.com/robotsext/robotsext/internal/lifecycle"
	isitemap "github.com/robotsext/robotsext/internal/sitemap"
	"github.com/robotsext/robotsext/internal/tally"
)

// Stats is a snapshot of an Extension's counters, taken by
// Extension.Stats. Counters only grow, except Origins.
type Stats struct {
	// Fetches counts robots.txt fetches by outcome, revalidations
	// included. Fetches abandoned because the context ended are not
	// counted.
	Fetches map[Outcome]uint64
	// NotModified counts revalidations answered 304 (also counted as
	// OutcomeOK in Fetches).
	NotModified uint64
	// CacheHits counts decisions made from a fresh cached robots.txt;
	// CacheMisses counts those that fetched it or waited for a fetch.
	CacheHits   uint64
	CacheMisses uint64
	// Origins is the number of origins cached now; Evictions counts the
	// origins the cache dropped to stay within WithCacheSize.
	Origins   int
	Evictions uint64
	// CacheBytes estimates the memory the cached policies retain now,
	// bounded by WithCacheMemory.
	CacheBytes int64
	// StaleServed counts decisions made from a last good copy while its
	// origin was unreachable.
	StaleServed uint64
	// Allowed counts the requests and redirect hops let through, by
	// reason. Blocked counts those robots.txt disallowed, by reason; in
	// shadow mode they were let through anyway and are also counted in
	// Shadowed. Ad-hoc Check calls are not counted here.
	Allowed  map[Reason]uint64
	Blocked  map[Reason]uint64
	Shadowed uint64
	// Overrides counts the decisions WithOverride made (also counted in
	// Allowed under ReasonOverride).
	Overrides uint64
	// RedirectsBlocked counts redirect hops refused (also counted in
	// Blocked).
	RedirectsBlocked uint64
	// Cancelled counts requests passed on undecided because the
	// collector's context ended while robots.txt was being fetched; Colly
	// then fails them with the context's error.
	Cancelled uint64
	// CrawlDelaysClamped counts Crawl-delay values above the maximum that
	// were clamped.
	CrawlDelaysClamped uint64
	// LocalErrors counts robots.txt fetches that failed because of this
	// machine (ErrLocal), after their retries; the requests dropped
	// because of them are counted in Blocked under ReasonLocalError.
	LocalErrors uint64
	// RedirectsDeferred counts redirect hops to paced hosts re-issued as
	// requests of their own (ErrRedirectDeferred).
	RedirectsDeferred uint64
	// RetriesDropped counts requests dropped because the Extension had
	// already sent them in another form: an OnError handler's Retry of a
	// request whose redirect hop was deferred (see ErrRedirectDeferred) or
	// that was sent again to wait for its host's pause (ErrRequeued), and
	// the second re-issue of one hop when a retry reached the wire before
	// the Extension could recognise it. They are not counted in Blocked.
	RetriesDropped uint64
	// DirectivePages counts the pages whose X-Robots-Tag headers or robots
	// meta tags said something to the crawler.
	DirectivePages uint64
	// LinksRefused counts the requests refused as links of a nofollow page,
	// rel="nofollow" links, and, with WithPurpose, links of a page whose
	// meta tags refuse every declared purpose (also counted in Blocked
	// under ReasonNofollow, ReasonRelNofollow and ReasonUsage; in shadow
	// mode they went out).
	LinksRefused uint64
	// BackendErrors counts failed Backend calls; each was answered locally.
	BackendErrors uint64
	// BackendAnomalies counts Backend answers that cannot be right: a
	// pace wait longer than the host's delay allows (paced locally
	// instead), or a stored pace the Backend found unreadable or in the
	// future and replaced. Each host's first one is logged at Warn.
	BackendAnomalies uint64
	// Held counts requests held because robots.txt could not be had
	// (WithDeferUnreachable); of them, Released were decided by a
	// robots.txt that came in time and GaveUp were refused when the
	// bound was reached. HoldFull counts requests refused at once because
	// MaxHeld requests were already held.
	Held, Released, GaveUp, HoldFull uint64
	// HeldNow is the number of requests held at this moment.
	HeldNow int64
	// Fallback reports that a Backend call failed recently and the
	// Extension is fetching and pacing locally: every host until its
	// cool-down ends, or, with a backend.Scoper such as a Redis Cluster,
	// the hosts of the failing node until a probe finds it answering.
	Fallback bool
	// Pauses counts the pauses of hosts that asked for less, by cause
	// (backoff.go); a pause doubled after a failed probe counts again.
	// PausesCapped counts those WithMaxBackoff cut short. Probes counts
	// the requests sent, one per host, when a pause ended.
	Pauses       map[PauseCause]uint64
	PausesCapped uint64
	Probes       uint64
	// BackoffWaited counts the requests that waited for a paused host in
	// the OnRequest hook; BackoffRefused those refused because they would
	// have waited longer than WithBackoffWait (also counted in Blocked
	// under ReasonBackoff). BackoffWaiting is the number waiting now, and
	// PausedHosts the number of hosts paused, probed or recovering now.
	// BackoffRequeued counts the requests of Async collectors that
	// reached the wire while their host was paused (they took their
	// LimitRule slot before the pause began) and were sent again to wait
	// in the OnRequest hook; each original reaches OnError with
	// colly.ErrAbortedBeforeRequest, and a Retry of it sends nothing
	// (ErrRequeued). TurnRequeued counts those sent again because another request took the turn
	// the fleet's Backend gave them in the hook while they waited for their slot (docs/scaling.md).
	BackoffWaited, BackoffRefused uint64
	BackoffRequeued, TurnRequeued uint64
	BackoffWaiting                int64
	PausedHosts                   int
	// PaceWaits is how long each request to a paced host (a Crawl-delay,
	// or the default pace) waited for its turn in the OnRequest hook (the
	// short wait at the gate is not included; with a Backend that is not
	// a Starter the wait happens there and is not observed); requests to
	// hosts without a pace are not observed.
	PaceWaits Histogram
	// UsageRefused counts URLs refused before fetching because robots.txt
	// or the origin's tdmrep.json says "n" for every purpose declared
	// with WithPurpose (also counted in Blocked under ReasonUsage).
	// UsageWithheld counts pages whose body was not downloaded because
	// their headers (Content-Usage, Content-Signal, tdm-reservation,
	// X-Robots-Tag noai), with the rest, say "n" for every declared
	// purpose, images of a noimageai page included.
	UsageRefused, UsageWithheld uint64
	// UsageMetaRefused counts pages whose meta tags (tdm-reservation,
	// noai in a robots meta tag), with the rest of what the page and
	// its site state, say "n" for every declared purpose: their body was
	// read, so they reached OnBlocked after it and their links were
	// refused (see WithPurpose).
	UsageMetaRefused uint64
	// TDMRepFetches counts the fetches of an origin's tdmrep.json
	// (WithPurpose only); TDMRepFiles those that found a valid file, and
	// TDMRepMalformed those that found a malformed one, which states
	// nothing.
	TDMRepFetches, TDMRepFiles, TDMRepMalformed uint64
	// FetchDurations is how long each robots.txt fetch of this Extension
	// took, answer or failure; records adopted from a Backend are not
	// observed.
	FetchDurations Histogram
	// Responses counts, by StatusClass, what the page requests that went
	// out got back, as the site sent it: each response the collector saw (a
	// revalidated page as its 304; a fresh page cache hit not at all), each
	// redirect followed or refused on the way (as 3xx, whether the Extension
	// or Colly refused it: a target already visited or outside the domains
	// or URL filters), and each request that got no status line
	// (NoResponse). robots.txt fetches are in Fetches; Origin, one host's.
	Responses map[StatusClass]uint64
	// PageCache counts what WithPageCache's cache did; zero without it.
	PageCache PageCacheStats
	// Sitemaps counts what ReadSitemaps did (docs/sitemaps.md).
	Sitemaps SitemapCounts
}

// maxReasons bounds the Reason values counted: those verdict.go defines.
const maxReasons = Reason(len(reasons))

// counters are the live counters behind Stats. Every field is updated
// atomically and may be read at any time. The robots.txt cache counts its
// own hits, misses and local errors (lifecycle.Counts).
type counters struct {
	fetches             [OutcomeUnauthorized + 1]atomic.Uint64
	notModified         atomic.Uint64
	staleServed         atomic.Uint64
	allowed, blocked    [maxReasons]atomic.Uint64
	shadowed, overrides atomic.Uint64
	redirectsBlocked    atomic.Uint64
	cancelled           atomic.Uint64
	redirectsDeferred   atomic.Uint64
	retriesDropped      atomic.Uint64
	backendErrors       atomic.Uint64
	directivePages      atomic.Uint64
	linksRefused        atomic.Uint64
	held, released      atomic.Uint64
	gaveUp, holdFull    atomic.Uint64
	usageRefused        atomic.Uint64
	usageWithheld       atomic.Uint64
	usageMetaRefused    atomic.Uint64
	tdmFetches          atomic.Uint64
	tdmFiles            atomic.Uint64
	tdmMalformed        atomic.Uint64
	backoffRequeued     atomic.Uint64
	turnRequeued        atomic.Uint64
	sitemaps            isitemap.Totals
	paceWaits           tally.Durations
	fetchDurations      tally.Durations
	responses           tally.Counts // page responses by StatusClass (responses.go)
}

// tdmFetched counts one fetch of a tdmrep.json and what it found.
func (c *counters) tdmFetched(s lifecycle.TDMRepState) {
	c.tdmFetches.Add(1)
	switch s {
	case lifecycle.TDMRepFound:
		c.tdmFiles.Add(1)
	case lifecycle.TDMRepMalformed:
		c.tdmMalformed.Add(1)
	}
}

// decided counts one enforced decision.
func (c *counters) decided(v Verdict) {
	r := v.Reason % maxReasons
	if v.Allowed {
		c.allowed[r].Add(1)
	} else {
		c.blocked[r].Add(1)
	}
	if v.Reason == ReasonOverride {
		c.overrides.Add(1)
	}
}

// fetched counts one completed fetch.
func (c *counters) fetched(r *lifecycle.Robots) {
	if int(r.Outcome) < len(c.fetches) {
		c.fetches[r.Outcome].Add(1)
	}
	if r.NotModified {
		c.notModified.Add(1)
	}
}

func (c *counters) snapshot() Stats {
	s := Stats{
		Fetches:           map[Outcome]uint64{},
		Allowed:           map[Reason]uint64{},
		Blocked:           map[Reason]uint64{},
		NotModified:       c.notModified.Load(),
		StaleServed:       c.staleServed.Load(),
		Shadowed:          c.shadowed.Load(),
		Overrides:         c.overrides.Load(),
		RedirectsBlocked:  c.redirectsBlocked.Load(),
		Cancelled:         c.cancelled.Load(),
		RedirectsDeferred: c.redirectsDeferred.Load(),
		RetriesDropped:    c.retriesDropped.Load(),
		BackendErrors:     c.backendErrors.Load(),
		DirectivePages:    c.directivePages.Load(),
		LinksRefused:      c.linksRefused.Load(),
		Held:              c.held.Load(),
		Released:          c.released.Load(),
		GaveUp:            c.gaveUp.Load(),
		HoldFull:          c.holdFull.Load(),
		UsageRefused:      c.usageRefused.Load(),
		UsageWithheld:     c.usageWithheld.Load(),
		UsageMetaRefused:  c.usageMetaRefused.Load(),
		TDMRepFetches:     c.tdmFetches.Load(),
		TDMRepFiles:       c.tdmFiles.Load(),
		TDMRepMalformed:   c.tdmMalformed.Load(),
		BackoffRequeued:   c.backoffRequeued.Load(),
		TurnRequeued:      c.turnRequeued.Load(),
		PaceWaits:         snapshot(&c.paceWaits),
		FetchDurations:    snapshot(&c.fetchDurations),
		Responses:         c.responses.Map(),
		Sitemaps:          c.sitemaps.Snapshot(),
	}
	for i := range c.fetches {
		if n := c.fetches[i].Load(); n > 0 {
			s.Fetches[Outcome(i)] = n
		}
	}
	for i := range maxReasons {
		if n := c.allowed[i].Load(); n > 0 {
			s.Allowed[Reason(i)] = n
		}
		if n := c.blocked[i].Load(); n > 0 {
			s.Blocked[Reason(i)] = n
		}
	}
	return s
}
