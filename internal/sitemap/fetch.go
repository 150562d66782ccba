package sitemap

// This file fetches a sitemap as the Extension's hooks send a page:
// decided by robots.txt, admitted by its host's back-off, paced (its
// slot, then the gate at the wire, done at the response headers) unless
// the page cache serves a fresh copy, with the crawl's headers, through
// the crawl's client (signed, cached). It uses the pacer's public
// methods in this one place.

import (
	"context"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"time"

	"github.com/robotsext/robotsext/internal/lifecycle"
	"github.com/robotsext/robotsext/internal/pacing"
	"github.com/robotsext/robotsext/internal/pagecache"
	"github.com/robotsext/robotsext/internal/tally"
)

// Fetcher fetches sitemaps politely; its Fetch is a Walker's.
type Fetcher struct {
	// Check decides u by robots.txt: an error (a refusal, reported by
	// the caller as a page's) and the sitemap is not fetched.
	Check func(ctx context.Context, u *url.URL) error
	// BackedOff is told of a sitemap its host's back-off refuses (it may
	// be asked again at retryAt): its error is the refusal.
	BackedOff func(ctx context.Context, u *url.URL, retryAt time.Time) error
	// Header returns the request's header: the crawl's User-Agent and
	// headers.
	Header func() http.Header
	// Base is the client whose Transport (http.DefaultTransport when
	// nil) Wrap wraps (signing, the page cache); Redirect judges each
	// redirect hop.
	Base     *http.Client
	Wrap     func(http.RoundTripper) http.RoundTripper
	Redirect func(req *http.Request, via []*http.Request) error
	Timeout  time.Duration // for the headers and each read of the body
	FileTime time.Duration // for all of them, per file (Limits.FileTime; set by Stream)
	Pacer    *pacing.Pacer
	Backoff  *pacing.Backoff
	Pages    *pagecache.Cache // nil without a page cache
	// Answered is told of each response's status class, by its final URL.
	Answered func(u *url.URL, class tally.Class)
}

// Fetch fetches the sitemap at u.
func (f *Fetcher) Fetch(ctx context.Context, u *url.URL) (io.ReadCloser, error) {
	if err := f.Check(ctx, u); err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrNotFetched, u.Redacted(), err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header = f.Header()
	host := hostOf(req.URL)
	local := f.Pages.ClaimFresh(ctx, req) // a fresh copy is served without a request: no pace
	if !local {
		if at, refused := f.Backoff.Admit(ctx, host, req); refused {
			return nil, fmt.Errorf("%w: %s: its host is backing off: %w", ErrNotFetched, u.Redacted(), f.BackedOff(ctx, u, at))
		}
		if err := f.Pacer.Wait(ctx, host, req); err != nil {
			return nil, err
		}
		if err := f.Pacer.Gate(ctx, host, req, req.URL); err != nil {
			return nil, err
		}
	}
	next := http.DefaultTransport
	if f.Base != nil && f.Base.Transport != nil {
		next = f.Base.Transport
	}
	client := &http.Client{Transport: f.Wrap(next), CheckRedirect: f.Redirect}
	return Get(client, req, f.Timeout, f.FileTime, func(resp *http.Response) {
		if local {
			return // nothing was sent: no claim to end, no answer of the host's
		}
		if resp != nil {
			host = hostOf(resp.Request.URL) // the last hop's
		}
		f.Pacer.Done(host)
		f.Pacer.Ended(ctx, req)
		if resp == nil {
			f.Backoff.Failed(req)
			return
		}
		f.Answered(resp.Request.URL, tally.Of(resp.StatusCode))
		f.Backoff.Answered(req, resp.Request.URL, resp.StatusCode, resp.Header.Get("Retry-After"))
	})
}

// Unchanged reports whether the page cache's copy of e's page is as
// recent as its LastMod (pagecache.Cache.Unchanged).
func (f *Fetcher) Unchanged(ctx context.Context, e Entry) bool {
	u, err := url.Parse(e.Loc)
	return err == nil && f.Pages.Unchanged(ctx, u, f.Header(), e.LastMod)
}

// Stream is a walk from the sitemaps of rawURL (see Roots), read with
// parse, whose origin's robots.txt names the sitemaps named returns;
// both are called when the sequence is ranged over. An error of parse,
// or of named for a site, is yielded alone (named's wrapping
// ErrNotFetched). counted is told of the walk's counts.
func (f *Fetcher) Stream(ctx context.Context, rawURL string, parse func(string) (*url.URL, error), named func(string) ([]string, error),
	r Rules, counted func(Counts)) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		u, err := parse(rawURL)
		if err != nil {
			yield(Entry{}, err)
			return
		}
		maps, err := named(rawURL)
		if err != nil && isSite(u) {
			yield(Entry{}, fmt.Errorf("%w: the sitemaps of %s: %w", ErrNotFetched, u.Redacted(), err))
			return
		} // a sitemap's own: Fetch's check decides it, and reports a robots.txt that cannot be read
		fc := *f
		fc.FileTime = withDefaults(r.Limits).FileTime
		w := Walker{Fetch: fc.Fetch, Rules: r, Counted: counted}
		if r.SkipUnchanged {
			w.Unchanged = fc.Unchanged
		}
		w.Walk(ctx, Roots(u, maps), yield)
	}
}

// hostOf is u's host as the pacer keys it: lower case, without the
// scheme's default port.
func hostOf(u *url.URL) string {
	o, err := lifecycle.OriginOf(u, ErrNotFetched, ErrNotFetched)
	if err != nil {
		return u.Host
	}
	return o.Host
}
