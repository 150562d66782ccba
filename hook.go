package robotsext

// This file is what runs for every request of an attached collector: the
// OnRequest hook (decide, abort, pace), the OnRequestHeaders gate (the
// pace at the wire) and the reporting of blocked requests.

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/lifecycle"
	"github.com/robotsext/robotsext/internal/pacing"
	"github.com/robotsext/robotsext/internal/pagecache"
	"github.com/robotsext/robotsext/internal/ratelimit"
	"github.com/robotsext/robotsext/internal/redact"
	"github.com/robotsext/robotsext/internal/robotstxt"
)

// onRequest is the OnRequest hook. Once the origin is cached it reads the
// clock once (for the cache and the pace, again only after a step that
// may have waited), takes at most one mutex (the LRU's, none when the
// origin is the one last looked up) before the pace, allocates nothing,
// and paces without a lock unless some host is paced (every host is, by
// its Crawl-delay or the default pace, but those stating "Crawl-delay:
// 0"): then the pacer's lock at most once, none when the request before
// was to the same host (internal/pacing/book.go).
func (e *Extension) onRequest(c *colly.Collector, r *colly.Request) {
	if r.IsAbort() || r.URL == nil {
		return
	}
	if !c.IgnoreRobotsTxt && !e.builtinWarned.Load() {
		e.warnBuiltin()
	}
	if e.marks.Load() != 0 && e.refuseLink(c, r) { // nofollow.go; one atomic load until a page said nofollow
		return
	}
	o, err := originOf(r.URL)
	if err != nil {
		e.stats.decided(Verdict{Allowed: true, Reason: ReasonNotApplicable})
		return
	}
	ctx := contextOf(c)
	en, now, hit, err := e.entryAt(ctx, o) // now: the one reading of the clock, for the cache and the pace
	if err != nil {
		if err == ErrClosed {
			e.stopped(ctx, r)
			return
		}
		if !errors.Is(err, ErrLocal) { // the collector's context ended; Colly fails the request
			e.stats.cancelled.Add(1)
			return
		}
		// This machine could not fetch robots.txt: the request cannot be
		// checked, so it does not go out.
		v := Verdict{Allowed: false, Reason: ReasonLocalError, Err: err, RetryAt: e.cfg.now()}
		if e.cfg.deferMax > 0 {
			e.onRequestHeld(c, r, o, v)
			return
		}
		e.stats.decided(v)
		r.Abort()
		e.blocked(ctx, r, v)
		return
	}
	e.cache.Pin(en) // in use while r waits here, then for lifecycle.InUseAfter: evicted last
	defer e.cache.Unpin(en)
	var v Verdict
	fetched, err := e.decideRequest(ctx, &v, en, r.URL)
	if err != nil {
		if !e.stopped(ctx, r) {
			e.stats.cancelled.Add(1) // the context ended while tdmrep.json was fetched; Colly fails the request
		}
		return
	}
	// waited: a step since now may have waited (a fetch of robots.txt or
	// tdmrep.json, a pause, the adaptive pace, the user's OnBlocked), and
	// the pace reads the clock again.
	waited := !hit || fetched
	if e.cfg.deferMax > 0 && deferrable(&v) {
		e.onRequestHeld(c, r, o, v)
		return
	}
	// pagecache.go: an allowed page served from a cache sends nothing, so
	// it waits for neither a paused host nor the pace.
	local := v.Allowed && (e.pages != nil || c.CacheDir != "") && e.servedLocally(c, r)
	if v.Allowed && !local && e.pauses.Active() { // backoff.go
		waited = true
		if !e.admitted(ctx, r, o.Host) || e.stopped(ctx, r) {
			return
		}
	}
	e.stats.decided(v)
	if !v.Allowed {
		if !e.cfg.shadow {
			r.Abort()
		}
		e.blocked(ctx, r, v)
		if !e.cfg.shadow || e.stopped(ctx, r) { // OnBlocked may have waited
			return
		}
		waited = true
	}
	if local {
		return
	}
	if e.adaptive.On() {
		waited = true
		if e.adaptive.Wait(ctx, o.Host) != nil {
			e.stopped(ctx, r) // else the context ended and Colly fails the request
			return
		}
	}
	if e.pacer.Paced() {
		if waited {
			now = e.cfg.instant()
		}
		e.paceWait(ctx, r, o.Host, now)
		e.stopped(ctx, r)
	}
	e.pacer.Left() // r leaves for Colly's slot (internal/pacing/turnhold.go)
}

