package robotsext

// This file judges redirect hops: robots.txt decides each hop as it
// decides a request, and a hop to a paced host either waits for its slot
// inside the client's timeout or, when the slot is too far off, is
// re-issued as a request of its own (ErrRedirectDeferred).

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"time"
	"unsafe"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/hops"
	"github.com/robotsext/robotsext/internal/pagecache"
	"github.com/robotsext/robotsext/internal/redact"
	"github.com/robotsext/robotsext/internal/robotstxt"
)

// ErrRedirectDeferred: a redirect hop to a paced host (a Crawl-delay, or
// the default pace of a robots.txt that states none) had to
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
//
// An OnError handler that retries needs no test for it: retrying the
// original request would only fetch it again and defer the hop again, so
// once its hop is deferred the request does not go out again through
// Retry (or Do). r.Request.Retry() on it sends nothing and returns an error
// wrapping ErrRedirectDeferred, whether the handler retries every error
// or a few times, and whether it was registered before or after Apply;
// the hop is fetched once and the crawl ends. Such a retry is dropped
// quietly: it is neither blocked nor reported to OnBlocked, but counted in
// Stats.RetriesDropped and logged at Debug. This works through the
// request's Body, which Colly's Retry rewinds first: it is replaced by a
// reader of the same bytes whose Seek refuses. (When the hop cannot be
// re-issued, which is logged at Warn, the request keeps its Body and a
// retry goes out as usual.) One retry can still go
// out: when the original request left before any host of the crawl was
// known to have a Crawl-delay (a redirect into such a host on first
// contact) and the handler runs before the Extension's OnError hook
// (registered before Apply), that retry is sent once, its own hop is
// deferred, and its retries are dropped; the hop is still fetched once,
// because the Extension remembers the hops it re-issued, by Ctx, method,
// URL and header map (which Retry re-sends), for two minutes.
var ErrRedirectDeferred = errors.New("robotsext: redirect hop deferred to keep the Crawl-delay")

// DeferredRedirectError is the error of a redirect hop re-issued as a
// request of its own; it wraps ErrRedirectDeferred.
type DeferredRedirectError struct {
	URL    string        // the hop
	Method string        // the hop's method, as the client chose it
	Wait   time.Duration // how long the hop had to wait for its slot
	header http.Header   // the hop's headers
	hops   *hopLedger    // the hops re-issued through the handler that deferred this one
}

func (d *DeferredRedirectError) Error() string {
	return fmt.Sprintf("robotsext: redirect to %s re-issued as its own request (it must wait %v for the host's Crawl-delay)", redact.RawURL(d.URL), d.Wait.Round(time.Millisecond))
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

// WrapRedirectHandler returns a redirect handler for c.SetRedirectHandler that
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
// WrapRedirectHandler(WithRedirectHandler's handler); call it yourself only
// when you set a redirect handler after Apply.
func (e *Extension) WrapRedirectHandler(next RedirectHandler) RedirectHandler {
	hops := &hopLedger{}
	return func(req *http.Request, via []*http.Request) error {
		err := e.redirectHop(req, via, next, hops)
		if err == http.ErrUseLastResponse { // compared as net/http does
			return err // the last response reaches the OnResponseHeaders hook, counted there
		}
		// The previous hop's answer was a redirect, which the collector
		// never sees: it is counted here, followed or not (responses.go).
		if !pagecache.FromCache(req.Response) {
			e.responded(via[len(via)-1].URL, Status3xx)
		}
		return countedHop(err)
	}
}

// redirectHop is the redirect handler WrapRedirectHandler returns, but
// for the count of the redirect.
func (e *Extension) redirectHop(req *http.Request, via []*http.Request, next RedirectHandler, hops *hopLedger) error {
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
	err := e.paceHop(req, via, !pagecache.FromCache(req.Response)) // a cached redirect claimed nothing
	if e.closer.Closed() {                                         // Close came while the hop waited for its slot: refused as checkHop refuses after Close
		return e.checkHop(req)
	}
	if d, ok := err.(*DeferredRedirectError); ok {
		e.deferred(d, via[0], hops)
	}
	if err == nil {
		err = e.signHop(req) // webbotauth.go: the hop's own signature, after its pace
	}
	return err
}

// BlockedError is the error of a request refused without being sent (a
// redirect hop, a sitemap ReadSitemaps reads), with the Verdict why; it
// wraps ErrBlocked and the Verdict's Err (a robots.txt that could not be
// read).
type BlockedError struct {
	URL     string  // the refused request's
	Verdict Verdict // why
}

func (b *BlockedError) Error() string {
	if b.Verdict.Rule != "" || b.Verdict.Line > 0 {
		return fmt.Sprintf("robotsext: %s disallowed by robots.txt line %d (%q)", redact.RawURL(b.URL), b.Verdict.Line, b.Verdict.Rule)
	}
	return fmt.Sprintf("robotsext: %s not allowed: %s", redact.RawURL(b.URL), b.Verdict.Reason)
}

// Unwrap returns ErrBlocked and the Verdict's Err (nil when it has none;
// ErrClosed after Close), so that errors.Is finds either.
func (b *BlockedError) Unwrap() []error { return []error{ErrBlocked, b.Verdict.Err} }

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
	case err == ErrClosed:
		v = closedVerdict()
	case errors.Is(err, ErrLocal):
		v = Verdict{Allowed: false, Reason: ReasonLocalError, Err: err}
	case err != nil:
		return err
	default:
		v = e.decide(en, robotstxt.PathOf(req.URL))
		if len(e.cfg.purposes) > 0 && v.Allowed {
			if _, err := e.usageVerdict(ctx, &v, en, req.URL); err != nil && e.closer.Closed() {
				return e.checkHop(req) // Close ended the wait for tdmrep.json: refused as after Close
			} else if err != nil {
				return err
			}
			if v.Reason == ReasonUsage {
				e.stats.usageRefused.Add(1)
			}
		}
	}
	e.stats.decided(v)
	if !v.Allowed {
		hop := &colly.Request{URL: req.URL, Headers: &req.Header, Host: req.Host, Method: req.Method, Ctx: colly.NewContext()}
		e.blocked(ctx, hop, v)
		if !e.cfg.shadow || v.Reason.undecided() {
			e.stats.redirectsBlocked.Add(1)
			return &BlockedError{URL: req.URL.String(), Verdict: v}
		}
	}
	return nil
}

