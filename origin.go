package robotsext

// This file turns URLs into origins (lifecycle.Origin): the scheme, host
// and port one robots.txt governs (RFC 9309 §2.1), read by
// internal/lifecycle, with the root's errors.

import (
	"fmt"
	"net/url"

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

// originOf returns the origin of u (lifecycle.OriginOf), ErrNotHTTP for
// other schemes and ErrInvalidURL when there is no host.
func originOf(u *url.URL) (lifecycle.Origin, error) {
	return lifecycle.OriginOf(u, ErrNotHTTP, ErrInvalidURL)
}
