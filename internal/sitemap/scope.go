package sitemap

// This file is the protocol's location rule (sitemaps.org, "Sitemap file
// location"): a sitemap lists URLs on its own origin under its own
// path's directory; one that the origin's robots.txt names (a
// cross-submission) may list any URL of that origin; an index lists
// sitemaps of its own origin (or of the origin that named it).

import (
	"net/url"
	"strings"
)

// Origin returns u's scheme, host and port in lower case, the default
// port dropped: "https://example.com", "http://example.com:8080".
func Origin(u *url.URL) string {
	scheme, host, port := strings.ToLower(u.Scheme), strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}

// scope is where a sitemap's entries may be.
type scope struct {
	origin string // the sitemap's own origin
	dir    string // its path up to its last '/'
	named  string // the origin whose robots.txt named the sitemap (or its index), "" for none
}

// scopeOf is the scope of the sitemap at u, named by the robots.txt of
// the origin named ("" for none).
func scopeOf(u *url.URL, named string) scope {
	p := u.EscapedPath()
	dir := p[:strings.LastIndexByte(p, '/')+1]
	if dir == "" {
		dir = "/"
	}
	return scope{origin: Origin(u), dir: dir, named: named}
}

// holds reports whether the page loc may be listed.
func (s scope) holds(loc *url.URL) bool {
	o := Origin(loc)
	if o == s.named {
		return true
	}
	return o == s.origin && strings.HasPrefix(loc.EscapedPath(), s.dir)
}

// holdsSitemap reports whether an index in scope s may list the sitemap
// at loc: one of its own origin, or of the origin that named it.
func (s scope) holdsSitemap(loc *url.URL) bool {
	o := Origin(loc)
	return o == s.origin || o == s.named
}

// isSite reports whether u names a site (its path is "" or "/"), not a
// sitemap.
func isSite(u *url.URL) bool { return u.Path == "" || u.Path == "/" }

// Roots are the sitemaps a walk from u starts with, given the sitemaps
// named by the robots.txt of u's origin: for a site, every one named, or
// /sitemap.xml when none is (the conventional place, as crawlers look);
// else u itself, a cross-submission when named.
func Roots(u *url.URL, named []string) []Root {
	origin := Origin(u)
	if isSite(u) {
		if len(named) == 0 {
			return []Root{{URL: origin + "/sitemap.xml"}}
		}
		roots := make([]Root, len(named))
		for i, m := range named {
			roots[i] = Root{URL: m, NamedBy: origin}
		}
		return roots
	}
	r := Root{URL: u.String()}
	for _, m := range named {
		if m == r.URL {
			r.NamedBy = origin
		}
	}
	return []Root{r}
}
