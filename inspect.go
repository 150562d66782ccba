package robotsext

// This file lets operators see and steer one origin: Origin reports its
// robots.txt and pace as this Extension holds them, Forget drops them here
// and, through a Backend that is a Forgetter, for the whole fleet; every
// Extension sharing that Backend polls its purge log at a bounded rate.

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/internal/redact"
)

// purgePoll is how often an Extension with a Forgetter Backend reads its
// purge log: another worker's Forget reaches this one's near-cache within
// about this long (while requests flow; the poll rides on them).
const purgePoll = 2 * time.Second

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
	// WithMaxCrawlDelay), 0 when it is not paced; NextSlot is the
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
	en := e.cache.peek(o)
	if en == nil {
		return OriginInfo{}, false
	}
	info := OriginInfo{
		Origin: o.String(), RobotsURL: o.robotsURL(),
		Outcome: en.outcome, Status: en.robots.Status, Err: en.robots.Err,
		Fetched: en.robots.FetchedAt, Expires: en.expires, Failures: en.failures,
		Stale: en.stale, Overridden: en.override,
	}
	if p, ok := e.pacer.Info(o.host); ok {
		info.CrawlDelay, info.NextSlot, info.Waiting = p.Delay, p.Next, p.Waiting
	}
	if e.adaptive.On() {
		info.AdaptiveDelay = e.adaptive.Delay(o.host)
	}
	if p, ok := e.pauses.Info(o.host, e.cfg.now()); ok {
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
	e.cache.remove(o)
	e.refetch.forget(o)
	if f, ok := e.cfg.backend.(backend.Forgetter); ok && f != nil {
		if err := f.Forget(ctx, o.String()); err != nil {
			return fmt.Errorf("robotsext: forget %s in the backend: %w", o.String(), err)
		}
	}
	return nil
}

// purgeWatch is an Extension's position in its Forgetter's purge log.
type purgeWatch struct {
	next   atomic.Int64 // Extension clock (UnixNano) when the log is due
	cursor atomic.Pointer[string]
}

// maybePurge starts a read of the purge log in the background when one is
// due; only the caller that moves the due time on starts it.
func (e *Extension) maybePurge(now time.Time) {
	f, ok := e.cfg.backend.(backend.Forgetter)
	if !ok || f == nil {
		return
	}
	due := e.purges.next.Load()
	if now.UnixNano() < due || !e.purges.next.CompareAndSwap(due, now.Add(purgePoll).UnixNano()) {
		return
	}
	go e.readPurges(f)
}

// readPurges reads the purge log from the cursor and drops the origins
// it names from the cache (all of them when the log was cut).
func (e *Extension) readPurges(f backend.Forgetter) {
	ctx, cancel := context.WithTimeout(e.context(), purgePoll)
	defer cancel()
	cursor := ""
	if c := e.purges.cursor.Load(); c != nil {
		cursor = *c
	}
	origins, next, all, err := f.Purges(ctx, cursor)
	if err != nil {
		if ctx.Err() == nil {
			e.backendFailed(err)
		}
		return
	}
	if cursor != "" {
		switch {
		case all:
			n := e.cache.clear()
			e.refetch.forgetAll()
			e.cfg.logger.Info("robotsext: the backend's purge log was cut; dropped every near-cached robots.txt", "origins", n)
		default:
			for _, s := range origins {
				if o, _, err := parseOrigin(s); err == nil {
					e.cache.remove(o)
					e.refetch.forget(o)
				}
			}
		}
	}
	e.purges.cursor.Store(&next)
}
