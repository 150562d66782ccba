package pagecache

// This file compares a stored copy with a page's last change as another
// source claims it (a sitemap's <lastmod>), so that a crawl may skip the
// pages that did not change since they were stored.

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Unchanged reports whether the copy stored for a GET of u (with the
// request header h) is at least as recent as lastmod: lastmod is not
// later than the copy's Last-Modified or, when it has none (or one that
// cannot be read), than the time the copy was received (ResponseTime).
// Freshness is not asked. False when nothing usable is stored, lastmod
// is zero or c is nil.
func (c *Cache) Unchanged(ctx context.Context, u *url.URL, h http.Header, lastmod time.Time) bool {
	if c == nil || lastmod.IsZero() {
		return false
	}
	e, _ := c.Lookup(ctx, http.MethodGet, u, h)
	if e == nil || e.Status != http.StatusOK {
		return false
	}
	stored := e.ResponseTime
	if lm, err := http.ParseTime(e.Header.Get("Last-Modified")); err == nil {
		stored = lm
	}
	return !lastmod.After(stored)
}

// ClaimFresh claims the copy stored for req when it is fresh, so that the
// Transport serves it without a request, and reports whether it did;
// false for a nil Cache, and when too many claims wait (req is then sent
// as any other).
func (c *Cache) ClaimFresh(ctx context.Context, req *http.Request) bool {
	if c == nil {
		return false
	}
	e, fresh := c.Lookup(ctx, req.Method, req.URL, req.Header)
	return fresh && c.Claim(req.URL, e, nil)
}