// paceWait waits for r's start at host, booked as of the instant now
// (pacing.Pacer.WaitAt): when the fleet's Backend holds r back for its
// host's back-off, r waits while the host is paused (or is refused, as in
// Admit) and asks again. On another error the context ended, and Colly
// fails the request.
func (e *Extension) paceWait(ctx context.Context, r *colly.Request, host string, now time.Duration) {
	err := e.pacer.WaitAt(ctx, host, r, now)
	for errors.Is(err, pacing.ErrPaused) {
		if !e.admitted(ctx, r, host) || ctx.Err() != nil || e.closer.Closed() {
			return
		}
		err = e.pacer.Wait(ctx, host, r) // after a wait: the clock read anew
	}
}

// warnBuiltin says, once per Extension, that Colly's own robots.txt check
// was turned back on after Apply turned it off.
func (e *Extension) warnBuiltin() {
	if e.builtinWarned.CompareAndSwap(false, true) {
		e.cfg.logger.Warn("robotsext: the collector's own robots.txt check is on (IgnoreRobotsTxt was set to false after Apply): " +
			"Colly then fetches robots.txt a second time, matches the whole User-Agent instead of its product token, " +
			"and refuses URLs before OnBlocked can report them; leave c.IgnoreRobotsTxt = true, as Apply set it, and robotsext decides alone")
	}
}

// onRequestHeld is the rest of onRequest for a request refused only
// because robots.txt could not be had, under WithDeferUnreachable: it is
// held (hold.go), then decided, reported and paced as any other.
func (e *Extension) onRequestHeld(c *colly.Collector, r *colly.Request, o lifecycle.Origin, v Verdict) {
	ctx := contextOf(c)
	v, ok := e.hold(ctx, o, func(en *lifecycle.Entry) (v Verdict) { _, _ = e.decideRequest(ctx, &v, en, r.URL); return v }, v)
	if !ok {
		e.stats.cancelled.Add(1)
		return
	}
	if v.Allowed && e.pauses.Active() && (!e.admitted(ctx, r, o.Host) || e.stopped(ctx, r)) {
		return
	}
	e.stats.decided(v)
	if !v.Allowed {
		if !e.cfg.shadow || v.Reason.undecided() {
			r.Abort()
		}
		e.blocked(ctx, r, v)
		if !e.cfg.shadow || v.Reason.undecided() {
			return
		}
	}
	if (e.pages != nil || c.CacheDir != "") && e.servedLocally(c, r) {
		return
	}
	if e.adaptive.On() && e.adaptive.Wait(ctx, o.Host) != nil {
		e.stopped(ctx, r)
		return
	}
	if e.pacer.Paced() {
		e.paceWait(ctx, r, o.Host, e.cfg.instant())
		e.stopped(ctx, r)
	}
	e.pacer.Left() // r leaves for Colly's slot (internal/pacing/turnhold.go)
}

