package lifecycle

// This file reads a URL's origin (RFC 9309 §2.1): the scheme, and the
// host lower-cased without the scheme's default port, scanned with one
// table lookup per octet instead of a chain of comparisons, whose
// branches a mix of letters and punctuation mispredicts.

import (
	"net/url"
	"strings"
)

// OriginOf returns the origin of u: its scheme, and its host lower-cased
// without the scheme's default port. It fails with notHTTP for other
// schemes, and with invalid when there is no host, the host holds an
// octet no authority may hold, or the port is not a number: the errors
// are the caller's (the root's ErrNotHTTP and ErrInvalidURL). It does not
// allocate when u is already canonical, which is how Colly hands URLs
// over.
func OriginOf(u *url.URL, notHTTP, invalid error) (Origin, error) {
	var o Origin
	switch {
	case u.Scheme == "http" || strings.EqualFold(u.Scheme, "http"):
	case u.Scheme == "https" || strings.EqualFold(u.Scheme, "https"):
		o.HTTPS = true
	default:
		return o, notHTTP
	}
	host := u.Host
	classes := hostClasses(host)
	if host == "" || classes&octBadHost != 0 {
		return o, invalid
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
		return o, invalid
	}
	if port == "" || (port == "80" && !o.HTTPS) || (port == "443" && o.HTTPS) {
		host = h
	} else {
		for i := 0; i < len(port); i++ {
			if port[i] < '0' || port[i] > '9' {
				return o, invalid
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

// The classes of an octet in hostOctets, one bit each.
const (
	octFold    = 1 << iota // upper case, or outside US-ASCII: a host holding it is lower-cased
	octBadHost             // no authority holds it (url.Parse lets it through)
	octColon               // ':', which starts a host's port
)

// hostOctets holds the classes of each octet, indexed by its value. A
// constant string cannot be changed, and indexing it with a byte needs no
// bounds check. TestHostOctets checks every entry against the lists above. (The
// path's octets are classified in internal/robotstxt.)
const hostOctets = "" +
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" + // 00-0f
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" + // 10-1f
	"\x02\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02" + // 20-2f  !"#$%&'()*+,-./
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x00\x02" + // 30-3f 0-9:;<=>?
	"\x02\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" + // 40-4f @A-O
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x00\x02\x00\x00\x00" + // 50-5f P-Z[\]^_
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" + // 60-6f `a-o
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" + // 70-7f p-z{|}~ DEL
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" + // 80-8f
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" + // 90-9f
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" + // a0-af
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" + // b0-bf
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" + // c0-cf
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" + // d0-df
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" + // e0-ef
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" // f0-ff

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
