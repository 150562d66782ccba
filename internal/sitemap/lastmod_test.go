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
