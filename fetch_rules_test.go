package robotsext

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/jarcoal/httpmock"
	"github.com/robotsext/robotsext/internal/lifecycle"
)

// Unit tests of issue 11's smaller fetch rules as the Extension and
// FetchRobots apply them (internal/lifecycle tests the rules themselves),
// against httpmock transports and a hand-moved clock (extension_test.go's
// mock, respond and clock): Cache-Control no-cache, statuses outside
// 100–599, the ReasonUnavailable text, Retry-After capped at an hour,
// custom headers dropped on cross-host robots.txt redirects, and override
// patterns that can never match. Nothing here sleeps.

// fetchWith fetches testRobots with the responder on a fresh mock and the
// clock clk.
func fetchWith(t *testing.T, clk *clock, r httpmock.Responder, opts ...Option) *Robots {
	t.Helper()
	mt, cl := mock()
	mt.RegisterResponder("GET", testRobots, r)
	got, err := FetchRobots(context.Background(), testOrigin, append([]Option{WithHTTPClient(cl), withClock(clk.Now)}, opts...)...)
	if err != nil {
		t.Fatalf("FetchRobots: %v", err)
	}
	return got
}

// lifetimeOf is how long a fetch stays fresh.
func lifetimeOf(r *Robots) time.Duration { return r.Expires.Sub(r.FetchedAt) }

// TestCacheControlNoCacheRevalidates proves the consequence inside the
// Extension: "max-age=3600, no-cache" is revalidated (a conditional
// request with the ETag) once the one-minute floor has passed, not after
// the hour.
func TestCacheControlNoCacheRevalidates(t *testing.T) {
	t.Parallel()
	clk := newClock()
	mt, cl := mock()
	var mu sync.Mutex
	var conditional []string // If-None-Match of each request
	mt.RegisterResponder("GET", testRobots, func(req *http.Request) (*http.Response, error) {
		mu.Lock()
		conditional = append(conditional, req.Header.Get("If-None-Match"))
		mu.Unlock()
		if req.Header.Get("If-None-Match") == `"v1"` {
			return respond(http.StatusNotModified, "", "ETag", `"v1"`, "Cache-Control", "max-age=3600, no-cache")(req)
		}
		return respond(200, testRules, "ETag", `"v1"`, "Cache-Control", "max-age=3600, no-cache")(req)
	})
	ext := Apply(nil, WithHTTPClient(cl), withClock(clk.Now), quiet())
	for _, step := range []struct {
		advance time.Duration
		want    []string
	}{
		{0, []string{""}},                        // first fetch
		{30 * time.Second, []string{""}},         // fresh: no request
		{31 * time.Second, []string{"", `"v1"`}}, // past the floor: revalidated
		{30 * time.Second, []string{"", `"v1"`}}, // the 304 is fresh for another minute
		{31 * time.Second, []string{"", `"v1"`, `"v1"`}},
	} {
		clk.Advance(step.advance)
		v, err := ext.Check(testOrigin + "/private/x")
		if err != nil || v.Allowed {
			t.Fatalf("Check: %+v, %v; want disallowed", v, err)
		}
		mu.Lock()
		got := slices.Clone(conditional)
		mu.Unlock()
		if !slices.Equal(got, step.want) {
			t.Fatalf("after %v: requests with If-None-Match %q, want %q", step.advance, got, step.want)
		}
	}
}

// TestFetchStatusOutsideRange proves that a final status outside 200–599
// that is no redirect and no client error (1xx as a final answer, codes
// from 600 on, codes below 100) is unreachable, with a *StatusError, a
// backoff, and the FailMode deciding.
func TestFetchStatusOutsideRange(t *testing.T) {
	t.Parallel()
	clk := newClock()
	for _, status := range []int{99, 100, 103, 199, 600, 700, 999, 1000} {
		r := fetchWith(t, clk, respond(status, testRules))
		if r.Outcome != OutcomeUnreachable || r.Policy != nil {
			t.Errorf("HTTP %d: outcome %v, want unreachable without a policy", status, r.Outcome)
			continue
		}
		var se *StatusError
		if !errors.As(r.Err, &se) || se.StatusCode != status || se.URL != testRobots || !errors.Is(r.Err, ErrUnreachable) {
			t.Errorf("HTTP %d: Err = %#v, want a *StatusError with the code, wrapping ErrUnreachable", status, r.Err)
		}
		if got := lifetimeOf(r); got != time.Minute {
			t.Errorf("HTTP %d: retried after %v, want the first backoff, a minute", status, got)
		}
		if v := r.Verdict("bot", "/page", FailClosed); v.Allowed || v.Reason != ReasonUnreachable || v.Err != r.Err {
			t.Errorf("HTTP %d, fail-closed: %+v", status, v)
		}
		if v := r.Verdict("bot", "/page", FailOpen); !v.Allowed || v.Reason != ReasonUnreachable {
			t.Errorf("HTTP %d, fail-open: %+v", status, v)
		}
	}
}