// paceHop keeps the hop's host's Crawl-delay. The previous request's
// response (the redirect) has come, so its host's claim ends when it was
// answered by the host; then the hop waits for its slot and passes the
// gate under the chain's token when the wait fits (see hopInlineMax), and
// is deferred otherwise.
func (e *Extension) paceHop(req *http.Request, via []*http.Request, answered bool) error {
	if po, err := originOf(via[len(via)-1].URL); err == nil && answered {
		e.pacer.Done(po.Host)
	}
	o, err := originOf(req.URL)
	if err != nil {
		return nil
	}
	ctx := req.Context()
	// The redirect answered the previous hop: its fleet-wide claim ends.
	e.pacer.Land(ctx, e.pacer.TokenOf(via[0].URL))
	w := e.pacer.HopWait(o.Host)
	if w <= 0 {
		return e.pacer.Gate(ctx, o.Host, e.pacer.TokenOf(via[0].URL), via[0].URL)
	}
	if dl, ok := ctx.Deadline(); w > hopInlineMax || (ok && time.Until(dl) < w+hopHeadroom) {
		e.stats.redirectsDeferred.Add(1)
		return &DeferredRedirectError{URL: req.URL.String(), Method: req.Method, Wait: w, header: req.Header.Clone()}
	}
	if err := e.pacer.Wait(ctx, o.Host, nil); err != nil {
		return err
	}
	return e.pacer.Gate(ctx, o.Host, e.pacer.TokenOf(via[0].URL), via[0].URL)
}

// deferred prepares the deferral d of the request whose first hop is
// first, before Colly runs any OnError callback: d learns the ledger of
// hops re-issued through this handler, and the request, when the pacer
// knows it, gets a retryTrap at once, so that a handler registered before
// Apply cannot send it again either. The pacer knows the request when a
// host was paced as it went out; otherwise onError arms it.
func (e *Extension) deferred(d *DeferredRedirectError, first *http.Request, hops *hopLedger) {
	d.hops = hops
	if r, ok := e.pacer.TokenOf(first.URL).(*colly.Request); ok && r.URL == first.URL {
		e.armHop(r, d)
	}
}

