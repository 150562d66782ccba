package lifecycle

// This file works out when an answer is fetched again: how long a good or
// unavailable answer stays fresh (RFC 9111's freshness, within RFC 9309's
// cap), and how long an unreachable origin is left alone (the backoff).

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/robotsext/robotsext/backend"
)

const (
	// minLifetime is the floor of a lifetime: for max-age=0, no-cache,
	// no-store, a past Expires and invalid freshness information, so that
	// robots.txt is not fetched again for every page.
	minLifetime = time.Minute
	// minBackoff is the first wait before an unreachable origin is tried
	// again; it doubles per failure up to backend.MaxBackoff.
	minBackoff = time.Minute
)

// lifetime is how long an answer stays fresh: Cache-Control max-age (less
// Age) or Expires (against Date), capped at maxTTL and at least
// minLifetime (no-cache, no-store, max-age=0 and invalid freshness
// information included); without either header, ttl.
func lifetime(h http.Header, now time.Time, ttl, maxTTL time.Duration) time.Duration {
	d, ok := headerLifetime(h, now)
	if !ok {
		d = ttl
	}
	return min(max(d, minLifetime), maxTTL)
}

// headerLifetime reads the freshness lifetime a response states (RFC 9111
// §4.2.1); ok is false when it states none. A response whose freshness
// information is invalid is stale (lifetime 0, ok true), as RFC 9111
// §4.2.1 encourages: a max-age that is not delta-seconds (-1, abc, "",
// 1.5, none at all), several max-age or Expires values that disagree
// (§4.2.1: the first, or stale; stale is the safer reading for
// robots.txt), an Expires that is not an HTTP date (§5.3). no-cache or
// no-store anywhere means revalidate. s-maxage speaks to shared caches
// only (§5.2.2.10) and this cache is one crawler's, so it is ignored, as
// is its Expires override.
func headerLifetime(h http.Header, now time.Time) (time.Duration, bool) {
	var age time.Duration
	if a, ok := deltaSeconds(h.Get("Age")); ok && a > 0 {
		age = a
	}
	maxAge, haveMaxAge := time.Duration(0), false
	for _, cc := range h.Values("Cache-Control") {
		for _, d := range strings.Split(cc, ",") {
			name, val, hasVal := strings.Cut(strings.TrimSpace(d), "=")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "no-store", "no-cache":
				return 0, true
			case "max-age":
				v := strings.TrimSpace(val)
				if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
					v = v[1 : len(v)-1] // RFC 9111 §5.2: recipients accept the quoted form
				}
				n, ok := deltaSeconds(v)
				switch {
				case !hasVal || !ok:
					return 0, true // invalid: stale
				case haveMaxAge && n != maxAge:
					return 0, true // disagreeing duplicates: stale
				}
				maxAge, haveMaxAge = n, true
			}
		}
	}
	if haveMaxAge {
		return maxAge - age, true
	}
	exps := h.Values("Expires")
	if len(exps) == 0 {
		return 0, false
	}
	t, err := http.ParseTime(strings.TrimSpace(exps[0]))
	if err != nil {
		return 0, true // RFC 9111 §5.3: an invalid Expires means already expired
	}
	for _, x := range exps[1:] {
		if u, err := http.ParseTime(strings.TrimSpace(x)); err != nil || !u.Equal(t) {
			return 0, true // disagreeing duplicates: stale
		}
	}
	base := now
	if d, err := http.ParseTime(h.Get("Date")); err == nil {
		base = d
	}
	return t.Sub(base) - age, true
}

// deltaSeconds parses RFC 9111 §1.2.2 delta-seconds: one or more ASCII
// digits, nothing else (no sign, no fraction). A value too large to
// represent is valid and means "very long": it is capped (secondsDuration).
func deltaSeconds(v string) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil { // only ErrRange is left: more digits than int64 holds
		return backend.MaxStale, true
	}
	return secondsDuration(n), true
}

// secondsDuration is n seconds, at most backend.MaxStale.
func secondsDuration(n int64) time.Duration {
	if n > int64(backend.MaxStale/time.Second) {
		return backend.MaxStale
	}
	return time.Duration(n) * time.Second
}

// retryAfter reads Retry-After with the configured reader, capped at
// backend.MaxBackoff (a number too large for int64 is capped too); 0 when
// it asks for nothing.
func (f *Fetcher) retryAfter(v string, now time.Time) time.Duration {
	if f.cfg.RetryAfter == nil || v == "" {
		return 0
	}
	if d, ok := f.cfg.RetryAfter(v, now); ok {
		return min(d, backend.MaxBackoff)
	}
	return 0
}

// backoff is how long an origin that was unreachable failures times in a
// row is left alone: Retry-After when given (at most backend.MaxBackoff),
// else minBackoff doubled per failure up to backend.MaxBackoff.
func backoff(failures int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, backend.MaxBackoff)
	}
	d := minBackoff
	for i := 1; i < failures && d < backend.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, backend.MaxBackoff)
}
