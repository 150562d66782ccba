package pagecache

// This file holds the rules of RFC 9111 §4.3.4 and §4.4: which stored
// response a 304 may update, and which stored responses an unsafe
// request's answer invalidates.

import (
	"context"
	"net/http"
	"net/url"
	"strings"
)

// Matches reports whether a 304 with header h may update the stored entry
// e (§4.3.4): a strong ETag in h must equal e's strong ETag; a weak one
// must match e's by weak comparison; without an ETag, a Last-Modified in
// h must equal e's, when e has one. A 304 with no validator updates e.
func Matches(e *Entry, h http.Header) bool {
	if et := strings.TrimSpace(h.Get("ETag")); et != "" {
		stored := strings.TrimSpace(e.Header.Get("ETag"))
		if !strings.HasPrefix(et, "W/") {
			return et == stored
		}
		return stored != "" && strings.TrimPrefix(et, "W/") == strings.TrimPrefix(stored, "W/")
	}
	if lm := h.Get("Last-Modified"); lm != "" {
		if stored := e.Header.Get("Last-Modified"); stored != "" {
			a, errA := http.ParseTime(lm)
			b, errB := http.ParseTime(stored)
			return errA == nil && errB == nil && a.Equal(b)
		}
	}
	return true
}

// safe reports whether method is safe (RFC 9110 §9.2.1): its answers
// invalidate nothing.
func safe(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// invalidate drops, after a non-error answer resp to the unsafe request
// req (§4.4), the stored GET and HEAD responses of its target URI and of
// the URIs its Location and Content-Location name on the same origin.
func (c *Cache) invalidate(req *http.Request, resp *http.Response) {
	if resp.StatusCode >= 400 || req.URL == nil {
		return
	}
	ctx := context.WithoutCancel(req.Context())
	targets := []*url.URL{req.URL}
	for _, f := range [...]string{"Location", "Content-Location"} {
		if v := resp.Header.Get(f); v != "" {
			if u, err := req.URL.Parse(v); err == nil && u.Scheme == req.URL.Scheme && strings.EqualFold(u.Host, req.URL.Host) {
				targets = append(targets, u)
			}
		}
	}
	for _, u := range targets {
		for _, m := range [...]string{http.MethodGet, http.MethodHead} {
			if err := c.store.Delete(ctx, Key(m, u)); err != nil {
				c.storeFailed(err)
			}
		}
	}
}