// onRequestHeaders is the OnRequestHeaders hook: Colly runs it after its
// own LimitRules, just before the request is sent. The adaptive pace
// notes the start; a request whose host was paused while it waited for
// its LimitRule slot goes back to the OnRequest hook's wait (backoff.go);
// the pacer's gate keeps the host's delay at the wire.
func (e *Extension) onRequestHeaders(c *colly.Collector, r *colly.Request) {
	if r.IsAbort() || r.URL == nil {
		return
	}
	if e.local.Any() && e.localAtWire(c, r) { // pagecache.go: served from the page cache, not sent
		return
	}
	e.pacer.Arrived() // as counted by Left
	if contextOf(c).Err() != nil || e.stopped(contextOf(c), r) {
		// The crawl is being cancelled: r neither waits nor probes, and
		// the client fails it at once with the context's error. Or the
		// Extension is closed, and r is refused.
		return
	}
	e.judgeSent(sentUserAgent(r.Headers)) // identitycheck.go: the User-Agent this request carries
	if e.adaptive.On() {
		e.adaptive.Sent(r)
	}
	if e.pauses.Active() && !e.backoffWire(c, r) {
		return
	}
	if !e.pacer.Paced() {
		return
	}
	o, err := originOf(r.URL)
	if err != nil {
		return
	}
	ctx := contextOf(c)
	for {
		// The fleet's Backend may hold r back at the wire for its host's back-off, or r gives back a
		// turn taken while it waited for its slot: r goes back to wait as backoffWire sends it.
		for err := e.pacer.Gate(ctx, o.Host, r, r.URL); errors.Is(err, pacing.ErrPaused) || errors.Is(err, pacing.ErrTurnTaken); err = e.pacer.Gate(ctx, o.Host, r, r.URL) {
			if errors.Is(err, pacing.ErrTurnTaken) && e.sentAgain(c, r, e.stats.turnRequeued.Add) || errors.Is(err, pacing.ErrPaused) && !e.heldAtWire(c, r, o.Host) || e.stopped(ctx, r) {
				return
			}
		}
		if e.stopped(ctx, r) { // Close woke the gate's wait
			e.pacer.Ended(ctx, r)
			return
		}
		// r waited at the gate for the request before it, whose answer
		// may have paused the host: then r gives its claim back and is
		// held as above, and takes the gate again if it waited here.
		if !e.pauses.Active() || ctx.Err() != nil || e.pauses.Wire(r, o.Host) {
			return
		}
		e.pacer.Ended(ctx, r)
		if !e.heldAtWire(c, r, o.Host) {
			return
		}
	}
}

// onResponseHeaders is the OnResponseHeaders hook: the response's host has
// answered, so the answer is counted by its status class, the back-off
// reads it (its status, Retry-After and RateLimit fields), the adaptive
// pace its latency, and its claim (and its fleet-wide claim, with a
// Claimer) ends: the delay counts from now.
func (e *Extension) onResponseHeaders(c *colly.Collector, resp *colly.Response) {
	if len(e.cfg.purposes) > 0 {
		defer e.usageHeaders(c, resp) // after the host is unclaimed
	}
	r := resp.Request
	if r == nil || (e.local.Any() || e.pages != nil) && e.localAnswer(c, resp) { // pagecache.go: no request left the machine
		return
	}
	if r.URL != nil {
		e.responded(r.URL, classOf(pagecache.SentStatus(resp.StatusCode, resp.Headers))) // a revalidation: the 304 sent
		overload := pacing.Overload(resp.StatusCode)
		var quota pacing.Quota
		if resp.Headers != nil {
			if l, ok := ratelimit.Read(*resp.Headers, e.cfg.now); ok {
				quota = pacing.Quota{Spent: l.Spent, Reset: l.Reset}
			}
		}
		if overload || quota.Spent || e.pauses.Active() {
			var ra string
			if resp.Headers != nil {
				ra = resp.Headers.Get("Retry-After")
			}
			e.pauses.AnsweredQuota(r, r.URL, resp.StatusCode, ra, quota)
		}
		if e.adaptive.On() {
			e.adaptive.Answered(r, r.URL.Host, overload)
		}
		if e.pacer.Paced() {
			if o, err := originOf(r.URL); err == nil {
				e.pacer.Done(o.Host)
			}
		}
	}
	e.pacer.Ended(e.context(), r)
}