// TestReasonUnavailableNamesRedirects proves that ReasonUnavailable is not
// described as a 4xx answer only: a robots.txt that redirected too often
// is reported with a text naming the redirect limit too.
func TestReasonUnavailableNamesRedirects(t *testing.T) {
	t.Parallel()
	text := ReasonUnavailable.String()
	if strings.Contains(text, "(4xx)") || !strings.Contains(text, "redirect") {
		t.Errorf("ReasonUnavailable.String() = %q, want it to name the redirect limit, not only 4xx", text)
	}
	// A redirect loop: more than MaxRedirects hops.
	mt, cl := mock()
	mt.RegisterResponder("GET", testRobots, redirect(testRobots+"?again"))
	mt.RegisterResponder("GET", testRobots+"?again", redirect(testRobots))
	r, err := FetchRobots(context.Background(), testOrigin, WithHTTPClient(cl))
	if err != nil || r.Outcome != OutcomeUnavailable || !errors.Is(r.Err, ErrTooManyRedirects) {
		t.Fatalf("redirect loop: %+v, %v; want unavailable with ErrTooManyRedirects", r, err)
	}
	if v := r.Verdict("bot", "/page", FailClosed); !v.Allowed || v.Reason != ReasonUnavailable || !strings.Contains(v.Reason.String(), "redirect") {
		t.Errorf("redirect loop verdict %+v (%q)", v, v.Reason)
	}
}

// TestRetryAfterCappedAtAnHour proves that Retry-After, as seconds or as a
// date, is capped at one hour, huge numbers (beyond int64 and uint64)
// and far dates alike, and that Robots.RetryAfter reports the value used
// for the backoff, for 503 and 429.
func TestRetryAfterCappedAtAnHour(t *testing.T) {
	t.Parallel()
	clk := newClock()
	date := func(d time.Duration) string { return clk.Now().Add(d).UTC().Format(http.TimeFormat) }
	tests := []struct {
		value string
		want  time.Duration // Robots.RetryAfter; the backoff is this, or the first backoff (a minute) when 0
	}{
		{"120", 2 * time.Minute},
		{"3600", time.Hour},
		{"3601", time.Hour},
		{"86400", time.Hour},
		{"9223372036854775807", time.Hour},        // max int64
		{"18446744073709551615", time.Hour},       // max uint64
		{"99999999999999999999999999", time.Hour}, // beyond uint64
		{date(30 * time.Minute), 30 * time.Minute},
		{date(2 * time.Hour), time.Hour},
		{"Fri, 31 Dec 9999 23:59:59 GMT", time.Hour},
		{date(-time.Hour), 0},
		{"0", 0},
		{"-10", 0},
		{"soon", 0},
	}
	for _, status := range []int{http.StatusServiceUnavailable, http.StatusTooManyRequests} {
		for _, tt := range tests {
			r := fetchWith(t, clk, respond(status, "", "Retry-After", tt.value))
			if r.Outcome != OutcomeUnreachable {
				t.Fatalf("HTTP %d: outcome %v", status, r.Outcome)
			}
			wantBackoff := tt.want
			if wantBackoff == 0 {
				wantBackoff = time.Minute
			}
			if r.RetryAfter != tt.want || lifetimeOf(r) != wantBackoff {
				t.Errorf("HTTP %d, Retry-After %q: RetryAfter %v, retried after %v; want %v and %v",
					status, tt.value, r.RetryAfter, lifetimeOf(r), tt.want, wantBackoff)
			}
		}
	}
}

