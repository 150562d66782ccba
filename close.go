package robotsext

// This file ends an Extension: Close, the refusal of a request after it,
// and the waits Close wakes.

import (
	"context"
	"errors"

	"github.com/gocolly/colly/v2"
)

// ErrClosed is the error of a request, a redirect hop, a Check or a
// Sitemaps after Extension.Close: the request is refused (OnBlocked sees
// ReasonClosed, Verdict.Err is ErrClosed) and nothing is fetched.
var ErrClosed = errors.New("robotsext: the Extension is closed")

// Close stops what the Extension started; robots.txt's connections are
// the collector's transport's (or WithHTTPClient's), left to their owner.
// Every wait the Extension imposes
// ends at once: a request waiting for robots.txt or tdmrep.json (whose
// fetch Close ends), for its host's pace or back-off, or held by
// WithDeferUnreachable, is woken and refused with ErrClosed (ReasonClosed,
// logged at Debug). Requests already sent end as their contexts say.
// Background reads of a Backend started by requests (a fleet's pauses,
// the purge log, a failing node's probe) end within their own bounds of a
// few seconds. After Close every request of an attached collector is
// refused at once with ErrClosed, never held nor sent; Check and Sitemaps
// return ErrClosed. Stats, Origin and the other reads keep working. The
// page cache keeps no file open between requests. Close does not close a
// Backend or a PageStore, which may be shared: close those yourself after
// the Extensions using them. Calling Close again, or on a nil or zero
// Extension, does nothing and returns nil.
//
// Close ends the Extension of every collector attached to it: a collector
// reused for the next job needs a new collector or ext.Attach of the
// next Extension's, never a second Apply (see Apply).
//
// Call it when the Extension's crawl is over and the process goes on: a
// service that builds an Extension per job. A program that crawls once and
// exits need not: its end closes everything.
func (e *Extension) Close() error {
	if e == nil || !e.closer.Close() { // every wait wakes, and its request is refused
		return nil
	}
	e.cache.Fetcher().Close()
	e.cfg.logger.Info("robotsext: closed: requests still reaching the Extension are refused with ErrClosed")
	return nil
}

// closedVerdict is the Verdict of a request refused after Close.
func closedVerdict() Verdict { return Verdict{Allowed: false, Reason: ReasonClosed, Err: ErrClosed} }

// stopped reports whether e is closed, after a wait, and then refuses r
// (unless a callback aborted it already).
func (e *Extension) stopped(ctx context.Context, r *colly.Request) bool {
	if !e.closer.Closed() {
		return false
	}
	if !r.IsAbort() {
		e.stats.decided(closedVerdict())
		r.Abort()
		e.blocked(ctx, r, closedVerdict())
	}
	return true
}

// hooks reports whether e (nil: none) hooks c's requests.
func (e *Extension) hooks(c *colly.Collector) bool {
	if e == nil {
		return false
	}
	e.attachMu.Lock()
	defer e.attachMu.Unlock()
	return e.attached[c]
}

// undecided reports whether r refuses a request that was never decided,
// which WithShadow lets through no more than any other mode.
func (r Reason) undecided() bool { return r == ReasonLocalError || r == ReasonClosed }
