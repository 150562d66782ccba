package robotsext

// This file judges redirect hops: robots.txt decides each hop as it
// decides a request, and a hop to a paced host either waits for its slot
// inside the client's timeout or, when the slot is too far off, is
// re-issued as a request of its own (ErrRedirectDeferred).

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/gocolly/colly/v2"
)

// ErrRedirectDeferred: a redirect hop to a host with a Crawl-delay had to
// wait for its slot longer than the request's timeout safely allows
// (Colly's client times the whole redirect chain, 10 s by default; hops
// waiting more than 5 s are deferred). The Extension
// does not follow it inside the chain; it re-issues the hop as a request
// of its own, with the original request's Ctx and depth, which waits for
// its slot before its own timeout starts. The original request reaches
// OnError with a *DeferredRedirectError wrapping ErrRedirectDeferred (skip
// it with errors.Is), and the hop then reaches OnRequest, OnResponse and
// the other callbacks as a new request, exactly as a followed redirect's
// final response would.
var ErrRedirectDeferred = errors.New("robotsext: redirect hop deferred to keep the Crawl-delay")

// DeferredRedirectError is the error of a redirect hop re-issued as a
// request of its own; it wraps ErrRedirectDeferred.
type DeferredRedirectError struct {
	URL    string        // the hop
	Method string        // the hop's method, as the client chose it
	Wait   time.Duration // how long the hop had to wait for its slot
	header http.Header   // the hop's headers
}

func (d *DeferredRedirectError) Error() string {
	return fmt.Sprintf("robotsext: redirect to %s re-issued as its own request (it must wait %v for the host's Crawl-delay)", d.URL, d.Wait.Round(time.Millisecond))
}

// Unwrap returns ErrRedirectDeferred.
func (d *DeferredRedirectError) Unwrap() error { return ErrRedirectDeferred }

// A redirect hop to a paced host is followed inside the chain only when its
// wait is at most hopInlineMax and, when the request's context has a
// deadline, leaves at least hopHeadroom of it. The client's own timeout is
// not visible to a redirect handler (net/http keeps it on an internal
// copy of the request), so hopInlineMax is half of Colly's default 10 s.
const (
	hopInlineMax = 5 * time.Second
	hopHeadroom  = 2 * time.Second
)

// RedirectHandler returns a redirect handler for c.SetRedirectHandler that
// first refuses hops into URLs their own origin's robots.txt disallows
// (the request then fails with a *BlockedError, reported to OnBlocked),
// then runs next, then keeps the hop's host's Crawl-delay: it waits for
// the hop's slot when that takes at most 5 seconds (half of Colly's
// default request timeout, which covers the whole redirect chain) and
// fits any deadline of the request's context with 2 seconds to spare,
// and otherwise defers the hop (see ErrRedirectDeferred). Colly
// has already applied its URL filters and marked the hop visited before
// any redirect handler runs. A nil next keeps Colly's default: at most 10
// redirects, then the last response is returned, and Authorization is
// dropped when the host changes. Attach installs
// RedirectHandler(WithRedirectHandler's handler); call it yourself only
// when you set a redirect handler after Apply.
func (e *Extension) RedirectHandler(next RedirectHandler) RedirectHandler {
	return func(req *http.Request, via []*http.Request) error {
		if err := e.checkHop(req); err != nil {
			return err
		}
		if next != nil {
			if err := next(req, via); err != nil {
				return err
			}
		} else {
			if len(via) >= 10 {
				return http.ErrUseLastResponse
			}
			if req.URL.Host != via[len(via)-1].URL.Host {
				req.Header.Del("Authorization")
			}
		}
		return e.paceHop(req, via)
	}
}

// BlockedError is the error of a redirect hop robots.txt disallows; it
// wraps ErrBlocked.
type BlockedError struct {
	URL     string  // the refused hop
	Verdict Verdict // why
}

func (b *BlockedError) Error() string {
	if b.Verdict.Rule != "" || b.Verdict.Line > 0 {
		return fmt.Sprintf("robotsext: redirect to %s disallowed by robots.txt line %d (%q)", b.URL, b.Verdict.Line, b.Verdict.Rule)
	}
	return fmt.Sprintf("robotsext: redirect to %s not allowed: %s", b.URL, b.Verdict.Reason)
}