// keptAcross are the only headers a robots.txt request may carry to
// another host.
var keptAcross = []string{"User-Agent", "Accept", "Accept-Language", "From"}

// credentialHeaders are headers of the test that must stay with the
// origin's host.
var credentialHeaders = []string{"Authorization", "Cookie", "X-Api-Key", "X-Custom-Token"}

// headerRecorder records the headers of each request by URL.
type headerRecorder struct {
	mu   sync.Mutex
	seen map[string]http.Header
}

func (h *headerRecorder) wrap(next httpmock.Responder) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		h.mu.Lock()
		if h.seen == nil {
			h.seen = map[string]http.Header{}
		}
		h.seen[req.URL.String()] = req.Header.Clone()
		h.mu.Unlock()
		return next(req)
	}
}

func (h *headerRecorder) get(u string) (http.Header, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	hd, ok := h.seen[u]
	return hd, ok
}

// checkHeaders asserts which of the test's headers a request carried.
func checkHeaders(t *testing.T, u string, h http.Header, credentials bool) {
	t.Helper()
	for _, k := range keptAcross {
		if h.Get(k) == "" {
			t.Errorf("%s: %s missing; it is kept on every hop", u, k)
		}
	}
	for _, k := range credentialHeaders {
		if got := h.Get(k) != ""; got != credentials {
			t.Errorf("%s: %s present = %v, want %v", u, k, got, credentials)
		}
	}
}

// TestRobotsRedirectDropsCustomHeaders proves that a robots.txt request
// redirected to another host (another name, or the same name on another
// port) carries only User-Agent, Accept, Accept-Language and From there,
// while a same-host hop keeps every header; for WithHeaders (FetchRobots)
// and for a collector's own Headers (the Extension). (A chain that comes
// back to the first host through another one is left out: net/http then
// keeps Authorization and Cookie stripped but the custom headers return
// with the original request's, which is the origin's own host.)
func TestRobotsRedirectDropsCustomHeaders(t *testing.T) {
	t.Parallel()
	all := map[string]string{
		"User-Agent": "HeaderBot/1.0", "Accept": "text/plain", "Accept-Language": "en", "From": "bot@example.test",
		"Authorization": "Bearer secret", "Cookie": "session=1", "X-Api-Key": "k-123", "X-Custom-Token": "t-456",
	}
	const (
		same  = testOrigin + "/moved/robots.txt"
		port  = "http://a.test:8080/robots.txt"
		other = "http://b.test/robots.txt"
	)
	tests := []struct {
		name  string
		hops  []string // the chain after testRobots; the last answers 200
		creds []bool   // whether each hop carries the credentials
	}{
		{"same host", []string{same}, []bool{true}},
		{"another host", []string{other}, []bool{false}},
		{"same name, another port", []string{port}, []bool{false}},
		{"same host, then another", []string{same, other}, []bool{true, false}},
	}
	run := func(t *testing.T, hops []string, creds []bool, fetch func(cl *http.Client) *Robots) {
		t.Helper()
		mt, cl := mock()
		var rec headerRecorder
		chain := append([]string{testRobots}, hops...)
		for i, u := range chain {
			next := respond(200, testRules)
			if i+1 < len(chain) {
				next = redirect(chain[i+1])
			}
			mt.RegisterResponder("GET", u, rec.wrap(next))
		}
		r := fetch(cl)
		if r.Outcome != OutcomeOK || r.FinalURL != chain[len(chain)-1] {
			t.Fatalf("outcome %v, final URL %q, err %v", r.Outcome, r.FinalURL, r.Err)
		}
		h, _ := rec.get(testRobots)
		checkHeaders(t, testRobots, h, true)
		for i, u := range hops {
			h, ok := rec.get(u)
			if !ok {
				t.Fatalf("hop %s not requested", u)
			}
			checkHeaders(t, u, h, creds[i])
		}
	}
	for _, tt := range tests {
		t.Run("WithHeaders/"+tt.name, func(t *testing.T) {
			t.Parallel()
			hdr := http.Header{}
			for k, v := range all {
				hdr.Set(k, v)
			}
			run(t, tt.hops, tt.creds, func(cl *http.Client) *Robots {
				r, err := FetchRobots(context.Background(), testOrigin, WithHTTPClient(cl), WithHeaders(hdr))
				if err != nil {
					t.Fatal(err)
				}
				return r
			})
		})
		t.Run("collector Headers/"+tt.name, func(t *testing.T) {
			t.Parallel()
			run(t, tt.hops, tt.creds, func(cl *http.Client) *Robots {
				c := colly.NewCollector(colly.Headers(all), colly.UserAgent(all["User-Agent"]))
				ext := Apply(c, WithHTTPClient(cl), quiet())
				if _, err := ext.Check(testOrigin + "/page"); err != nil {
					t.Fatal(err)
				}
				en := ext.cache.Peek(lifecycle.Origin{Host: "a.test"})
				if en == nil {
					t.Fatal("robots.txt not cached")
				}
				return robotsOf(en.Robots)
			})
		})
	}
}

