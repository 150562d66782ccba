package robotsext

// This file turns URLs into what robots.txt rules are matched against: the
// path and query as sent, starting with '/', octets outside US-ASCII
// percent-encoded.

import (
	"net/url"
	"strings"
)

// pathOf returns what robots.txt rules are matched against for u: the path
// and query as sent, starting with '/', non-ASCII octets percent-encoded.
// It allocates only to join a query on, or to encode non-ASCII octets.
func pathOf(u *url.URL) string {
	var p string
	if u.Opaque != "" {
		// "http:opaque" sends Opaque as the request target; a "//host/p"
		// form carries an authority to skip.
		p = u.Opaque
		if rest, ok := strings.CutPrefix(p, "//"); ok {
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				p = rest[i:]
			} else {
				p = "/"
			}
		}
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
	} else {
		p = escapedPath(u)
		if p == "" {
			p = "/"
		}
	}
	if u.RawQuery != "" {
		p = p + "?" + u.RawQuery
	} else if u.ForceQuery {
		p += "?"
	}
	return escapeNonASCII(p)
}

// escapedPath is u.EscapedPath() without its allocation for paths that
// hold escapes: RawPath is used when it is a valid encoding of Path made
// only of characters EscapedPath would keep, which is the case for every
// URL url.Parse returns.
func escapedPath(u *url.URL) string {
	if u.RawPath == "" || !rawPathMatches(u.RawPath, u.Path) {
		return u.EscapedPath()
	}
	return u.RawPath
}

// rawPathMatches reports whether raw decodes to path and holds only
// unreserved and sub-delimiter characters, ':', '@', '/' and %XX escapes.
func rawPathMatches(raw, path string) bool {
	j := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '%':
			if i+2 >= len(raw) || !isHex(raw[i+1]) || !isHex(raw[i+2]) {
				return false
			}
			c = unhex(raw[i+1])<<4 | unhex(raw[i+2])
			i += 2
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("-._~!$&'()*+,;=:@/", c) >= 0:
		default:
			return false
		}
		if j >= len(path) || path[j] != c {
			return false
		}
		j++
	}
	return j == len(path)
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// pathOfRaw is pathOf for a string that may be an absolute URL or a bare
// path; ok is false for URLs of schemes robots.txt does not govern. Anything
// that is not an absolute URL is read as Policy.Check reads it.
func pathOfRaw(rawURL string) (string, bool) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		return requestPath(rawURL), true
	}
	if !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https") {
		return "", false
	}
	return pathOf(u), true
}

// requestPath extracts what robots.txt rules are matched against from a URL,
// as the reference library does: the path (with ;params) and ?query, without
// scheme, authority or #fragment, always starting with '/' ("/" when there is
// no path). Octets outside US-ASCII are then percent-encoded.
func requestPath(rawURL string) string {
	start := 0
	if strings.HasPrefix(rawURL, "//") {
		start = 2
	}
	rest := rawURL[start:]
	early := strings.IndexAny(rest, "/?;")
	proto := strings.Index(rest, "://")
	from := 0
	if proto >= 0 && (early < 0 || early > proto) {
		from = proto + 3
	}
	k := strings.IndexAny(rest[from:], "/?;")
	if k < 0 {
		return "/"
	}
	pathStart := from + k
	end := len(rest)
	if h := strings.IndexByte(rest, '#'); h >= 0 {
		if h < pathStart {
			return "/"
		}
		end = h
	}
	path := rest[pathStart:end]
	if path[0] != '/' {
		path = "/" + path
	}
	return escapeNonASCII(path)
}

// escapeNonASCII percent-encodes octets outside US-ASCII, leaving everything
// else (existing escapes included) as it is.
func escapeNonASCII(s string) string {
	i := 0
	for i < len(s) && s[i] < 0x80 {
		i++
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*(len(s)-i))
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		if c := s[i]; c >= 0x80 {
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}
