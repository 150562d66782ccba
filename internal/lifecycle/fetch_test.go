package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/robotsext/robotsext/backend"
)

// Unit tests of the fetch: RFC 9309's outcome table, the freshness
// lifetime, the backoff and the redirect rules, against httpmock
// transports and a hand-moved clock. Nothing here sleeps, and no fetch has
// a timeout but those whose subject is the timeout.

// TestFetchOutcomes classifies every kind of answer (RFC 9309 §2.3.1):
// the outcome, status, redirects and error of each. The fetches have no
// timeout, so that a loaded machine cannot turn a slow redirect chain
// into an unreachable origin; the two rows about a fetch cut short by its
// timeout block until the request's context ends, which the timeout alone
// can do.
func TestFetchOutcomes(t *testing.T) {
	t.Parallel()
	chain := func(mt *httpmock.MockTransport, hops int) {
		for i := 0; i < hops; i++ {
			mt.RegisterResponder("GET", fmt.Sprintf("http://hop%d.test/robots.txt", i), redirect(fmt.Sprintf("http://hop%d.test/robots.txt", i+1)))
		}
		mt.RegisterResponder("GET", fmt.Sprintf("http://hop%d.test/robots.txt", hops), respond(200, testRules))
		mt.RegisterResponder("GET", testRobots, redirect("http://hop0.test/robots.txt"))
	}
	type want struct {
		outcome   backend.Outcome
		status    int
		redirects int
		err       error // Robots.Err must match with errors.Is when set
	}
	ok := func(status, redirects int) want { return want{backend.OutcomeOK, status, redirects, nil} }
	unavailable := func(status, redirects int, err error) want {
		return want{backend.OutcomeUnavailable, status, redirects, err}
	}
	unreachable := func(status, redirects int) want {
		return want{backend.OutcomeUnreachable, status, redirects, errUnreachable}
	}
	tests := []struct {
		name         string
		setup        func(mt *httpmock.MockTransport)
		authDisallow bool
		timeout      time.Duration // only where the timeout is the subject
		want         want
	}{
		{"200", func(mt *httpmock.MockTransport) { mt.RegisterResponder("GET", testRobots, respond(200, testRules)) }, false, 0, ok(200, 0)},
		{"204 empty", func(mt *httpmock.MockTransport) { mt.RegisterResponder("GET", testRobots, respond(204, "")) }, false, 0, ok(204, 0)},
		{"binary body", func(mt *httpmock.MockTransport) {
			mt.RegisterResponder("GET", testRobots, respond(200, "\x00\xff\xfe\x01garbage\n"+testRules))
		}, false, 0, ok(200, 0)},
		{"1 redirect", func(mt *httpmock.MockTransport) { chain(mt, 0) }, false, 0, ok(200, 1)},
		{"5 redirects", func(mt *httpmock.MockTransport) { chain(mt, 4) }, false, 0, ok(200, 5)},
		{"6 redirects", func(mt *httpmock.MockTransport) { chain(mt, 5) }, false, 0, unavailable(301, 5, errTooManyRedirects)},
		{"redirect loop", func(mt *httpmock.MockTransport) { mt.RegisterResponder("GET", testRobots, redirect(testRobots)) }, false, 0,
			unavailable(301, 5, errTooManyRedirects)},
		{"redirect to ftp", func(mt *httpmock.MockTransport) {
			mt.RegisterResponder("GET", testRobots, redirect("ftp://a.test/robots.txt"))
		}, false, 0, unavailable(301, 0, errRedirectNotHTTP)},
		{"3xx without Location", func(mt *httpmock.MockTransport) { mt.RegisterResponder("GET", testRobots, respond(300, "")) }, false, 0,
			unavailable(300, 0, nil)},
		{"304 unasked", func(mt *httpmock.MockTransport) { mt.RegisterResponder("GET", testRobots, respond(304, "")) }, false, 0,
			unavailable(304, 0, nil)},
		{"400", func(mt *httpmock.MockTransport) { mt.RegisterResponder("GET", testRobots, respond(400, testRules)) }, false, 0,
			unavailable(400, 0, nil)},
		{"401", func(mt *httpmock.MockTransport) { mt.RegisterResponder("GET", testRobots, respond(401, "")) }, false, 0,
			unavailable(401, 0, nil)},
		{"403", func(mt *httpmock.MockTransport) { mt.RegisterResponder("GET", testRobots, respond(403, "")) }, false, 0,
			unavailable(403, 0, nil)},
		{"401 disallow-all option", func(mt *httpmock.MockTransport) { mt.RegisterResponder("GET", testRobots, respond(401, "")) }, true, 0,
			want{backend.OutcomeUnauthorized, 401, 0, nil}},
		{"403 disallow-all option", func(mt *httpmock.MockTransport) { mt.RegisterResponder("GET", testRobots, respond(403, "")) }, true, 0,
			want{backend.OutcomeUnauthorized, 403, 0, nil}},
		{"404 disallow-all option", func(mt *httpmock.MockTransport) { mt.RegisterResponder("GET", testRobots, respond(404, "")) }, true, 0,
			unavailable(404, 0, nil)},
		{"404", func(mt *httpmock.MockTransport) { mt.RegisterResponder("GET", testRobots, respond(404, "")) }, false, 0, unavailable(404, 0, nil)},
		{"410", func(mt *httpmock.MockTransport) { mt.RegisterResponder("GET", testRobots, respond(410, "")) }, false, 0, unavailable(410, 0, nil)},
		{"429", func(mt *httpmock.MockTransport) { mt.RegisterResponder("GET", testRobots, respond(429, "")) }, false, 0, unreachable(429, 0)},
		{"500", func(mt *httpmock.MockTransport) { mt.RegisterResponder("GET", testRobots, respond(500, testRules)) }, false, 0, unreachable(500, 0)},
		{"503", func(mt *httpmock.MockTransport) { mt.RegisterResponder("GET", testRobots, respond(503, "")) }, false, 0, unreachable(503, 0)},
		{"network error", func(mt *httpmock.MockTransport) {
			mt.RegisterResponder("GET", testRobots, httpmock.ConnectionFailure)
		}, false, 0, unreachable(0, 0)},
		{"timeout", func(mt *httpmock.MockTransport) { mt.RegisterResponder("GET", testRobots, waitForCancel) }, false, time.Millisecond,
			unreachable(0, 0)},
		{"stall mid-body", func(mt *httpmock.MockTransport) {
			mt.RegisterResponder("GET", testRobots, func(req *http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: 200, Header: http.Header{}, Request: req,
					Body: &stallBody{ctx: req.Context(), data: []byte(testRules)}}, nil
			})
		}, false, time.Second, unreachable(200, 0)}, // the headers come at once; the body stalls until the timeout ends it
		{"redirect to 503", func(mt *httpmock.MockTransport) {
			mt.RegisterResponder("GET", testRobots, redirect("http://b.test/robots.txt"))
			mt.RegisterResponder("GET", "http://b.test/robots.txt", respond(503, ""))
		}, false, 0, unreachable(503, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mt, cl := mock()
			tt.setup(mt)
			clk := newClock()
			cfg := fetcherConfig(cl, clk)
			cfg.Timeout, cfg.AuthDisallow = tt.timeout, tt.authDisallow
			r := fetch(t, cfg)
			if r.Outcome != tt.want.outcome || r.Status != tt.want.status || r.Redirects != tt.want.redirects {
				t.Errorf("outcome %v status %d redirects %d, want %v %d %d (err %v)", r.Outcome, r.Status, r.Redirects,
					tt.want.outcome, tt.want.status, tt.want.redirects, r.Err)
			}
			if tt.want.err != nil && !errors.Is(r.Err, tt.want.err) {
				t.Errorf("Err = %v, want %v", r.Err, tt.want.err)
			}
			if (r.Err != nil) != (tt.want.err != nil) {
				t.Errorf("Err = %v; want an error exactly for unreachable answers and refused redirects", r.Err)
			}
			if (r.Policy != nil) != (r.Outcome == backend.OutcomeOK) {
				t.Errorf("Policy %v with outcome %v", r.Policy, r.Outcome)
			}
			if r.URL != testRobots || !r.FetchedAt.Equal(clk.Now()) || !r.Expires.After(r.FetchedAt) {
				t.Errorf("URL %q fetched at %v, expires %v", r.URL, r.FetchedAt, r.Expires)
			}
			var se *statusError
			if isStatus := errors.As(r.Err, &se); isStatus != (r.Outcome == backend.OutcomeUnreachable && r.Status >= 300) ||
				(isStatus && (se.code != r.Status || se.url != testRobots)) {
				t.Errorf("Err = %#v; want Errors.Status's error exactly for an unreachable status", r.Err)
			}
		})
	}
}

