package robotsext

import (
	"net/http"
	"testing"
	"time"
)

// TestFetchFreshnessMalformed decides every malformed freshness form we
// know of as RFC 9111 reads it (issue 31, item 6): invalid freshness
// information is stale, so the answer gets the one-minute floor rather
// than the 24-hour default it got before (max-age=-1 was cached 24 h);
// a value too large to represent is valid and capped at MaxCacheTTL;
// s-maxage concerns shared caches only and is ignored. Each case runs
// with WithCacheTTL(3h) so that "no lifetime stated" (3 h) cannot be
// mistaken for the cap (24 h) or the floor (1 min). Hand-moved clock.
func TestFetchFreshnessMalformed(t *testing.T) {
	t.Parallel()
	clk := newClock()
	const ttl = 3 * time.Hour
	date := clk.Now().Format(http.TimeFormat)
	in2h := clk.Now().Add(2 * time.Hour).Format(http.TimeFormat)
	in5h := clk.Now().Add(5 * time.Hour).Format(http.TimeFormat)
	tests := []struct {
		name    string
		headers []string // key, value pairs; a key may repeat
		want    time.Duration
	}{
		// Invalid max-age: stale.
		{"negative", []string{"Cache-Control", "max-age=-1"}, minLifetime},
		{"negative beside Expires", []string{"Cache-Control", "max-age=-1", "Expires", in5h, "Date", date}, minLifetime},
		{"letters", []string{"Cache-Control", "max-age=abc"}, minLifetime},
		{"empty quoted", []string{"Cache-Control", `max-age=""`}, minLifetime},
		{"empty", []string{"Cache-Control", "max-age="}, minLifetime},
		{"no value", []string{"Cache-Control", "max-age"}, minLifetime},
		{"plus sign", []string{"Cache-Control", "max-age=+3600"}, minLifetime},
		{"fraction", []string{"Cache-Control", "max-age=3600.5"}, minLifetime},
		{"hex", []string{"Cache-Control", "max-age=0x10"}, minLifetime},
		{"digits then text", []string{"Cache-Control", "max-age=3600s"}, minLifetime},
		{"space inside quotes", []string{"Cache-Control", `max-age=" 3600"`}, minLifetime},
		{"invalid then valid", []string{"Cache-Control", "max-age=abc, max-age=7200"}, minLifetime},
		// Duplicates: agreeing ones stand, disagreeing ones are stale.
		{"duplicates disagree", []string{"Cache-Control", "max-age=7200, max-age=600"}, minLifetime},
		{"duplicates disagree across headers", []string{"Cache-Control", "max-age=600", "Cache-Control", "max-age=7200"}, minLifetime},
		{"duplicates agree, one quoted", []string{"Cache-Control", `max-age=7200, max-age="7200"`}, 2 * time.Hour},
		// Valid forms.
		{"quoted", []string{"Cache-Control", `max-age="7200"`}, 2 * time.Hour},
		{"leading zeros", []string{"Cache-Control", "max-age=0007200"}, 2 * time.Hour},
		{"spaces around", []string{"Cache-Control", " max-age = 7200 "}, 2 * time.Hour},
		{"huge", []string{"Cache-Control", "max-age=99999999999999999999999"}, MaxCacheTTL},
		{"2^31", []string{"Cache-Control", "max-age=2147483648"}, MaxCacheTTL},
		{"huge Age", []string{"Cache-Control", "max-age=7200", "Age", "99999999999999999999"}, minLifetime},
		{"invalid Age ignored", []string{"Cache-Control", "max-age=7200", "Age", "-5"}, 2 * time.Hour},
		// s-maxage: for shared caches; ignored here.
		{"s-maxage alone", []string{"Cache-Control", "s-maxage=600"}, ttl},
		{"s-maxage does not hide Expires", []string{"Cache-Control", "s-maxage=600", "Expires", in2h, "Date", date}, 2 * time.Hour},
		{"invalid s-maxage ignored", []string{"Cache-Control", "s-maxage=-1, max-age=7200"}, 2 * time.Hour},
		{"no-cache", []string{"Cache-Control", "no-cache"}, minLifetime},
		{"no-cache with fields", []string{"Cache-Control", `no-cache="Set-Cookie", max-age=7200`}, minLifetime},
		{"other directives only", []string{"Cache-Control", "public, must-revalidate"}, ttl},
		// Expires.
		{"Expires invalid", []string{"Expires", "0"}, minLifetime},
		{"Expires empty", []string{"Expires", ""}, minLifetime},
		{"Expires past", []string{"Expires", clk.Now().Add(-time.Hour).Format(http.TimeFormat)}, minLifetime},
		{"Expires valid", []string{"Expires", in2h, "Date", date}, 2 * time.Hour},
		{"Expires beyond the cap", []string{"Expires", clk.Now().Add(72 * time.Hour).Format(http.TimeFormat), "Date", date}, MaxCacheTTL},
		{"Expires duplicates agree", []string{"Expires", in2h, "Expires", in2h, "Date", date}, 2 * time.Hour},
		{"Expires duplicates disagree", []string{"Expires", in2h, "Expires", in5h, "Date", date}, minLifetime},
		{"Expires valid then invalid", []string{"Expires", in2h, "Expires", "never", "Date", date}, minLifetime},
		{"nothing stated", nil, ttl},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := fetchWith(t, clk, respond(200, testRules, tt.headers...), WithCacheTTL(ttl))
			if r.Outcome != OutcomeOK {
				t.Fatalf("outcome %v", r.Outcome)
			}
			if got := lifetimeOf(r); got != tt.want {
				t.Errorf("%q: fresh for %v, want %v", tt.headers, got, tt.want)
			}
		})
	}
}
