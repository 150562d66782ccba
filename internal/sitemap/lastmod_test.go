package sitemap

import (
	"testing"
	"time"
)

func TestParseLastMod(t *testing.T) {
	t.Parallel()
	utc := func(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
		return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
	}
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{"2024", utc(2024, 1, 1, 0, 0, 0, 0)},
		{"2024-05", utc(2024, 5, 1, 0, 0, 0, 0)},
		{"2024-05-17", utc(2024, 5, 17, 0, 0, 0, 0)},
		{"2024-05-17T10:20Z", utc(2024, 5, 17, 10, 20, 0, 0)},
		{"2024-05-17T10:20+02:00", utc(2024, 5, 17, 8, 20, 0, 0)},
		{"2024-05-17T10:20:30-05:00", utc(2024, 5, 17, 15, 20, 30, 0)},
		{"2024-05-17T10:20:30.45Z", utc(2024, 5, 17, 10, 20, 30, 450_000_000)},
		{" 2024-05-17T10:20:30.123456789+00:00 ", utc(2024, 5, 17, 10, 20, 30, 123456789)},
		{"2024-05-17 10:20:30", utc(2024, 5, 17, 10, 20, 30, 0)},     // lenient: a space, no zone
		{"2024-05-17t10:20:30z", utc(2024, 5, 17, 10, 20, 30, 0)},    // lenient: lower case
		{"2024-05-17T10:20:30+0200", utc(2024, 5, 17, 8, 20, 30, 0)}, // lenient: no colon
		{"Fri, 17 May 2024 10:20:30 +0200", utc(2024, 5, 17, 8, 20, 30, 0)},
		{"Fri, 17 May 2024 10:20:30 GMT", utc(2024, 5, 17, 10, 20, 30, 0)},
		{"Fri, 7 May 2024 10:20:30 -0000", utc(2024, 5, 7, 10, 20, 30, 0)},
		{"17 May 24 10:20 +0000", utc(2024, 5, 17, 10, 20, 0, 0)},
		// RFC 822 §5 zone names, read by their offset whatever time.Local
		// is (time.Parse reads an unknown name as +0000 on a UTC machine).
		{"Mon, 06 May 2024 08:00:00 EST", utc(2024, 5, 6, 13, 0, 0, 0)},
		{"Mon, 06 May 2024 08:00:00 EDT", utc(2024, 5, 6, 12, 0, 0, 0)},
		{"Mon, 06 May 2024 08:00:00 CST", utc(2024, 5, 6, 14, 0, 0, 0)},
		{"Mon, 06 May 2024 08:00:00 CDT", utc(2024, 5, 6, 13, 0, 0, 0)},
		{"Mon, 06 May 2024 08:00:00 MST", utc(2024, 5, 6, 15, 0, 0, 0)},
		{"Mon, 06 May 2024 08:00:00 MDT", utc(2024, 5, 6, 14, 0, 0, 0)},
		{"Mon, 06 May 2024 08:00:00 PST", utc(2024, 5, 6, 16, 0, 0, 0)},
		{"Mon, 06 May 2024 08:00:00 pdt", utc(2024, 5, 6, 15, 0, 0, 0)},
		{"Mon, 06 May 2024 08:00:00 UT", utc(2024, 5, 6, 8, 0, 0, 0)},
		{"Mon, 06 May 2024 08:00:00 Z", utc(2024, 5, 6, 8, 0, 0, 0)},
		{"Mon, 06 May 2024 08:00:00 A", utc(2024, 5, 6, 8, 0, 0, 0)}, // military: -0000 (RFC 2822 §4.3)
		{"Mon, 06 May 2024 08:00:00 +0530", utc(2024, 5, 6, 2, 30, 0, 0)},
		{"6 May 2024 07:08 EST", utc(2024, 5, 6, 12, 8, 0, 0)},             // no weekday, no seconds
		{"Monday, 06-May-24 07:08:09 GMT", utc(2024, 5, 6, 7, 8, 9, 0)},    // RFC 850
		{"Sunday, 06-Nov-94 08:49:37 GMT", utc(1994, 11, 6, 8, 49, 37, 0)}, // RFC 850, last century
		{"Mon, 06 May 2024 08:00:00 CET", time.Time{}},                     // a zone RFC 822 does not name: unknown
		{"Mon, 31 Feb 2024 08:00:00 GMT", time.Time{}},
		{"Mon, 06 May 2024 08:00:00 +2500", time.Time{}},
		{"", time.Time{}},
		{"yesterday", time.Time{}},
		{"2024-13-01", time.Time{}},
		{"2024-05-17T25:00Z", time.Time{}},
		{"2024-05-17T10:20:30.45Z" + string(make([]byte, 100)), time.Time{}},
	} {
		if got := ParseLastMod(tc.in); !got.Equal(tc.want) {
			t.Errorf("ParseLastMod(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
