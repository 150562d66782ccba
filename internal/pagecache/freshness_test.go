package pagecache

import (
	"net/http"
	"testing"
	"time"

	"github.com/robotsext/robotsext/internal/mockhttp"
)

// hdr builds a header from name, value pairs.
func hdr(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i+1 < len(kv); i += 2 {
		h.Add(kv[i], kv[i+1])
	}
	return h
}

func TestParseCacheControl(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   []string
		want Directives
	}{
		{nil, Directives{}},
		{[]string{"max-age=60"}, Directives{MaxAge: 60, HasMaxAge: true}},
		{[]string{`MAX-AGE="30", no-cache`}, Directives{MaxAge: 30, HasMaxAge: true, NoCache: true}},
		{[]string{"max-age=60", "max-age=10"}, Directives{MaxAge: 10, HasMaxAge: true}},
		{[]string{"max-age=abc"}, Directives{MaxAge: 0, HasMaxAge: true}},
		{[]string{"max-age"}, Directives{MaxAge: 0, HasMaxAge: true}},
		{[]string{"max-age=99999999999999999999"}, Directives{MaxAge: maxDeltaSeconds, HasMaxAge: true}},
		{[]string{"s-maxage=60, private"}, Directives{}},
		{[]string{`no-cache="Set-Cookie, X-A", must-revalidate`}, Directives{NoCache: true, MustRevalidate: true}},
		{[]string{"no-store,,"}, Directives{NoStore: true}},
	}
	for _, tt := range tests {
		h := http.Header{"Cache-Control": tt.in}
		if got := ParseCacheControl(h); got != tt.want {
			t.Errorf("%q: got %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

// TestFresh walks entries through a hand-moved clock: each row is a
// response received at t0 and the ages at which it must still be fresh
// and must be stale.
func TestFresh(t *testing.T) {
	t.Parallel()
	t0 := mockhttp.NewClock().Now()
	date := t0.Format(http.TimeFormat)
	old := t0.Add(-100 * 24 * time.Hour).Format(http.TimeFormat)
	tests := []struct {
		name         string
		h            http.Header
		req          Directives
		freshAt      time.Duration // fresh at t0+freshAt (negative: never fresh)
		staleAt      time.Duration
		storable     bool
		revalidation bool // has a validator
	}{
		{"max-age", hdr("Date", date, "Cache-Control", "max-age=60"), Directives{}, 59 * time.Second, 60 * time.Second, true, false},
		{"max-age less Age", hdr("Date", date, "Cache-Control", "max-age=60", "Age", "50"), Directives{}, 9 * time.Second, 10 * time.Second, true, false},
		{"Expires minus Date", hdr("Date", date, "Expires", t0.Add(time.Hour).Format(http.TimeFormat)), Directives{}, 59 * time.Minute, time.Hour, true, false},
		{"max-age beats Expires", hdr("Date", date, "Expires", t0.Add(time.Hour).Format(http.TimeFormat), "Cache-Control", "max-age=10"), Directives{}, 9 * time.Second, 10 * time.Second, true, false},
		{"malformed Expires is stale", hdr("Date", date, "Expires", "0"), Directives{}, -1, 0, true, false},
		{"heuristic 10% of Last-Modified", hdr("Date", date, "Last-Modified", t0.Add(-10*time.Hour).Format(http.TimeFormat)), Directives{}, 59 * time.Minute, time.Hour, true, true},
		{"heuristic capped at a day", hdr("Date", date, "Last-Modified", old), Directives{}, 23 * time.Hour, 24 * time.Hour, true, true},
		// The case bartventer/httpcache v0.13.0 gets wrong: an explicit
		// max-age=0 leaves no room for a heuristic (RFC 9111 §4.2.2).
		{"max-age=0 with an old Last-Modified", hdr("Date", date, "Cache-Control", "max-age=0", "Last-Modified", old), Directives{}, -1, 0, true, true},
		{"Expires in the past with Last-Modified", hdr("Date", date, "Expires", old, "Last-Modified", old), Directives{}, -1, 0, true, true},
		{"no-cache", hdr("Date", date, "Cache-Control", "no-cache, max-age=600", "ETag", `"a"`), Directives{}, -1, 0, true, true},
		{"must-revalidate within max-age", hdr("Date", date, "Cache-Control", "must-revalidate, max-age=60"), Directives{}, 59 * time.Second, 60 * time.Second, true, false},
		{"private is storable", hdr("Date", date, "Cache-Control", "private, max-age=60"), Directives{}, 59 * time.Second, 60 * time.Second, true, false},
		{"no-store", hdr("Date", date, "Cache-Control", "no-store, max-age=60"), Directives{}, 59 * time.Second, 60 * time.Second, false, false},
		{"Vary *", hdr("Date", date, "Cache-Control", "max-age=60", "Vary", "*"), Directives{}, 59 * time.Second, 60 * time.Second, false, false},
		{"nothing to reuse it by", hdr("Date", date), Directives{}, -1, 0, false, false},
		{"request no-cache", hdr("Date", date, "Cache-Control", "max-age=60"), Directives{NoCache: true}, -1, 0, true, false},
		{"request max-age=5", hdr("Date", date, "Cache-Control", "max-age=60"), Directives{MaxAge: 5, HasMaxAge: true}, 5 * time.Second, 6 * time.Second, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clock := mockhttp.ClockAt(t0)
			e := &Entry{Method: "GET", URL: "https://a.example/", Status: 200, Header: tt.h, RequestTime: t0, ResponseTime: t0}
			if tt.freshAt >= 0 {
				clock.Advance(tt.freshAt)
				if !Fresh(e, tt.req, clock.Now()) {
					t.Errorf("stale at +%v, want fresh", tt.freshAt)
				}
				clock = mockhttp.ClockAt(t0)
			}
			clock.Advance(tt.staleAt)
			if Fresh(e, tt.req, clock.Now()) {
				t.Errorf("fresh at +%v, want stale", tt.staleAt)
			}
			if got := Storable("GET", 200, tt.h, Directives{}); got != tt.storable {
				t.Errorf("Storable = %v, want %v", got, tt.storable)
			}
		})
	}
}

func TestStorableStatusAndMethod(t *testing.T) {
	t.Parallel()
	h := hdr("Cache-Control", "max-age=60")
	for _, tt := range []struct {
		method string
		status int
		req    Directives
		want   bool
	}{
		{"GET", 200, Directives{}, true},
		{"HEAD", 200, Directives{}, true},
		{"POST", 200, Directives{}, false},
		{"GET", 404, Directives{}, true}, // RFC 9110 §15.1: cacheable by default, with its explicit lifetime
		{"GET", 301, Directives{}, true},
		{"GET", 308, Directives{}, true},
		{"GET", 410, Directives{}, true},
		{"GET", 302, Directives{}, false},
		{"GET", 500, Directives{}, false},
		{"GET", 206, Directives{}, false},
		{"GET", 200, Directives{NoStore: true}, false},
	} {
		if got := Storable(tt.method, tt.status, h, tt.req); got != tt.want {
			t.Errorf("%s %d %+v: got %v", tt.method, tt.status, tt.req, got)
		}
		if got := Storable(tt.method, tt.status, hdr("ETag", `"x"`), tt.req); got != (tt.want && tt.status == 200) {
			t.Errorf("%s %d %+v without a lifetime: got %v", tt.method, tt.status, tt.req, got)
		}
	}
}

func TestAgeCountsTransitAndDate(t *testing.T) {
	t.Parallel()
	t0 := mockhttp.NewClock().Now()
	e := &Entry{Header: hdr("Date", t0.Add(-30*time.Second).Format(http.TimeFormat), "Age", "5"),
		RequestTime: t0.Add(-2 * time.Second), ResponseTime: t0}
	// apparent age 30 s beats Age 5 s + 2 s of transit; then 10 s stored.
	if got := Age(e, t0.Add(10*time.Second)); got != 40*time.Second {
		t.Errorf("Age = %v, want 40s", got)
	}
}

func TestVaryMatches(t *testing.T) {
	t.Parallel()
	resp := hdr("Vary", "accept-language, Accept-Encoding")
	stored := hdr("Accept-Language", "en, fr", "Accept-Encoding", "gzip")
	e := &Entry{Header: resp, Vary: VaryValues(resp, stored)}
	for _, tt := range []struct {
		req  http.Header
		want bool
	}{
		{hdr("Accept-Language", "en,fr", "Accept-Encoding", "gzip"), true},
		{hdr("Accept-Language", "en", "Accept-Language", "fr", "Accept-Encoding", "gzip"), true},
		{hdr("Accept-Language", "de", "Accept-Encoding", "gzip"), false},
		{hdr("Accept-Language", "en, fr"), false},
	} {
		if got := VaryMatches(e, tt.req); got != tt.want {
			t.Errorf("%v: got %v, want %v", tt.req, got, tt.want)
		}
	}
	if VaryMatches(&Entry{Header: hdr("Vary", "*")}, http.Header{}) {
		t.Error("Vary: * matched")
	}
}