// TestFetchCacheControlMostRestrictive proves that of several
// Cache-Control directives (in one header or several) the most
// restrictive decides: no-cache or no-store anywhere means revalidate
// (the one-minute floor), max-age values that disagree make the answer
// stale (the floor; RFC 9111 §4.2.1), and max-age wins over Expires.
func TestFetchCacheControlMostRestrictive(t *testing.T) {
	t.Parallel()
	clk := newClock()
	far := clk.Now().Add(12 * time.Hour).Format(http.TimeFormat)
	tests := []struct {
		name    string
		headers []string // key, value pairs; a key may repeat
		want    time.Duration
	}{
		{"max-age then no-cache", []string{"Cache-Control", "max-age=3600, no-cache"}, minLifetime},
		{"no-cache then max-age", []string{"Cache-Control", "no-cache, max-age=3600"}, minLifetime},
		{"no-store among others", []string{"Cache-Control", "public, max-age=3600, no-store"}, minLifetime},
		{"no-cache in a second header", []string{"Cache-Control", "max-age=3600", "Cache-Control", "no-cache"}, minLifetime},
		{"disagreeing max-age in one header", []string{"Cache-Control", "max-age=7200, max-age=600"}, minLifetime},
		{"disagreeing max-age across headers", []string{"Cache-Control", "max-age=7200", "Cache-Control", "max-age=900"}, minLifetime},
		{"agreeing max-age across headers", []string{"Cache-Control", "max-age=900", "Cache-Control", "max-age=900"}, 900 * time.Second},
		{"quoted, upper case, agreeing", []string{"Cache-Control", `MAX-AGE="1200", max-age=1200`}, 1200 * time.Second},
		{"an invalid max-age beside a valid one", []string{"Cache-Control", "max-age=soon, max-age=1800"}, minLifetime},
		{"max-age wins over a later Expires", []string{"Cache-Control", "max-age=600", "Expires", far}, 600 * time.Second},
		{"no-cache wins over Expires", []string{"Cache-Control", "no-cache", "Expires", far}, minLifetime},
		{"one max-age alone", []string{"Cache-Control", "max-age=7200"}, 2 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mt, cl := mock()
			mt.RegisterResponder("GET", testRobots, respond(200, testRules, tt.headers...))
			r := fetch(t, fetcherConfig(cl, clk))
			if r.Outcome != backend.OutcomeOK {
				t.Fatalf("outcome %v", r.Outcome)
			}
			if got := lifetimeOf(r); got != tt.want {
				t.Errorf("%q: fresh for %v, want %v", tt.headers, got, tt.want)
			}
		})
	}
}

