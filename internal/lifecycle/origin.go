package lifecycle

// This file holds the origin, what one robots.txt governs, and its key:
// the string a Backend, the singleflight group and the purge log name it
// by. OriginOf (originof.go) reads origins from URLs.

import "net/url"

// Origin is what one robots.txt governs: scheme, host and port (RFC 9309
// §2.1). The root package builds it from a URL with the host lower-cased
// and the default port dropped, so that two URLs of one robots.txt make
// equal Origins. It is comparable and free to copy.
type Origin struct {
	HTTPS bool   // the scheme is https, else http
	Host  string // URL.Host form: "name", "name:port", "[::1]:8080"
}

// Scheme returns "https" or "http".
func (o Origin) Scheme() string {
	if o.HTTPS {
		return "https"
	}
	return "http"
}

// String returns "scheme://host", the origin's key in a Backend and in
// the purge log.
func (o Origin) String() string { return o.Scheme() + "://" + o.Host }

// RobotsURL returns the origin's robots.txt URL, the host escaped as a
// URL needs it (an IPv6 zone's '%' becomes "%25").
func (o Origin) RobotsURL() string {
	return (&url.URL{Scheme: o.Scheme(), Host: o.Host, Path: "/robots.txt"}).String()
}

// Twin returns the origin on the same host and port with the other
// scheme: both share the host's pace.
func (o Origin) Twin() Origin {
	o.HTTPS = !o.HTTPS
	return o
}
