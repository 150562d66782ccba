package robotsext

// This file lets operators see and steer one origin: Origin reports its
// robots.txt and pace as this Extension holds them, Forget drops them here
// and, through a Backend that is a Forgetter, for the whole fleet; every
// Extension sharing that Backend polls its purge log at a bounded rate
// (internal/lifecycle's purge.go).

import (
	"context"
	"fmt"
	"time"

	"github.com/robotsext/robotsext/internal/redact"
)

// OriginInfo is what an Extension holds for one origin, for operators
// asking why a host is slow or blocked.
type OriginInfo struct {
	// Origin is the origin, as "https://example.com" or
	// "http://example.com:8080".
	Origin string
	// RobotsURL is its robots.txt URL.
	RobotsURL string
	// Outcome is what decides now: OutcomeOK while a stale copy is
	// served. Status is the latest answer's HTTP status (0 without one)
	// and Err its error.
	Outcome Outcome
	Status  int
	Err     error
	// Fetched is when the latest answer was requested; Expires when
	// robots.txt is fetched again.
	Fetched time.Time
	Expires time.Time
	// Failures counts unreachable answers in a row.
	Failures int
	// Stale reports that a last good copy decides while the origin is
	// unreachable.
	Stale bool
	// Overridden reports that WithOverride covers the origin.
	Overridden bool
	// CrawlDelay is the delay kept between requests to the host (after
	// WithMaxCrawlDelay): its Crawl-delay or Request-rate interval, or
	// WithDefaultDelay's when robots.txt states none; 0 when it is not
	// paced (a stated "Crawl-delay: 0", or WithDefaultDelay(0)). NextSlot is the
	// earliest a request of this process may start; Waiting counts the
	// requests waiting for their turn in the OnRequest hook now.
	CrawlDelay time.Duration
	NextSlot   time.Time
	Waiting    int
	// Pause is the host's back-off phase ("" when it is in good health;
	// "paused", "probing" or "recovering" after it answered 429, 503 or a
	// run of 5xx), PauseCause why, and PauseEnds the earliest a request
	// may start as far as the back-off is concerned: the pause's end, the
	// latest the probe may take, or the next start of the recovery.
	// BackoffWaiting counts the requests waiting for it now.
	Pause          string
	PauseCause     PauseCause
	PauseEnds      time.Time
	BackoffWaiting int
	// AdaptiveDelay is the host's delay under WithAdaptivePace (0 when
	// the option is off or no answer came yet).
	AdaptiveDelay time.Duration
	// DefaultPace reports that CrawlDelay is WithDefaultDelay's (1 s by
	// default): robots.txt states no delay for the crawler.
	DefaultPace bool
	// Responses counts what this Extension's page requests to the host
	// (both schemes) got back, by StatusClass, as Stats.Responses counts
	// them for the whole crawl; nil before the first. The counts are kept
	// while an origin of the host is cached.
	Responses map[StatusClass]uint64
}

// Origin reports what the Extension holds for rawURL's origin, without
// fetching anything: ok is false when the origin is not cached here (never
// asked for, evicted, forgotten) or rawURL has no origin.
func (e *Extension) Origin(rawURL string) (OriginInfo, bool) {
	u, err := e.parseAsColly(rawURL)
	if err != nil {
		return OriginInfo{}, false
	}
	o, err := originOf(u)
	if err != nil {
		return OriginInfo{}, false
	}
	en := e.cache.Peek(o)
	if en == nil {
		return OriginInfo{}, false
	}
	info := OriginInfo{
		Origin: o.String(), RobotsURL: o.RobotsURL(),
		Outcome: en.Outcome, Status: en.Robots.Status, Err: en.Robots.Err,
		Fetched: en.Robots.FetchedAt, Expires: en.Expires, Failures: en.Failures,
		Stale: en.Stale, Overridden: en.Override,
	}
	if p, ok := e.pacer.Info(o.Host); ok {
		info.CrawlDelay, info.NextSlot, info.Waiting, info.DefaultPace = p.Delay, p.Next, p.Waiting, p.Default
	}
	info.Responses = e.tallies.Counts(o.Host)
	if e.adaptive.On() {
		info.AdaptiveDelay = e.adaptive.Delay(o.Host)
	}
	if p, ok := e.pauses.Info(o.Host, e.cfg.now()); ok {
		info.Pause, info.PauseCause, info.PauseEnds, info.BackoffWaiting = p.Phase.String(), PauseCause(p.Cause), p.Until, p.Waiting
	}
	return info, true
}

// Forget drops rawURL's origin from this Extension's cache, so that its
// next request fetches robots.txt again, and, when the Backend is a
// Forgetter, deletes the shared record and tells every other worker to
// drop its near-cached copy (within about two seconds while it crawls).
// Use it when a site owner says their robots.txt changed. The host's pace
// is kept: the next fetch sets it anew, and it is itself paced, waiting
// for the host's delay as a page would. Calls that come while the
// origin's robots.txt request is on the wire make one fetch after it, not
// one each. The error wraps ErrInvalidURL or
// ErrNotHTTP for a URL without an origin, or is the Backend's.
func (e *Extension) Forget(ctx context.Context, rawURL string) error {
	u, err := e.parseAsColly(rawURL)
	if err != nil {
		return err
	}
	o, err := originOf(u)
	if err != nil {
		return fmt.Errorf("%w: %s", err, redact.RawURL(rawURL))
	}
	if e.tdm != nil {
		e.tdm.Forget(o)
	}
	return e.cache.Forget(ctx, o)
}
