package robotsext

// This file is the face of sitemaps (internal/sitemap reads and fetches them).

import (
	"context"
	"iter"
	"net/http"
	"net/url"
	"time"

	"github.com/gocolly/colly/v2"

	"github.com/robotsext/robotsext/internal/pagecache"
	isitemap "github.com/robotsext/robotsext/internal/sitemap"
	"github.com/robotsext/robotsext/sitemap"
)

// The types of package sitemap, whose fields read in full with `go doc github.com/robotsext/robotsext/sitemap
// Entry` (Rules, Limits, LimitError, Counts): SitemapEntry is a page a sitemap lists. See docs/sitemaps.md.
type (
	SitemapEntry      = sitemap.Entry
	SitemapRules      = sitemap.Rules
	SitemapLimits     = sitemap.Limits
	SitemapLimitError = sitemap.LimitError // the bound ErrSitemapLimit reached
	SitemapCounts     = sitemap.Counts
)

// Errors ReadSitemaps yields, for errors.Is.
var (
	ErrSitemapLimit      = sitemap.ErrLimit      // a bound reached; the rest is not read
	ErrSitemapLoop       = sitemap.ErrLoop       // an index listed a sitemap read already
	ErrSitemapMalformed  = sitemap.ErrMalformed  // not a sitemap, or broken XML or gzip
	ErrSitemapNotFetched = sitemap.ErrNotFetched // refused (robots.txt, back-off), or not a 2xx
)

// WithSitemapRules sets how ReadSitemaps reads.
func WithSitemapRules(r SitemapRules) Option { return func(c *config) { c.sitemaps = r } }

// ReadSitemaps streams the pages the sitemaps of rawURL list (those a site's robots.txt names, its
// path "" or "/", else rawURL's own; indexes followed), each fetched as a collector's page is
// (docs/sitemaps.md). What cannot be read is yielded as an error and the stream goes on to ctx's end.
func (e *Extension) ReadSitemaps(ctx context.Context, rawURL string) iter.Seq2[SitemapEntry, error] {
	base := e.cfg.client
	if base == nil { // the collector's transport, as robots.txt's (http.DefaultTransport when it has none)
		base = &http.Client{Transport: pagecache.CollectorTransport(e.c)}
	}
	f := &isitemap.Fetcher{Header: e.requestHeader, Timeout: e.cfg.timeout, Base: base, Redirect: e.WrapRedirectHandler(nil),
		Check: func(ctx context.Context, u *url.URL) error {
			v, err := e.CheckContext(ctx, u.String())
			return e.sitemapRefused(ctx, u, v, err)
		},
		BackedOff: func(ctx context.Context, u *url.URL, at time.Time) error {
			return e.sitemapRefused(ctx, u, Verdict{Reason: ReasonBackoff, RetryAt: at}, nil)
		},
		Wrap:  func(rt http.RoundTripper) http.RoundTripper { return e.PageTransport(e.cfg.signTransport(rt)) },
		Pacer: e.pacer, Backoff: e.pauses, Pages: e.pages, Answered: e.responded}
	return f.Stream(ctx, rawURL, e.parseAsColly, e.Sitemaps, e.cfg.sitemaps, e.stats.sitemaps.Add)
}

// sitemapRefused counts a sitemap's Verdict and reports a refusal as a page's (Stats.Blocked, OnBlocked
// with a request built for it, shadow mode): a *BlockedError, nil when v allows or shadow mode lets it go.
func (e *Extension) sitemapRefused(ctx context.Context, u *url.URL, v Verdict, err error) error {
	if err != nil {
		return err
	} else if e.stats.decided(v); v.Allowed {
		return nil
	}
	e.blocked(ctx, &colly.Request{URL: u, Method: http.MethodGet, Headers: &http.Header{}, Ctx: colly.NewContext()}, v)
	if e.cfg.shadow && v.Reason != ReasonLocalError && v.Reason != ReasonBackoff {
		return nil
	}
	return &BlockedError{URL: u.String(), Verdict: v}
}
