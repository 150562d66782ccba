package robotsext

// This file turns URLs into origins (lifecycle.Origin): the scheme, host
// and port one robots.txt governs (RFC 9309 §2.1), and the host patterns
// of WithOverride.

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/robotsext/robotsext/internal/lifecycle"
	"github.com/robotsext/robotsext/internal/redact"
)

// parseOrigin parses rawURL and returns its origin with the parsed URL. It
// fails with ErrInvalidURL or ErrNotHTTP.
func parseOrigin(rawURL string) (lifecycle.Origin, *url.URL, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return lifecycle.Origin{}, nil, fmt.Errorf("%w: %s", ErrInvalidURL, redact.In(err.Error(), rawURL))
	}
	o, err := originOf(u)
	return o, u, err
}

// originOf returns the origin of u, ErrNotHTTP for other schemes and
// ErrInvalidURL when there is no host. It does not allocate when u is
// already canonical, which is how Colly hands URLs over.
func originOf(u *url.URL) (lifecycle.Origin, error) {
	var o lifecycle.Origin
	switch {
	case u.Scheme == "http" || strings.EqualFold(u.Scheme, "http"):
	case u.Scheme == "https" || strings.EqualFold(u.Scheme, "https"):
		o.HTTPS = true
	default:
		return o, ErrNotHTTP
	}
	host := u.Host
	classes := hostClasses(host)
	if host == "" || classes&octBadHost != 0 {
		return o, ErrInvalidURL
	}
	if classes&octFold != 0 {
		host = strings.ToLower(host)
	}
	if classes&octColon == 0 && host[0] != '[' {
		o.Host = host // a name without a port: the common case
		return o, nil
	}
	h, port := splitHostPort(host)
	if h == "" || h == "[]" {
		return o, ErrInvalidURL
	}
	if port == "" || (port == "80" && !o.HTTPS) || (port == "443" && o.HTTPS) {
		host = h
	} else {
		for i := 0; i < len(port); i++ {
			if port[i] < '0' || port[i] > '9' {
				return o, ErrInvalidURL
			}
		}
	}
	o.Host = host
	return o, nil
}

// hostClasses returns the union of the octet classes of host's octets, in
// one pass: octBadHost when it holds a character no authority may hold
// (url.Parse lets a few through), octFold when it has upper case to fold
// (any non-ASCII octet counts, for ToLower to decide), octColon when it may
// have a port.
func hostClasses(host string) byte {
	var classes byte
	for i := 0; i < len(host); i++ {
		classes |= hostOctets[host[i]]
	}
	return classes
}

// hostPattern is one WithOverride entry, already lower-cased.
type hostPattern struct {
	host   string // name or bracketed IPv6; for "*.d" the suffix ".d"
	port   string // "" matches any port
	suffix bool
}

// parseHostPattern reads a WithOverride pattern. why says, for a pattern
// that can never match a URL's host, what is wrong with it ("" when the
// pattern is usable).
func parseHostPattern(s string) (p hostPattern, why string) {
	s = strings.ToLower(strings.TrimSpace(s))
	if rest, ok := strings.CutPrefix(s, "*."); ok {
		p.suffix = true
		s = rest
	}
	switch {
	case s == "":
		return hostPattern{}, "empty host"
	case strings.Contains(s, "://"):
		return hostPattern{}, "a scheme: give the host alone"
	case strings.ContainsAny(s, "*"):
		return hostPattern{}, "'*' is only allowed as a leading \"*.\""
	case strings.ContainsAny(s, "/?#@ \t"):
		return hostPattern{}, "not a host (a path, query, user or space)"
	case strings.Contains(s, "%"):
		return hostPattern{}, "an IPv6 zone ID: zones are not part of a URL's host robots.txt is fetched for"
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return hostPattern{}, "a non-ASCII name: write it in punycode (xn--…), as URLs carry it"
		}
	}
	host, port := splitHostPort(s)
	if host == "" || strings.HasPrefix(host, ".") || strings.HasSuffix(host, ".") {
		return hostPattern{}, "empty label"
	}
	if p.suffix && strings.HasPrefix(host, "[") {
		return hostPattern{}, "\"*.\" before an IP address"
	}
	if p.suffix && !strings.Contains(host, ".") {
		return hostPattern{}, "\"*.\" before a top-level domain would cover sites of others"
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return hostPattern{}, "port is not a number"
		}
	}
	p.host, p.port = host, port
	if p.suffix {
		p.host = "." + host
	}
	return p, ""
}

// match reports whether p covers a host (lower case) and port; port is
// never empty: the scheme's default port stands in when the URL has none.
func (p hostPattern) match(host, port string) bool {
	if p.port != "" && p.port != port {
		return false
	}
	if p.suffix {
		return len(host) > len(p.host) && strings.HasSuffix(host, p.host)
	}
	return host == p.host
}

// splitHostPort splits "name:port", "[v6]:port", "name" or "[v6]" without
// validating the port.
func splitHostPort(hostport string) (host, port string) {
	if strings.HasPrefix(hostport, "[") {
		end := strings.IndexByte(hostport, ']')
		if end < 0 {
			return hostport, ""
		}
		host, rest := hostport[:end+1], hostport[end+1:]
		if p, ok := strings.CutPrefix(rest, ":"); ok {
			return host, p
		}
		return host, ""
	}
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 {
		return hostport[:i], hostport[i+1:]
	}
	return hostport, ""
}