// TestFetchFreshnessMalformed decides every malformed freshness form we
// know of as RFC 9111 reads it (issue 31, item 6): invalid freshness
// information is stale, so the answer gets the one-minute floor rather
// than the 24-hour default it got before (max-age=-1 was cached 24 h);
// a value too large to represent is valid and capped at MaxTTL;
// s-maxage concerns shared caches only and is ignored. Each case runs
// with a TTL of 3 h so that "no lifetime stated" (3 h) cannot be
// mistaken for the cap (24 h) or the floor (1 min). Hand-moved clock.
func TestFetchFreshnessMalformed(t *testing.T) {
	t.Parallel()
	clk := newClock()
	const ttl, maxTTL = 3 * time.Hour, 24 * time.Hour
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
		{"huge", []string{"Cache-Control", "max-age=99999999999999999999999"}, maxTTL},
		{"2^31", []string{"Cache-Control", "max-age=2147483648"}, maxTTL},
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
		{"Expires beyond the cap", []string{"Expires", clk.Now().Add(72 * time.Hour).Format(http.TimeFormat), "Date", date}, maxTTL},
		{"Expires duplicates agree", []string{"Expires", in2h, "Expires", in2h, "Date", date}, 2 * time.Hour},
		{"Expires duplicates disagree", []string{"Expires", in2h, "Expires", in5h, "Date", date}, minLifetime},
		{"Expires valid then invalid", []string{"Expires", in2h, "Expires", "never", "Date", date}, minLifetime},
		{"nothing stated", nil, ttl},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mt, cl := mock()
			mt.RegisterResponder("GET", testRobots, respond(200, testRules, tt.headers...))
			cfg := fetcherConfig(cl, clk)
			cfg.TTL, cfg.MaxTTL = ttl, maxTTL
			r := fetch(t, cfg)
			if r.Outcome != backend.OutcomeOK {
				t.Fatalf("outcome %v", r.Outcome)
			}
			if got := lifetimeOf(r); got != tt.want {
				t.Errorf("%q: fresh for %v, want %v", tt.headers, got, tt.want)
			}
		})
	}
}

