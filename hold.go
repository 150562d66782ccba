package robotsext

// This file holds requests refused only because their origin's
// robots.txt is unreachable (WithDeferUnreachable): instead of being
// aborted, and so lost to the crawl (Colly marks a URL visited before the
// OnRequest hook runs), such a request waits in the hook for the origin's
// next robots.txt attempts, and goes out or is refused as the first
// answer that comes decides.

import (
	"context"
	"errors"
	"time"

	"github.com/robotsext/robotsext/internal/lifecycle"
)

// MaxHeld bounds the requests held at once by one Extension under
// WithDeferUnreachable. A request refused while that many are held is
// refused at once, with the usual Verdict, as without the option. Each
// held request costs the goroutine Colly already runs it on (an Async
// collector) and one timer.
const MaxHeld = 10_000

// holdRetryLocal is the first wait before a held request asks again after
// a local error (ErrLocal); it doubles up to holdRetryLocalMax.
const (
	holdRetryLocal    = time.Second
	holdRetryLocalMax = 30 * time.Second
)

// WithDeferUnreachable holds, for at most max, each request that would be
// refused only because its origin's robots.txt is unreachable (5xx, 429,
// a network or local error, a timeout), instead of aborting it. The
// request waits in the OnRequest hook, before Colly's LimitRules take a
// parallelism slot, through as many robots.txt attempts as fall within
// max, each after the origin's backoff or Retry-After (Verdict.RetryAt):
// as soon as one succeeds it goes out, or is refused, as that robots.txt
// decides. When no attempt has succeeded by max (or the next attempt
// comes later than that), it is refused with the usual ReasonUnreachable
// Verdict, reported to OnBlocked once. Collector.Wait waits for held
// requests; the collector's context ending releases them (Colly then
// fails them with the context's error). At most MaxHeld requests are held
// at once. A sync collector's Visit returns only once its request is
// decided. Held, released and given-up requests are counted in Stats.
//
// It is off by default (max ≤ 0): an unreachable robots.txt refuses its
// URLs at once, as RFC 9309 §2.3.1.4 requires of fail-closed crawlers.
// With FailOpen nothing is refused for this reason, so nothing is held.
func WithDeferUnreachable(max time.Duration) Option {
	return func(c *config) { c.deferMax = max }
}

// deferrable reports whether v refuses a request only because robots.txt
// could not be had.
func deferrable(v *Verdict) bool {
	return !v.Allowed && (v.Reason == ReasonUnreachable || v.Reason == ReasonLocalError)
}

// hold waits for o's robots.txt to be had, within WithDeferUnreachable's
// bound, and returns the Verdict deciding path then: the first one not
// refused because robots.txt could not be had, or v refreshed when the
// bound is reached. ok is false when ctx ended first.
func (e *Extension) hold(ctx context.Context, o lifecycle.Origin, decidePath func(*lifecycle.Entry) Verdict, v Verdict) (_ Verdict, ok bool) {
	limit := int64(MaxHeld)
	if e.maxHeld > 0 {
		limit = e.maxHeld
	}
	if e.held.Add(1) > limit {
		e.held.Add(-1)
		e.stats.holdFull.Add(1)
		return v, true
	}
	defer e.held.Add(-1)
	e.stats.held.Add(1)
	deadline := e.cfg.now().Add(e.cfg.deferMax)
	local := holdRetryLocal
	for {
		now := e.cfg.now()
		next := v.RetryAt
		if v.Reason == ReasonLocalError || next.IsZero() {
			next = now.Add(local)
			local = min(local*2, holdRetryLocalMax)
		}
		if next.After(deadline) {
			e.stats.gaveUp.Add(1)
			return v, true
		}
		if d := next.Sub(now); d > 0 {
			if err := e.closer.Sleep(e.cfg.sleep)(ctx, d); err != nil {
				if ctx.Err() == nil { // Close woke it
					e.stats.gaveUp.Add(1)
					return closedVerdict(), true
				}
				return v, false
			}
		}
		en, err := e.entryFor(ctx, o)
		switch {
		case errors.Is(err, ErrClosed):
			e.stats.gaveUp.Add(1)
			return closedVerdict(), true
		case err == nil:
			v = decidePath(en)
		case ctx.Err() != nil:
			return v, false
		default: // ErrLocal again: refused now
			v = Verdict{Allowed: false, Reason: ReasonLocalError, Err: err, RetryAt: e.cfg.now()}
		}
		if !deferrable(&v) {
			e.stats.released.Add(1)
			return v, true
		}
	}
}
