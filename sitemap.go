package robotsext

// This file is the face of sitemaps (internal/sitemap reads and fetches them).

import (
	"context"
	"iter"
	"net/http"

	isitemap "github.com/robotsext/robotsext/internal/sitemap"
	"github.com/robotsext/robotsext/sitemap"
)

// The types of package sitemap (where they read in full): SitemapEntry is
// a page a sitemap lists, SitemapRules WithSitemapRules', SitemapCounts
// Stats.Sitemaps'. See docs/sitemaps.md.
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
	f := &isitemap.Fetcher{Check: e.sitemapVerdict, Header: e.requestHeader, Timeout: e.cfg.timeout, Base: e.cfg.client,
		Wrap:     func(rt http.RoundTripper) http.RoundTripper { return e.PageTransport(e.cfg.signTransport(rt)) },
		Redirect: e.WrapRedirectHandler(nil), Pacer: e.pacer, Backoff: e.pauses, Pages: e.pages, Answered: e.responded}
	return f.Stream(ctx, rawURL, e.parseAsColly, e.Sitemaps, e.cfg.sitemaps, e.stats.sitemaps.Add)
}

// sitemapVerdict decides a sitemap as the hook decides a page.
func (e *Extension) sitemapVerdict(ctx context.Context, rawURL string) (bool, string, error) {
	v, err := e.CheckContext(ctx, rawURL)
	if err == nil {
		e.stats.decided(v)
	}
	return v.Allowed, v.Reason.String(), err
}