// TestFetchBackoff proves the wait before an unreachable origin is tried
// again: the first backoff doubles with each failure in a row up to
// backend.MaxBackoff, and a Retry-After replaces it, capped there too.
// The statuses outside 100–599 that are no redirect and no client error
// are unreachable too, with Errors.Status's error.
func TestFetchBackoff(t *testing.T) {
	t.Parallel()
	clk := newClock()
	for _, tt := range []struct {
		status     int
		retryAfter string
		failures   int
		want       time.Duration
	}{
		{503, "", 1, minBackoff},
		{503, "", 2, 2 * minBackoff},
		{503, "", 4, 8 * minBackoff},
		{503, "", 100, backend.MaxBackoff},
		{429, "120", 1, 2 * time.Minute},
		{429, "120", 5, 2 * time.Minute},
		{503, "86400", 1, backend.MaxBackoff},
		{503, "0", 3, 4 * minBackoff},
		{99, "", 1, minBackoff},
		{103, "", 1, minBackoff},
		{600, "", 1, minBackoff},
		{1000, "", 1, minBackoff},
	} {
		mt, cl := mock()
		mt.RegisterResponder("GET", testRobots, respond(tt.status, testRules, "Retry-After", tt.retryAfter))
		f := NewFetcher(fetcherConfig(cl, clk))
		r, err := f.Fetch(context.Background(), testHost, RequestHeader(nil), nil, tt.failures)
		if err != nil {
			t.Fatal(err)
		}
		var se *statusError
		if r.Outcome != backend.OutcomeUnreachable || r.Policy != nil || !errors.As(r.Err, &se) || se.code != tt.status {
			t.Errorf("HTTP %d: outcome %v, Err %v; want unreachable, no policy, the status error", tt.status, r.Outcome, r.Err)
		}
		if got := lifetimeOf(r); got != tt.want {
			t.Errorf("HTTP %d, Retry-After %q, failure %d: tried again after %v, want %v", tt.status, tt.retryAfter, tt.failures, got, tt.want)
		}
		if want := min(tt.want, backend.MaxBackoff); tt.retryAfter != "" && tt.retryAfter != "0" && r.RetryAfter != want {
			t.Errorf("HTTP %d, Retry-After %q: RetryAfter %v, want %v", tt.status, tt.retryAfter, r.RetryAfter, want)
		}
	}
}

