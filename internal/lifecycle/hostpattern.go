package lifecycle

// This file reads host patterns (the root's WithOverride) and matches
// origins against them.

import "strings"

// HostPattern is one host pattern of the root's WithOverride, already
// lower-cased: a host, or every subdomain of one ("*.example.org"), with
// or without a port.
type HostPattern struct {
	host   string // name or bracketed IPv6; for "*.d" the suffix ".d"
	port   string // "" matches any port
	suffix bool
}

// ParseHostPattern reads a host pattern. why says, for a pattern that can
// never match a URL's host, what is wrong with it ("" when the pattern is
// usable).
func ParseHostPattern(s string) (p HostPattern, why string) {
	s = strings.ToLower(strings.TrimSpace(s))
	if rest, ok := strings.CutPrefix(s, "*."); ok {
		p.suffix = true
		s = rest
	}
	switch {
	case s == "":
		return HostPattern{}, "empty host"
	case strings.Contains(s, "://"):
		return HostPattern{}, "a scheme: give the host alone"
	case strings.ContainsAny(s, "*"):
		return HostPattern{}, "'*' is only allowed as a leading \"*.\""
	case strings.ContainsAny(s, "/?#@ \t"):
		return HostPattern{}, "not a host (a path, query, user or space)"
	case strings.Contains(s, "%"):
		return HostPattern{}, "an IPv6 zone ID: zones are not part of a URL's host robots.txt is fetched for"
	}
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return HostPattern{}, "a non-ASCII name: write it in punycode (xn--…), as URLs carry it"
		}
	}
	host, port := splitHostPort(s)
	if host == "" || strings.HasPrefix(host, ".") || strings.HasSuffix(host, ".") {
		return HostPattern{}, "empty label"
	}
	if p.suffix && strings.HasPrefix(host, "[") {
		return HostPattern{}, "\"*.\" before an IP address"
	}
	if p.suffix && !strings.Contains(host, ".") {
		return HostPattern{}, "\"*.\" before a top-level domain would cover sites of others"
	}
	for i := 0; i < len(port); i++ {
		if port[i] < '0' || port[i] > '9' {
			return HostPattern{}, "port is not a number"
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
func (p HostPattern) match(host, port string) bool {
	if p.port != "" && p.port != port {
		return false
	}
	if p.suffix {
		return len(host) > len(p.host) && strings.HasSuffix(host, p.host)
	}
	return host == p.host
}

// Covers reports whether one of patterns covers o's host and port (the
// scheme's default port when o has none).
func Covers(patterns []HostPattern, o Origin) bool {
	host, port := splitHostPort(o.Host)
	if port == "" {
		port = "80"
		if o.HTTPS {
			port = "443"
		}
	}
	for _, p := range patterns {
		if p.match(host, port) {
			return true
		}
	}
	return false
}