// Unwrap returns ErrBlocked.
func (b *BlockedError) Unwrap() error { return ErrBlocked }

// checkHop decides a redirect hop.
func (e *Extension) checkHop(req *http.Request) error {
	o, err := originOf(req.URL)
	if err != nil {
		return nil // not ours to judge; Colly's client rejects what it cannot fetch
	}
	ctx := req.Context()
	en, err := e.entryFor(ctx, o)
	var v Verdict
	switch {
	case errors.Is(err, ErrLocal):
		v = Verdict{Allowed: false, Reason: ReasonLocalError, Err: err}
	case err != nil:
		return err
	default:
		v = e.decide(en, pathOf(req.URL))
	}
	e.stats.decided(v)
	if !v.Allowed {
		hop := &colly.Request{URL: req.URL, Headers: &req.Header, Host: req.Host, Method: req.Method, Ctx: colly.NewContext()}
		e.blocked(ctx, hop, v)
		if !e.cfg.shadow || v.Reason == ReasonLocalError {
			e.stats.redirectsBlocked.Add(1)
			return &BlockedError{URL: req.URL.String(), Verdict: v}
		}
	}
	return nil
}

// paceHop keeps the hop's host's Crawl-delay. The previous request's
// response (the redirect) has come, so its host's hold is released; then
// the hop waits for its slot and passes the gate under the chain's token
// when the wait fits (see hopInlineMax), and is deferred otherwise.
func (e *Extension) paceHop(req *http.Request, via []*http.Request) error {
	prev := via[len(via)-1]
	if po, err := originOf(prev.URL); err == nil {
		e.pacer.done(po.host)
	}
	o, err := originOf(req.URL)
	if err != nil {
		return nil
	}
	ctx := req.Context()
	w := e.pacer.hopWait(o.host)
	if w <= 0 {
		return e.pacer.gate(ctx, o.host, e.pacer.tokenOf(via[0].URL), via[0].URL)
	}
	if dl, ok := ctx.Deadline(); w > hopInlineMax || (ok && time.Until(dl) < w+hopHeadroom) {
		e.stats.redirectsDeferred.Add(1)
		return &DeferredRedirectError{URL: req.URL.String(), Method: req.Method, Wait: w, header: req.Header.Clone()}
	}
	if err := e.pacer.wait(ctx, o.host); err != nil {
		return err
	}
	return e.pacer.gate(ctx, o.host, e.pacer.tokenOf(via[0].URL), via[0].URL)
}

// onError is the OnError hook. A request that failed without response
// headers (a network error, a refused or deferred redirect hop, a timeout)
// releases the host it held; deferred redirect hops are re-issued as
// requests of their own.
func (e *Extension) onError(resp *colly.Response, err error) {
	if resp == nil || resp.Request == nil {
		return
	}
	if resp.StatusCode == 0 && !errors.Is(err, colly.ErrAbortedAfterHeaders) {
		e.pacer.doneToken(resp.Request)
	}
	var d *DeferredRedirectError
	if !errors.As(err, &d) {
		return
	}
	if rerr := e.reissue(resp.Request, d); rerr != nil {
		e.cfg.logger.Warn("robotsext: deferred redirect hop could not be re-issued", "url", d.URL, "error", rerr.Error())
	}
}

// reissue sends the hop d of request r as a request of its own through r's
// collector: same Ctx and depth, the hop's method and headers, r's body
// for methods that keep one. The hop was already marked visited by Colly's
// redirect check, so it goes out without the revisit check, as Retry does.
func (e *Extension) reissue(r *colly.Request, d *DeferredRedirectError) error {
	u, err := r.New(d.Method, d.URL, nil)
	if err != nil {
		return err
	}
	hop := *r // keeps the collector, Ctx, Depth and ID of r
	hop.URL, hop.Method = u.URL, d.Method
	hdr := d.header
	hdr.Del("Cookie") // the collector's jar sets the hop's own
	hop.Headers = &hdr
	hop.Host = ""
	if d.Method == http.MethodGet || d.Method == http.MethodHead {
		hop.Body = nil
	} else if s, ok := r.Body.(io.Seeker); ok {
		if _, err := s.Seek(0, io.SeekStart); err != nil {
			return err
		}
	}
	return hop.Retry()
}
