package pacing

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ParseRetryAfter reads a Retry-After value (RFC 9110 §10.2.3): delay
// seconds, or an HTTP-date in any of the three forms a recipient must
// accept (IMF-fixdate, RFC 850, asctime). It returns the delay from now;
// given is false for a missing or invalid value, a date in the past or
// "0", which ask for nothing. A number of seconds too large for a
// Duration comes back as the largest one (the caller caps it).
func ParseRetryAfter(v string, now time.Time) (d time.Duration, given bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if isDigits(v) {
		n, err := strconv.ParseUint(v, 10, 64)
		switch {
		case err != nil || n > uint64(maxDuration/time.Second):
			return maxDuration, true
		case n == 0:
			return 0, false
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now), true
	}
	return 0, false
}

// maxDuration is the largest time.Duration.
const maxDuration = time.Duration(1<<63 - 1)

// isDigits reports whether s is all ASCII digits.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
