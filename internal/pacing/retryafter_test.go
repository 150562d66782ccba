package pacing

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		in    string
		want  time.Duration
		given bool
	}{
		{"", 0, false},
		{"3", 3 * time.Second, true},
		{" 120 ", 2 * time.Minute, true},
		{"0", 0, false},
		{"99999999999999999999999", maxDuration, true},
		{"9223372037", maxDuration, true},
		{"-1", 0, false},
		{"+5", 0, false},
		{"1.5", 0, false},
		{"soon", 0, false},
		{"Wed, 25 Nov 2026 12:00:30 GMT", 30 * time.Second, true}, // IMF-fixdate
		{"Wednesday, 25-Nov-26 12:01:00 GMT", time.Minute, true},  // RFC 850
		{"Wed Nov 25 12:00:05 2026", 5 * time.Second, true},       // asctime
		{"Wed, 25 Nov 2026 11:59:00 GMT", 0, false},               // past
		{"Wed, 25 Nov 2026 12:00:00 GMT", 0, false},               // now
		{"Wed, 32 Nov 2026 12:00:30 GMT", 0, false},               // no such day
		{"2026-11-25T12:00:30Z", 0, false},                        // not an HTTP-date
		{"Wed, 25 Nov 2026 12:00:30 GMT; extra", 0, false},        // trailing junk
		{"3, Wed, 25 Nov 2026 12:00:30 GMT", 0, false},            // two values
		{strings.Repeat("9", 400), maxDuration, true},             // long digits
		{"\t7\t", 7 * time.Second, true},                          // OWS
		{"Wed, 25 Nov 2026 12:00:30 UTC", 0, false},               // not GMT: http.ParseTime rejects
		{"Wed, 25 Nov 2026 12:00:30 +0000", 0, false},             // ditto
		{"Thu, 01 Jan 1970 00:00:00 GMT", 0, false},               // epoch
		{"Fri, 31 Dec 9999 23:59:59 GMT", time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Sub(now), true},
	}
	for _, tc := range cases {
		got, given := ParseRetryAfter(tc.in, now)
		if got != tc.want || given != tc.given {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tc.in, got, given, tc.want, tc.given)
		}
	}
}

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
		d, given := ParseRetryAfter(v, now)
		if d < 0 || given != (d > 0) {
			t.Fatalf("ParseRetryAfter(%q) = %v, %v", v, d, given)
		}
		if s := strings.TrimSpace(v); isDigits(s) && given {
			if n, err := strconv.ParseUint(s, 10, 64); err == nil && n <= uint64(maxDuration/time.Second) && d != time.Duration(n)*time.Second {
				t.Fatalf("ParseRetryAfter(%q) = %v, want %d s", v, d, n)
			}
		}
	})
}