// TestFetchRevalidation proves the conditional request: a good copy's
// validators are sent, a 304 keeps its policy (and, without caching
// headers of its own, its lifetime: RFC 9111 §4.3.4) and takes new
// validators when it gives them, and a 304 to a request that was not
// conditional is no answer to use.
func TestFetchRevalidation(t *testing.T) {
	t.Parallel()
	clk := newClock()
	mt, cl := mock()
	var sent http.Header
	mt.RegisterResponder("GET", testRobots, func(req *http.Request) (*http.Response, error) {
		sent = req.Header.Clone()
		if req.Header.Get("If-None-Match") == `"v1"` {
			return respond(304, "", "ETag", `"v2"`)(req)
		}
		return respond(200, testRules, "ETag", `"v1"`, "Last-Modified", "Sat, 01 Mar 2025 10:00:00 GMT", "Cache-Control", "max-age=600")(req)
	})
	f := NewFetcher(fetcherConfig(cl, clk))
	good, err := f.Fetch(context.Background(), testHost, RequestHeader(nil), nil, 1)
	if err != nil || good.Outcome != backend.OutcomeOK || lifetimeOf(good) != 10*time.Minute {
		t.Fatalf("first fetch: %+v, %v", good, err)
	}
	if sent.Get("If-None-Match") != "" {
		t.Errorf("first fetch sent If-None-Match %q", sent.Get("If-None-Match"))
	}
	clk.Advance(11 * time.Minute)
	r, err := f.Fetch(context.Background(), testHost, RequestHeader(nil), good, 1)
	if err != nil {
		t.Fatal(err)
	}
	if sent.Get("If-None-Match") != `"v1"` || sent.Get("If-Modified-Since") != good.LastModified {
		t.Errorf("revalidation sent If-None-Match %q, If-Modified-Since %q", sent.Get("If-None-Match"), sent.Get("If-Modified-Since"))
	}
	if !r.NotModified || r.Outcome != backend.OutcomeOK || r.Policy != good.Policy || r.ETag != `"v2"` ||
		r.LastModified != good.LastModified || lifetimeOf(r) != 10*time.Minute || r.Size != good.Size {
		t.Errorf("304: %+v; want the good copy's policy, size and lifetime with the new ETag", r)
	}
}

// TestRedirectKeepsHeadersToTheirHost proves the header rule of a
// redirect: to another host (another name, or the same name on another
// port) a robots.txt request carries only User-Agent, Accept,
// Accept-Language and From, while a same-host hop keeps every header.
func TestRedirectKeepsHeadersToTheirHost(t *testing.T) {
	t.Parallel()
	all := http.Header{}
	for k, v := range map[string]string{
		"User-Agent": "HeaderBot/1.0", "Accept": "text/plain", "Accept-Language": "en", "From": "bot@example.test",
		"Authorization": "Bearer secret", "Cookie": "session=1", "X-Api-Key": "k-123",
	} {
		all.Set(k, v)
	}
	for _, tt := range []struct {
		to   string
		kept int // how many of the headers reach the hop
	}{
		{testOrigin + "/moved/robots.txt", 7},
		{"http://a.test:8080/robots.txt", 4},
		{"http://b.test/robots.txt", 4},
	} {
		mt, cl := mock()
		mt.RegisterResponder("GET", testRobots, redirect(tt.to))
		var got http.Header
		mt.RegisterResponder("GET", tt.to, func(req *http.Request) (*http.Response, error) {
			got = req.Header.Clone()
			return respond(200, testRules)(req)
		})
		f := NewFetcher(fetcherConfig(cl, newClock()))
		r, err := f.Fetch(context.Background(), testHost, RequestHeader(all), nil, 1)
		if err != nil || r.Outcome != backend.OutcomeOK {
			t.Fatalf("%s: %+v %v", tt.to, r, err)
		}
		n := 0
		for k := range all {
			if got.Get(k) != "" {
				n++
			}
		}
		if n != tt.kept || got.Get("User-Agent") == "" {
			t.Errorf("%s: %d of the headers arrived (%v), want %d", tt.to, n, got, tt.kept)
		}
	}
}

// TestRequestHeaderDropsManaged proves that the headers the fetch sets
// itself are not taken from the caller, in any spelling.
func TestRequestHeaderDropsManaged(t *testing.T) {
	t.Parallel()
	h := http.Header{"If-None-Match": {`"x"`}, "Range": {"bytes=0-1"}, "User-Agent": {"bot"}}
	h.Set("accept-encoding", "gzip")
	got := RequestHeader(h)
	if len(got) != 1 || got.Get("User-Agent") != "bot" {
		t.Errorf("RequestHeader = %v, want the User-Agent alone", got)
	}
	if len(h) != 4 {
		t.Errorf("RequestHeader changed its argument: %v", h)
	}
	for _, k := range []string{"if-none-match", "Content-Type", "RANGE"} {
		if !Managed(k) {
			t.Errorf("Managed(%q) = false", k)
		}
	}
	if Managed("User-Agent") || Managed("Authorization") {
		t.Error("Managed of a header the caller sets")
	}
	if RequestHeader(nil) == nil {
		t.Error("RequestHeader(nil) = nil")
	}
}

