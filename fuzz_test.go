package robotsext

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// FuzzParseRetryAfter: any Retry-After value reads as a non-negative
// delay, given only when positive; digits read as seconds (the largest
// Duration when too large), and a value is never both a number and a
// date.
func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"", "0", "3", "120", "99999999999999999999", "-1", "1.5",
		"Wed, 25 Nov 2026 12:00:30 GMT", "Wednesday, 25-Nov-26 12:01:00 GMT", "Wed Nov 25 12:00:05 2026",
		"Thu, 01 Jan 1970 00:00:00 GMT", " 7 ", "soon"} {
		f.Add(s)
	}
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, v string) {
		d, given := parseRetryAfter(v, now)
		if d < 0 || given != (d > 0) {
			t.Fatalf("parseRetryAfter(%q) = %v, %v", v, d, given)
		}
		if s := strings.TrimSpace(v); isDigits(s) && given {
			if n, err := strconv.ParseUint(s, 10, 64); err == nil && n <= uint64(maxDuration/time.Second) && d != time.Duration(n)*time.Second {
				t.Fatalf("parseRetryAfter(%q) = %v, want %d s", v, d, n)
			}
		}
	})
}
