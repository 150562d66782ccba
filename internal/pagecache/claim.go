package pagecache

// This file is the claim: a fresh entry the root's OnRequest hook sets
// aside, before the pace, for the Transport to serve. The claim names the
// request by its URL (the *url.URL Colly's request and its http.Request
// share), never by a field of its header, so that nothing of it can reach
// the wire or another transport. The final request decides: Usable is
// asked again, at the wire and in the Transport, on the header as sent.

import (
	"net/http"
	"net/url"
)

// claim is one claimed entry and the request's owner, handed back to
// Transport.Pace when the entry cannot serve the request after all.
type claim struct {
	e     *Entry
	owner any
}

// Claim sets the fresh entry e aside for the request whose URL is u (a
// pointer, not a value: one request's), for the Transport to serve
// without sending anything. owner is the caller's, given back to
// Transport.Pace. It reports false when too many claims wait (the request
// is then sent as any other).
func (c *Cache) Claim(u *url.URL, e *Entry, owner any) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.claims) >= maxClaims {
		return false
	}
	c.claims[u] = claim{e, owner}
	return true
}

// Claimed returns the entry claimed for the request whose URL is u.
func (c *Cache) Claimed(u *url.URL) (*Entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl, ok := c.claims[u]
	return cl.e, ok
}

// Release drops the claim of the request whose URL is u, if any.
func (c *Cache) Release(u *url.URL) {
	c.mu.Lock()
	delete(c.claims, u)
	c.mu.Unlock()
}

// take returns the claim of the request whose URL is u and forgets it.
func (c *Cache) take(u *url.URL) (claim, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl, ok := c.claims[u]
	delete(c.claims, u)
	return cl, ok
}

// Usable reports whether the stored entry e may serve, without asking the
// origin, a request with method and header h as it is sent: the request
// may use the cache (no validator or Range of its own), its Vary fields
// match e's, and e is fresh for it (its Cache-Control included).
func (c *Cache) Usable(e *Entry, method string, h http.Header) bool {
	return e != nil && e.Method == method && Cacheable(method, h) && VaryMatches(e, h) && Fresh(e, ParseCacheControl(h), c.now())
}