// decideRequest decides the request URL u from en into v: its robots.txt
// rules, then, with WithPurpose, the usage preferences of a URL they
// allow (robots.txt's and the origin's tdmrep.json, fetched when not
// cached). A path without a query is most often a string of u already;
// any other is built in a stack buffer, so a cached decision allocates
// nothing. v is filled in place: a Verdict is large enough that copying
// it back through the hook shows in its cost. fetched reports that
// tdmrep.json was not cached fresh, so that the call may have waited.
// The error is ctx's, when it ended while tdmrep.json was fetched.
func (e *Extension) decideRequest(ctx context.Context, v *Verdict, en *lifecycle.Entry, u *url.URL) (fetched bool, err error) {
	p, plain := "", false
	if u.Opaque == "" && u.RawQuery == "" && !u.ForceQuery {
		p, plain = robotstxt.PlainPath(u)
	}
	if plain {
		e.decideInto(v, en, p)
	} else {
		e.decideBuilt(v, en, u)
	}
	if len(e.cfg.purposes) > 0 && v.Allowed {
		if fetched, err = e.usageVerdict(ctx, v, en, u); err != nil {
			return fetched, err
		}
		if v.Reason == ReasonUsage {
			e.stats.usageRefused.Add(1)
		}
	}
	return fetched, nil
}

// decideBuilt is decideRequest for a path that must be built.
func (e *Extension) decideBuilt(v *Verdict, en *lifecycle.Entry, u *url.URL) {
	var buf [robotstxt.PathBufSize]byte
	e.decideInto(v, en, bytesString(robotstxt.AppendPath(buf[:0], u)))
}

// blocked reports a disallowed request.
func (e *Extension) blocked(ctx context.Context, r *colly.Request, v Verdict) {
	level := slog.LevelDebug
	switch {
	case v.Reason == ReasonClosed: // Close said it once, at Info
	case e.cfg.shadow && v.Reason != ReasonLocalError:
		e.stats.shadowed.Add(1)
		level = slog.LevelInfo
	case v.Reason == ReasonLocalError:
		level = slog.LevelWarn
	}
	if l := e.cfg.logger; l.Enabled(ctx, level) {
		attrs := []any{"url", redact.URL(r.URL), "method", r.Method,
			"reason", v.Reason.String(), "line", v.Line, "rule", v.Rule, "shadow", e.cfg.shadow}
		if v.Err != nil {
			attrs = append(attrs, "error", v.Err.Error())
		}
		if v.Page != "" {
			attrs = append(attrs, "page", v.Page)
		}
		l.Log(ctx, level, "robotsext: blocked", attrs...)
	}
	if fns := e.onBlocked.Load(); fns != nil {
		for _, fn := range *fns {
			fn(r, v)
		}
	}
}

// decide applies the entry in force to one request path.
func (e *Extension) decide(en *lifecycle.Entry, path string) (v Verdict) {
	e.decideInto(&v, en, path)
	return v
}

// decideInto is decide filling the zero Verdict v in place: a Verdict
// returned through each level would be copied through memory each time,
// which costs the hook more than the rules' search.
func (e *Extension) decideInto(v *Verdict, en *lifecycle.Entry, path string) {
	switch {
	case en.Override && path == "/robots.txt":
		*v = Verdict{Allowed: true, Reason: ReasonRobotsTxt}
		return
	case en.Override:
		*v = Verdict{Allowed: true, Reason: ReasonOverride}
		return
	}
	if en.Stale {
		e.stats.staleServed.Add(1)
	}
	token := e.token()
	if en.Outcome == OutcomeOK && token == en.SelToken && path != "/robots.txt" {
		// The groups were resolved at install: the engine decides, and
		// the Verdict is filled in place from its Match.
		setVerdict(v, en.Policy, en.Policy.Decide(en.Sel, path))
		return
	}
	*v = decide(en.Outcome, en.Policy, token, path, e.cfg.failMode, en.Robots.Err)
	if v.Reason == ReasonUnreachable && !v.Allowed {
		v.RetryAt = en.Expires
	}
}