// onError is the OnError hook of collector c. A request that failed
// without response headers (a network error, a refused or deferred hop,
// a timeout: late, see EndedErr) ends its claim on the host; deferred hops
// are re-issued as requests of their own, once per request and its
// retries (ErrRedirectDeferred). One failed as c's own context ended says
// nothing of its host: no overload, its probe given back, no re-issue.
func (e *Extension) onError(c *colly.Collector, resp *colly.Response, err error) {
	if resp == nil || resp.Request == nil {
		return
	}
	ctx := contextOf(c)
	ended := ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
	local := e.pages != nil && e.pageFailed(resp) // pagecache.go: a redirect it served, Colly refused, is no 3xx
	if class, ok := failedClass(err); ok && resp.StatusCode == 0 && !ended && (!local || class == NoResponse) {
		e.responded(resp.Request.URL, class) // responses.go; ended: no answer was awaited
	}
	if resp.StatusCode == 0 && !errors.Is(err, colly.ErrAbortedAfterHeaders) {
		e.pacer.EndedErr(e.context(), resp.Request, err)
		if ended {
			e.pauses.Withdrawn(resp.Request)
		} else {
			e.pauses.Failed(resp.Request)
			if e.adaptive.On() && resp.Request.URL != nil {
				e.adaptive.Answered(resp.Request, resp.Request.URL.Host, true)
			}
		}
	}
	var d *DeferredRedirectError
	if !errors.As(err, &d) || ctx.Err() != nil {
		return // a request whose context ended is never re-sent
	}
	r := resp.Request
	trap := e.armHop(r, d)
	key := retryKeyOf(r)
	if !d.hops.Claim(key, e.cfg.now()) {
		// A retry of r reached the wire before it could be recognised,
		// was deferred in turn, and its hop is re-issued already.
		e.stats.retriesDropped.Add(1)
		e.cfg.logger.Debug("robotsext: redirect hop already re-issued for a retry of this request; not re-issued again",
			"url", redact.RawURL(trap.url), "method", r.Method, "hop", redact.RawURL(d.URL))
		return
	}
	if rerr := e.reissue(r, d, trap.body); rerr != nil {
		d.hops.Forget(key)
		r.Body = trap.body // nothing was re-issued: a retry of r may go out
		e.cfg.logger.Warn("robotsext: deferred redirect hop could not be re-issued", "url", redact.RawURL(d.URL), "error", redact.In(rerr.Error(), d.URL))
		return
	}
	d.hops.Claimed(key, e.cfg.now()) // a synchronous collector fetched the hop meanwhile
}

// reissue sends the hop d of request r as a request of its own through r's
// collector: same Ctx and depth, the hop's method and headers, r's body
// (given apart, as r.Body is a retryTrap by now) for methods that keep
// one. The hop was already marked visited by Colly's redirect check, so it
// goes out without the revisit check, as Retry does.
func (e *Extension) reissue(r *colly.Request, d *DeferredRedirectError, body io.Reader) error {
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
	hop.Body = body
	if d.Method == http.MethodGet || d.Method == http.MethodHead {
		hop.Body = nil
	} else if s, ok := body.(io.Seeker); ok {
		if _, err := s.Seek(0, io.SeekStart); err != nil {
			return err
		}
	}
	return hop.Retry()
}

// retryTrap is the Body of a request the Extension sent again in another
// form: its redirect hop was deferred (ErrRedirectDeferred), or it was
// sent again to wait for its host's pause (ErrRequeued). It reads the
// request's own body, and its Seek, which Colly's Retry and Do call before
// anything else, drops the retry (counted, logged at Debug) by failing
// with the trap's error. It lives as long as the request it belongs to.
type retryTrap struct {
	e    *Extension
	body io.Reader // the request's own body; nil when it had none
	url  string    // the request's URL
	hop  string    // its deferred hop; "" for a request sent again
	err  error     // what Seek returns
}

// armHop gives r a retryTrap for its deferred hop d, unless it has one,
// and returns r's trap.
func (e *Extension) armHop(r *colly.Request, d *DeferredRedirectError) *retryTrap {
	if t, ok := r.Body.(*retryTrap); ok {
		return t
	}
	u := r.URL.String()
	t := &retryTrap{e: e, body: r.Body, url: u, hop: d.URL,
		err: fmt.Errorf("robotsext: retry of %s dropped: its redirect to %s is re-issued as a request of its own: %w", redact.RawURL(u), redact.RawURL(d.URL), ErrRedirectDeferred)}
	r.Body = t
	return t
}

// Read reads the request's own body.
func (t *retryTrap) Read(p []byte) (int, error) {
	if t.body == nil {
		return 0, io.EOF
	}
	return t.body.Read(p)
}

// Seek refuses: the request is not to be sent again.
func (t *retryTrap) Seek(int64, int) (int64, error) {
	t.e.stats.retriesDropped.Add(1)
	if t.hop != "" {
		t.e.cfg.logger.Debug("robotsext: retry dropped: its redirect hop is re-issued as a request of its own",
			"url", redact.RawURL(t.url), "hop", redact.RawURL(t.hop))
	} else {
		t.e.cfg.logger.Debug("robotsext: retry dropped: the request was sent again to wait for its host's pause",
			"url", redact.RawURL(t.url))
	}
	return 0, t.err
}

// retryKey identifies a request and its retries: Colly's Request.Retry
// re-sends a request with its Ctx, method and URL, and its very header
// map, which no other request shares unless the crawler passes one map to
// several c.Request calls.
type retryKey struct {
	ctx    *colly.Context
	hdr    unsafe.Pointer // the header map; kept alive while remembered
	method string
	url    string
}

// retryKeyOf returns r's retryKey.
func retryKeyOf(r *colly.Request) retryKey {
	k := retryKey{ctx: r.Ctx, method: r.Method, url: r.URL.String()}
	if r.Headers != nil && *r.Headers != nil {
		k.hdr = reflect.ValueOf(*r.Headers).UnsafePointer()
	}
	return k
}

// hopLedger remembers the requests whose deferred hop a redirect handler
// re-issued (internal/hops).
type hopLedger = hops.Ledger[retryKey]