// TestOverridePatternsNeverMatchingLogged proves that WithOverride
// patterns that can never match a URL's host (a Unicode name instead of
// punycode, an IPv6 zone ID, "*." before a top-level domain, and the
// like) are logged as ignored, one warning each naming the pattern and
// why, while usable patterns are not.
func TestOverridePatternsNeverMatchingLogged(t *testing.T) {
	t.Parallel()
	bad := map[string]string{ // pattern → a word the reason must contain
		"bücher.example":   "punycode",
		"BÜCHER.example":   "punycode",
		"例え.jp":            "punycode",
		"[fe80::1%25eth0]": "zone",
		"fe80::1%eth0":     "zone",
		"*.com":            "top-level",
		"*.org":            "top-level",
		"*":                "*",
		"shop.*.example":   "*",
		"http://a.test":    "scheme",
		"a.test/path":      "not a host",
	}
	good := []string{"xn--bcher-kva.example", "*.example.org", "[fe80::1]", "shop.example.com:8443"}
	var buf bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var patterns []string
	for p := range bad {
		patterns = append(patterns, p)
	}
	Apply(nil, WithLogger(log), WithOverride(append(patterns, good...)...))

	type record struct{ Msg, Pattern, Why string }
	logged := map[string]string{}
	for line := range strings.Lines(buf.String()) {
		var r record
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if strings.Contains(r.Msg, "ignoring WithOverride pattern") {
			logged[r.Pattern] = r.Why
		}
	}
	for p, word := range bad {
		why, ok := logged[p]
		if !ok {
			t.Errorf("pattern %q not logged as ignored", p)
			continue
		}
		if !strings.Contains(strings.ToLower(why), word) {
			t.Errorf("pattern %q: reason %q does not say %q", p, why, word)
		}
	}
	for _, p := range good {
		if why, ok := logged[p]; ok {
			t.Errorf("usable pattern %q logged as ignored (%s)", p, why)
		}
	}
	if len(logged) != len(bad) {
		t.Errorf("%d patterns logged as ignored, want %d: %v", len(logged), len(bad), logged)
	}
}

// A 304 without caching headers of its own keeps the stored response's
// lifetime (RFC 9111 §4.3.4), rather than falling back to the 24 h
// default.
func TestBare304KeepsStoredLifetime(t *testing.T) {
	t.Parallel()
	clk := newClock()
	mt, cl := mock()
	var calls atomic.Int32
	mt.RegisterResponder("GET", testRobots, func(req *http.Request) (*http.Response, error) {
		if calls.Add(1) == 1 {
			return respond(200, testRules, "ETag", `"v1"`, "Cache-Control", "max-age=600")(req)
		}
		return respond(304, "")(req)
	})
	e := Apply(nil, WithHTTPClient(cl), withClock(clk.Now))
	for _, step := range []struct {
		advance time.Duration
		fetches int32
	}{
		{0, 1},                // fetched, fresh for 10 min
		{11 * time.Minute, 2}, // expired: revalidated, bare 304
		{9 * time.Minute, 2},  // still within the stored 10 min
		{2 * time.Minute, 3},  // expired again: not 24 h
	} {
		clk.Advance(step.advance)
		if v, err := e.Check(testOrigin + "/private"); err != nil || v.Allowed {
			t.Fatalf("after %v: %+v %v", step.advance, v, err)
		}
		if n := calls.Load(); n != step.fetches {
			t.Fatalf("after %v: %d fetches, want %d", step.advance, n, step.fetches)
		}
	}
}