// TestFetchBodyCut proves that a body longer than MaxBodySize is cut at
// the last full line within it, and reported as truncated.
func TestFetchBodyCut(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("Disallow: /x\n", 10) + "Disallow: /cut-here"
	for _, tt := range []struct {
		limit     int
		size      int
		truncated bool
	}{
		{len(body), len(body), false},
		{len(body) - 1, 130, true},
		{13, 13, true},
		{12, 0, true},
	} {
		mt, cl := mock()
		mt.RegisterResponder("GET", testRobots, respond(200, body))
		cfg := fetcherConfig(cl, newClock())
		cfg.MaxBodySize, cfg.KeepBody = tt.limit, true
		r := fetch(t, cfg)
		if r.Size != tt.size || r.Truncated != tt.truncated || len(r.Body) != tt.size {
			t.Errorf("limit %d: size %d truncated %v body %d bytes; want %d, %v", tt.limit, r.Size, r.Truncated, len(r.Body), tt.size, tt.truncated)
		}
	}
}

// TestFetchContextEnds proves that a fetch whose caller's context ends
// returns the context's error, not an answer to cache against the origin.
func TestFetchContextEnds(t *testing.T) {
	t.Parallel()
	mt, cl := mock()
	ctx, cancel := context.WithCancel(context.Background())
	mt.RegisterResponder("GET", testRobots, func(req *http.Request) (*http.Response, error) {
		cancel()
		return waitForCancel(req)
	})
	f := NewFetcher(fetcherConfig(cl, newClock()))
	if r, err := f.Fetch(ctx, testHost, RequestHeader(nil), nil, 1); r != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("Fetch = %+v, %v; want the context's error", r, err)
	}
}

// roundTripFunc is an http.RoundTripper of one func.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// TestFetchTransportAndIsLocal proves that FetcherConfig.Transport wraps
// the client's transport, and that an error IsLocal names (a request
// that could not be signed) is this machine's: the fetch fails with
// Errors.Local instead of making the origin unreachable.
func TestFetchTransportAndIsLocal(t *testing.T) {
	t.Parallel()
	const errUnsigned failure = "test: not signed"
	mt, cl := mock()
	mt.RegisterResponder("GET", testRobots, respond(200, testRules))
	cfg := fetcherConfig(cl, newClock())
	cfg.Transport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if req.Header.Get("Signature") == "" {
				return nil, errUnsigned
			}
			return rt.RoundTrip(req)
		})
	}
	cfg.IsLocal = func(err error) bool { return errors.Is(err, errUnsigned) }
	f := NewFetcher(cfg)
	_, err := f.Fetch(context.Background(), testHost, RequestHeader(nil), nil, 1)
	if !errors.Is(err, errLocal) || !errors.Is(err, errUnsigned) {
		t.Errorf("unsigned: %v; want Errors.Local and the cause", err)
	}
	r, err := f.Fetch(context.Background(), testHost, RequestHeader(http.Header{"Signature": {"sig1"}}), nil, 1)
	if err != nil || r.Outcome != backend.OutcomeOK {
		t.Errorf("signed: %+v %v", r, err)
	}
}

// TestBodyReadLimit proves that readBody stops reading one byte past the
// limit, however long the body.
func TestBodyReadLimit(t *testing.T) {
	t.Parallel()
	const limit = 500 << 10
	r := &countingReader{r: io.LimitReader(zeroes{}, 10*limit)}
	b, truncated, err := readBody(r, limit, -1)
	if err != nil || !truncated || len(b) != 0 || r.n > limit+1+32*1024 {
		t.Errorf("read %d bytes, kept %d, truncated %v, %v", r.n, len(b), truncated, err)
	}
}

// zeroes is an endless body of NUL bytes: no line end to cut at.
type zeroes struct{}

func (zeroes) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}
