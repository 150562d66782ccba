package robotsext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/robotsext/robotsext/internal/mockhttp"
)

// Unit tests of the robots.txt fetch, the outcome table and the cache,
// against httpmock transports (one per test, never the global one) and a
// hand-moved clock. Nothing here sleeps.

const (
	testOrigin = "http://a.test"
	testRobots = testOrigin + "/robots.txt"
	testRules  = "User-agent: *\nDisallow: /private\n"
)

// The tests' settable clock and HTTP mocks are internal/mockhttp's.
type clock = mockhttp.Clock

var (
	newClock      = mockhttp.NewClock
	mock          = mockhttp.Mock
	respond       = mockhttp.Respond
	redirect      = mockhttp.Redirect
	waitForCancel = mockhttp.WaitForCancel
)

// TestOutcomeVerdicts proves RFC 9309's outcome table (§2.3.1) as the
// public API applies it, one answer of each outcome: what FetchRobots
// reports (with the package's errors), what Robots.Verdict then decides
// for /private under FailClosed and FailOpen, and that the Extension
// decides the same. Every answer is a single response, so no fetch comes
// near its timeout; internal/lifecycle's TestFetchOutcomes classifies
// every kind of answer (redirect chains, timeouts, bodies cut short).
func TestOutcomeVerdicts(t *testing.T) {
	t.Parallel()
	type want struct {
		outcome      Outcome
		status       int
		closed, open Verdict
		err          error // Robots.Err must match with errors.Is when set
	}
	ruled := Verdict{Allowed: false, Reason: ReasonDisallowRule, Line: 2, Rule: "/private"}
	unavailable := Verdict{Allowed: true, Reason: ReasonUnavailable}
	unreachable := want{outcome: OutcomeUnreachable, closed: Verdict{Reason: ReasonUnreachable}, open: Verdict{Allowed: true, Reason: ReasonUnreachable}, err: ErrUnreachable}
	withStatus := func(w want, s int) want { w.status = s; return w }
	tests := []struct {
		name         string
		responder    httpmock.Responder
		authDisallow bool
		want         want
	}{
		{"200", respond(200, testRules), false, want{outcome: OutcomeOK, status: 200, closed: ruled, open: ruled}},
		{"204 empty", respond(204, ""), false, want{outcome: OutcomeOK, status: 204, closed: Verdict{Allowed: true}, open: Verdict{Allowed: true}}},
		{"redirect to ftp", redirect("ftp://a.test/robots.txt"), false,
			want{outcome: OutcomeUnavailable, status: 301, closed: unavailable, open: unavailable, err: ErrRedirectNotHTTP}},
		{"404", respond(404, ""), false, want{outcome: OutcomeUnavailable, status: 404, closed: unavailable, open: unavailable}},
		{"401", respond(401, ""), false, want{outcome: OutcomeUnavailable, status: 401, closed: unavailable, open: unavailable}},
		{"401 disallow-all option", respond(401, ""), true,
			want{outcome: OutcomeUnauthorized, status: 401, closed: Verdict{Reason: ReasonUnauthorized}, open: Verdict{Reason: ReasonUnauthorized}}},
		{"429", respond(429, ""), false, withStatus(unreachable, 429)},
		{"503", respond(503, ""), false, withStatus(unreachable, 503)},
		{"network error", httpmock.ConnectionFailure, false, unreachable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mt, cl := mock()
			mt.RegisterResponder("GET", testRobots, tt.responder)
			opts := []Option{WithHTTPClient(cl), quiet()}
			if tt.authDisallow {
				opts = append(opts, WithUnauthorizedDisallowAll())
			}
			r, err := FetchRobots(context.Background(), testOrigin+"/page", opts...)
			if err != nil {
				t.Fatalf("FetchRobots: %v", err)
			}
			if r.Outcome != tt.want.outcome || r.Status != tt.want.status {
				t.Errorf("outcome %v status %d, want %v %d (err %v)", r.Outcome, r.Status, tt.want.outcome, tt.want.status, r.Err)
			}
			if tt.want.err != nil && !errors.Is(r.Err, tt.want.err) {
				t.Errorf("Err = %v, want %v", r.Err, tt.want.err)
			}
			var se *StatusError
			if errors.As(r.Err, &se) != (tt.want.status >= 429 && tt.want.outcome == OutcomeUnreachable) {
				t.Errorf("Err = %#v; want a *StatusError exactly for 429 and 5xx", r.Err)
			}
			if (r.Policy != nil) != (r.Outcome == OutcomeOK) {
				t.Errorf("Policy %v with outcome %v", r.Policy, r.Outcome)
			}
			for _, m := range []struct {
				mode FailMode
				want Verdict
			}{{FailClosed, tt.want.closed}, {FailOpen, tt.want.open}} {
				// Verdict.Err carries the fetch's error exactly when
				// the outcome is unreachable.
				want := m.want
				if want.Reason == ReasonUnreachable {
					want.Err = r.Err
					if !want.Allowed {
						want.RetryAt = r.Expires // the next attempt
					}
				}
				if got := r.Verdict("TestBot", testOrigin+"/private", m.mode); got != want {
					t.Errorf("%v: Robots.Verdict = %+v, want %+v", m.mode, got, want)
				}
				// The Extension applies the same table.
				e := Apply(nil, append(opts, WithFailMode(m.mode), WithUserAgent("TestBot"))...)
				got, err := e.Check(testOrigin + "/private")
				if want.Reason == ReasonUnreachable && (got.Err == nil || got.Err.Error() != r.Err.Error()) {
					t.Errorf("%v: Extension.Check Err = %v, want %v", m.mode, got.Err, r.Err)
				}
				if refused := got.Reason == ReasonUnreachable && !got.Allowed; refused == got.RetryAt.IsZero() {
					t.Errorf("%v: Extension.Check RetryAt = %v; want the next attempt exactly when refused as unreachable", m.mode, got.RetryAt)
				}
				got.Err, got.RetryAt = nil, time.Time{}
				if err != nil || got != m.want {
					t.Errorf("%v: Extension.Check = %+v, %v; want %+v", m.mode, got, err, m.want)
				}
				if got, _ := e.Check(testRobots); !got.Allowed || got.Reason != ReasonRobotsTxt {
					t.Errorf("%v: /robots.txt itself: %+v", m.mode, got)
				}
			}
		})
	}
}

func TestFetchOversizeBody(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("User-agent: *\nDisallow: /early\n")
	for b.Len() < MaxBodySize-40 {
		b.WriteString("# filler filler filler filler filler\n")
	}
	cut := "Disallow: /cut" + strings.Repeat("x", 100) + "\n" // crosses the limit
	b.WriteString(cut)
	b.WriteString("Disallow: /late\n")
	body := b.String()
	if len(body) <= MaxBodySize || len(body)-len(cut)-len("Disallow: /late\n") >= MaxBodySize {
		t.Fatalf("test body does not straddle the limit: %d", len(body))
	}
	mt, cl := mock()
	mt.RegisterResponder("GET", testRobots, respond(200, body))
	r, err := FetchRobots(context.Background(), testOrigin, WithHTTPClient(cl))
	if err != nil || r.Outcome != OutcomeOK {
		t.Fatalf("FetchRobots: %+v, %v", r, err)
	}
	if !r.Truncated || r.Size > MaxBodySize || r.Size != len(body)-len(cut)-len("Disallow: /late\n") {
		t.Errorf("Truncated %v Size %d, want true and the body up to the cut line", r.Truncated, r.Size)
	}
	for path, allowed := range map[string]bool{"/early": false, "/cut": true, "/cutxxx": true, "/late": true} {
		if v := r.Verdict("bot", path, FailClosed); v.Allowed != allowed {
			t.Errorf("%s: %+v, want allowed=%v", path, v, allowed)
		}
	}

	// One huge line and nothing else: all of it is dropped.
	mt.RegisterResponder("GET", "http://huge.test/robots.txt", respond(200, "Disallow: /"+strings.Repeat("a", MaxBodySize)))
	r, _ = FetchRobots(context.Background(), "http://huge.test/", WithHTTPClient(cl))
	if !r.Truncated || r.Size != 0 || !r.Verdict("bot", "/a", FailClosed).Allowed {
		t.Errorf("single huge line: %+v", r)
	}
}

func TestFetchLifetime(t *testing.T) {
	t.Parallel()
	clk := newClock()
	date := clk.Now().Format(http.TimeFormat)
	in := func(d time.Duration) string { return clk.Now().Add(d).Format(http.TimeFormat) }
	tests := []struct {
		name    string
		headers []string
		opts    []Option
		want    time.Duration
	}{
		{"default TTL", nil, nil, 24 * time.Hour},
		{"WithCacheTTL", nil, []Option{WithCacheTTL(2 * time.Hour)}, 2 * time.Hour},
		{"WithCacheTTL capped", nil, []Option{WithCacheTTL(48 * time.Hour)}, 24 * time.Hour},
		{"max-age", []string{"Cache-Control", "public, max-age=3600"}, nil, time.Hour},
		{"max-age beats TTL", []string{"Cache-Control", "max-age=7200"}, []Option{WithCacheTTL(time.Hour)}, 2 * time.Hour},
		{"max-age capped", []string{"Cache-Control", "max-age=172800"}, nil, 24 * time.Hour},
		{"max-age less Age", []string{"Cache-Control", "max-age=3600", "Age", "600"}, nil, 50 * time.Minute},
		{"max-age beats Expires", []string{"Cache-Control", "max-age=600", "Expires", in(5 * time.Hour), "Date", date}, nil, 10 * time.Minute},
		{"Expires against Date", []string{"Expires", in(3 * time.Hour), "Date", date}, nil, 3 * time.Hour},
		{"Expires capped", []string{"Expires", in(72 * time.Hour), "Date", date}, nil, 24 * time.Hour},
		{"invalid Expires", []string{"Expires", "0"}, nil, time.Minute},
		{"no-cache floor", []string{"Cache-Control", "no-cache"}, nil, time.Minute},
		{"max-age=0 floor", []string{"Cache-Control", "max-age=0"}, nil, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mt, cl := mock()
			mt.RegisterResponder("GET", testRobots, respond(200, testRules, tt.headers...))
			r, err := FetchRobots(context.Background(), testOrigin, append(tt.opts, WithHTTPClient(cl), withClock(clk.Now))...)
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Expires.Sub(r.FetchedAt); got != tt.want {
				t.Errorf("lifetime %v, want %v", got, tt.want)
			}
		})
	}
	// A 4xx answer is cached for the same lifetime.
	mt, cl := mock()
	mt.RegisterResponder("GET", testRobots, respond(404, "", "Cache-Control", "max-age=900"))
	r, _ := FetchRobots(context.Background(), testOrigin, WithHTTPClient(cl), withClock(clk.Now))
	if got := r.Expires.Sub(r.FetchedAt); got != 15*time.Minute {
		t.Errorf("404 lifetime %v", got)
	}
}

func TestRetryAfterAndBackoff(t *testing.T) {
	t.Parallel()
	clk := newClock()
	tests := []struct {
		name    string
		status  int
		headers []string
		want    time.Duration
	}{
		{"503 seconds", 503, []string{"Retry-After", "120"}, 2 * time.Minute},
		{"429 date", 429, []string{"Retry-After", clk.Now().Add(10 * time.Minute).Format(http.TimeFormat)}, 10 * time.Minute},
		{"Retry-After capped", 503, []string{"Retry-After", "86400"}, time.Hour},
		{"Retry-After garbage", 503, []string{"Retry-After", "soon"}, time.Minute},
		{"no Retry-After", 500, nil, time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mt, cl := mock()
			mt.RegisterResponder("GET", testRobots, respond(tt.status, "", tt.headers...))
			r, _ := FetchRobots(context.Background(), testOrigin, WithHTTPClient(cl), withClock(clk.Now))
			if got := r.Expires.Sub(r.FetchedAt); r.Outcome != OutcomeUnreachable || got != tt.want {
				t.Errorf("%v, retry after %v; want unreachable, %v", r.Outcome, got, tt.want)
			}
		})
	}

	// Through the Extension: an unreachable origin is not fetched again
	// before its backoff ends, and the backoff doubles up to the cap.
	t.Run("extension", func(t *testing.T) {
		t.Parallel()
		clk := newClock()
		mt, cl := mock()
		mt.RegisterResponder("GET", testRobots, respond(503, ""))
		e := Apply(nil, WithHTTPClient(cl), withClock(clk.Now))
		want := []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 16 * time.Minute, 32 * time.Minute, time.Hour, time.Hour}
		for i, d := range want {
			v, err := e.Check(testOrigin + "/x")
			if err != nil || v.Allowed || v.Reason != ReasonUnreachable {
				t.Fatalf("failure %d: %+v, %v", i+1, v, err)
			}
			if n := mt.GetTotalCallCount(); n != i+1 {
				t.Fatalf("after failure %d: %d fetches", i+1, n)
			}
			clk.Advance(d - time.Second)
			e.Check(testOrigin + "/x")
			if n := mt.GetTotalCallCount(); n != i+1 {
				t.Fatalf("fetched again %v into a %v backoff", d-time.Second, d)
			}
			clk.Advance(time.Second)
		}
		// Recovery: the next fetch succeeds and is obeyed.
		mt.RegisterResponder("GET", testRobots, respond(200, testRules))
		if v, _ := e.Check(testOrigin + "/x"); !v.Allowed || v.Reason != ReasonNoMatch {
			t.Errorf("after recovery: %+v", v)
		}
		s := e.Stats()
		if s.Fetches[OutcomeUnreachable] != uint64(len(want)) || s.Fetches[OutcomeOK] != 1 {
			t.Errorf("Fetches %v", s.Fetches)
		}
	})
}

func TestRevalidation(t *testing.T) {
	t.Parallel()
	clk := newClock()
	mt, cl := mock()
	var got []http.Header
	var mu sync.Mutex
	mt.RegisterResponder("GET", testRobots, func(req *http.Request) (*http.Response, error) {
		mu.Lock()
		got = append(got, req.Header.Clone())
		n := len(got)
		mu.Unlock()
		if n == 1 {
			return respond(200, testRules, "ETag", `"v1"`, "Last-Modified", "Sat, 01 Mar 2025 00:00:00 GMT", "Cache-Control", "max-age=3600")(req)
		}
		if req.Header.Get("If-None-Match") == `"v1"` {
			return respond(304, "", "ETag", `"v1"`, "Cache-Control", "max-age=7200")(req)
		}
		return respond(200, "User-agent: *\nDisallow: /\n")(req)
	})
	e := Apply(nil, WithHTTPClient(cl), withClock(clk.Now))
	check := func(path string, allowed bool) {
		t.Helper()
		if v, err := e.Check(testOrigin + path); err != nil || v.Allowed != allowed {
			t.Fatalf("%s: %+v, %v; want allowed=%v", path, v, err, allowed)
		}
	}
	check("/private", false)
	check("/public", true)
	clk.Advance(59 * time.Minute)
	check("/private", false)
	if n := mt.GetTotalCallCount(); n != 1 {
		t.Fatalf("%d fetches within max-age", n)
	}
	clk.Advance(2 * time.Minute)
	check("/private", false) // revalidated: 304 keeps the rules
	if n := mt.GetTotalCallCount(); n != 2 {
		t.Fatalf("%d fetches after expiry", n)
	}
	h := got[1]
	if h.Get("If-None-Match") != `"v1"` || h.Get("If-Modified-Since") != "Sat, 01 Mar 2025 00:00:00 GMT" {
		t.Errorf("revalidation headers: %v", h)
	}
	if got[0].Get("If-None-Match") != "" {
		t.Errorf("first fetch was conditional: %v", got[0])
	}
	// The 304's own max-age sets the new lifetime.
	clk.Advance(119 * time.Minute)
	check("/public", true)
	if n := mt.GetTotalCallCount(); n != 2 {
		t.Fatalf("%d fetches within the 304's max-age", n)
	}
	s := e.Stats()
	if s.NotModified != 1 || s.Fetches[OutcomeOK] != 2 || s.CacheMisses != 2 || s.CacheHits != 3 {
		t.Errorf("stats %+v", s)
	}
}

func TestStaleCopyWhileUnreachable(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	mt, cl := mock()
	var healthy atomic.Bool
	healthy.Store(true)
	mt.RegisterResponder("GET", testRobots, func(req *http.Request) (*http.Response, error) {
		if healthy.Load() {
			return respond(200, testRules, "Cache-Control", "max-age=3600")(req)
		}
		return respond(503, "")(req)
	})
	for _, mode := range []FailMode{FailClosed, FailOpen} {
		t.Run(mode.String(), func(t *testing.T) {
			clk := newClock()
			healthy.Store(true)
			e := Apply(nil, WithDefaultDelay(0), WithHTTPClient(cl), withClock(clk.Now), WithFailMode(mode))
			if v, _ := e.Check(testOrigin + "/private"); v.Allowed {
				t.Fatalf("fresh copy: %+v", v)
			}
			healthy.Store(false)
			// Unreachable for up to 30 days: the good copy still decides.
			for elapsed := time.Duration(0); elapsed < MaxStale-2*time.Hour; elapsed += 6 * time.Hour {
				clk.Advance(6 * time.Hour)
				v, _ := e.Check(testOrigin + "/private")
				if v.Allowed || v.Reason != ReasonDisallowRule || v.Line != 2 {
					t.Fatalf("after %v unreachable: %+v", elapsed, v)
				}
				if v, _ := e.Check(testOrigin + "/public"); !v.Allowed || v.Reason != ReasonNoMatch {
					t.Fatalf("after %v unreachable: public %+v", elapsed, v)
				}
			}
			if e.Stats().StaleServed == 0 {
				t.Errorf("StaleServed not counted")
			}
			// Past 30 days the fail mode decides.
			clk.Advance(3 * time.Hour)
			v, _ := e.Check(testOrigin + "/public")
			if v.Reason != ReasonUnreachable || v.Allowed != (mode == FailOpen) {
				t.Errorf("after 30 days: %+v", v)
			}
			// A 4xx ends the stale copy at once.
			mt2, cl2 := mock()
			mt2.RegisterResponder("GET", testRobots, respond(200, testRules, "Cache-Control", "max-age=60"))
			e2 := Apply(nil, WithDefaultDelay(0), WithHTTPClient(cl2), withClock(clk.Now), WithFailMode(mode))
			e2.Check(testOrigin)
			mt2.RegisterResponder("GET", testRobots, respond(404, ""))
			clk.Advance(2 * time.Minute)
			if v, _ := e2.Check(testOrigin + "/private"); !v.Allowed || v.Reason != ReasonUnavailable {
				t.Errorf("after 404: %+v", v)
			}
		})
	}
}

func TestRobotsRequestHeaders(t *testing.T) {
	t.Parallel()
	mt, cl := mock()
	seen := map[string]http.Header{}
	var mu sync.Mutex
	record := func(next httpmock.Responder) httpmock.Responder {
		return func(req *http.Request) (*http.Response, error) {
			mu.Lock()
			seen[req.URL.String()] = req.Header.Clone()
			mu.Unlock()
			return next(req)
		}
	}
	mt.RegisterResponder("GET", testRobots, record(redirect("http://a.test/real-robots.txt")))
	mt.RegisterResponder("GET", "http://a.test/real-robots.txt", record(redirect("http://b.test/robots.txt")))
	mt.RegisterResponder("GET", "http://b.test/robots.txt", record(respond(200, testRules)))
	hdr := http.Header{
		"Authorization": {"Bearer secret"}, "Cookie": {"session=1"}, "X-Team": {"crawl"},
		"Accept-Encoding": {"br"}, "If-None-Match": {`"forged"`},
	}
	r, err := FetchRobots(context.Background(), testOrigin, WithHTTPClient(cl), WithHeaders(hdr), WithUserAgent("TestBot"))
	if err != nil || r.Outcome != OutcomeOK || r.FinalURL != "http://b.test/robots.txt" || r.Redirects != 2 {
		t.Fatalf("%+v %v", r, err)
	}
	for u, h := range seen {
		sameHost := strings.HasPrefix(u, "http://a.test/")
		if (h.Get("Authorization") != "") != sameHost || (h.Get("Cookie") != "") != sameHost {
			t.Errorf("%s: Authorization %q Cookie %q", u, h.Get("Authorization"), h.Get("Cookie"))
		}
		// Custom headers may carry credentials too: they stay with
		// the origin's host, as Authorization and Cookie do.
		if h.Get("User-Agent") != "TestBot" || (h.Get("X-Team") == "crawl") != sameHost {
			t.Errorf("%s: headers %v", u, h)
		}
		if h.Get("Accept-Encoding") == "br" || h.Get("If-None-Match") != "" {
			t.Errorf("%s: managed headers leaked: %v", u, h)
		}
	}
	if len(seen) != 3 {
		t.Errorf("requests %v", seen)
	}
	// The rules of the final URL apply to the original origin.
	if v := r.Verdict("TestBot", "/private", FailClosed); v.Allowed {
		t.Errorf("%+v", v)
	}
}

func TestTokenWarning(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, token, ua string
		warn            bool
	}{
		{"derived", "", "MyBot/1.0", false},
		{"in UA", "mybot", "Mozilla/5.0 (compatible; MyBot/1.0)", false},
		{"not in UA", "OtherBot", "MyBot/1.0", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))
			mt, cl := mock()
			mt.RegisterResponder("GET", testRobots, respond(200, testRules))
			mt.RegisterResponder("GET", "http://b.test/robots.txt", respond(200, testRules))
			e := Apply(nil, WithHTTPClient(cl), WithLogger(log), WithUserAgent(tt.token), WithHeaders(http.Header{"User-Agent": {tt.ua}}))
			e.Check(testOrigin)
			e.Check("http://b.test/")
			if n := strings.Count(buf.String(), "product token does not occur"); n != map[bool]int{true: 1, false: 0}[tt.warn] {
				t.Errorf("%d warnings: %s", n, buf.String())
			}
		})
	}
}

func TestOverridePatterns(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	cfg := newConfig([]Option{
		WithOverride("Shop.Example.com", "*.example.org", "[::1]:8080", "c.test:8443"),
		WithOverride("bad*.test", "http://x.test", "", "*.", "a.test/path"),
	})
	tests := []struct {
		origin string
		want   bool
	}{
		{"http://shop.example.com", true},
		{"https://SHOP.example.com:8443", true},
		{"http://example.com", false},
		{"http://a.example.org", true},
		{"https://x.y.example.org", true},
		{"http://example.org", false},
		{"http://badexample.org", false},
		{"http://[::1]:8080", true},
		{"http://[::1]:8081", false},
		{"https://c.test:8443", true},
		{"https://c.test", false},
	}
	for _, tt := range tests {
		u, _ := url.Parse(tt.origin)
		o, err := originOf(u)
		if err != nil {
			t.Fatal(err)
		}
		if got := cfg.overridden(o); got != tt.want {
			t.Errorf("overridden(%s) = %v", tt.origin, got)
		}
	}
	if len(cfg.badOverrides) != 5 {
		t.Errorf("bad patterns %q", cfg.badOverrides)
	}
	Apply(nil, WithLogger(log), WithOverride("bad*.test"))
	if !strings.Contains(buf.String(), "ignoring WithOverride pattern") {
		t.Errorf("bad pattern not logged: %s", buf.String())
	}
	// "a.test:80" names the default port of http.
	cfg = newConfig([]Option{WithOverride("a.test:80")})
	for origin, want := range map[string]bool{"http://a.test": true, "https://a.test": false, "http://a.test:8080": false} {
		u, _ := url.Parse(origin)
		o, _ := originOf(u)
		if got := cfg.overridden(o); got != want {
			t.Errorf("a.test:80 vs %s: %v", origin, got)
		}
	}
}

func TestOverrideStillReadsRobots(t *testing.T) {
	t.Parallel()
	mt, cl := mock()
	mt.RegisterResponder("GET", testRobots, respond(200, testRules+"Sitemap: http://a.test/sitemap.xml\n"))
	mt.RegisterResponder("GET", "http://down.test/robots.txt", respond(503, ""))
	e := Apply(nil, WithHTTPClient(cl), WithOverride("a.test", "down.test"))
	if v, err := e.Check(testOrigin + "/private"); err != nil || !v.Allowed || v.Reason != ReasonOverride {
		t.Errorf("override: %+v %v", v, err)
	}
	if sm, err := e.Sitemaps(testOrigin); err != nil || len(sm) != 1 {
		t.Errorf("sitemaps of an overridden host: %v %v", sm, err)
	}
	if v, _ := e.Check("http://down.test/x"); !v.Allowed || v.Reason != ReasonOverride {
		t.Errorf("unreachable override: %+v", v)
	}
	if n := mt.GetTotalCallCount(); n != 2 {
		t.Errorf("%d fetches", n)
	}
}

func TestCheckAndSitemapsErrors(t *testing.T) {
	t.Parallel()
	mt, cl := mock()
	mt.RegisterResponder("GET", testRobots, respond(200, "Sitemap: http://a.test/s1.xml\nSitemap: https://a.test/s2.xml\n"))
	mt.RegisterResponder("GET", "http://down.test/robots.txt", respond(500, ""))
	mt.RegisterResponder("GET", "http://gone.test/robots.txt", respond(404, ""))
	e := Apply(nil, WithHTTPClient(cl))
	for _, bad := range []string{"http://[::1", "http://%zz/", "://x", "http://a b/", "http://[fe80::1%25en0]:8080/x"} {
		// Colly's Visit rejects these too.
		if _, err := e.Check(bad); !errors.Is(err, ErrInvalidURL) {
			t.Errorf("Check(%q): %v", bad, err)
		}
		if _, err := e.Sitemaps(bad); !errors.Is(err, ErrInvalidURL) {
			t.Errorf("Sitemaps(%q): %v", bad, err)
		}
	}
	for _, bad := range []string{"http://[::1", "http://%zz/", "://x", "http:///x", "http://a b/"} {
		if _, err := FetchRobots(context.Background(), bad); !errors.Is(err, ErrInvalidURL) {
			t.Errorf("FetchRobots(%q): %v", bad, err)
		}
	}
	// FetchRobots reads URLs with net/url: an IPv6 zone is escaped in the
	// robots.txt URL; the mock has no responder for it, so it is
	// unreachable, promptly.
	if r, err := FetchRobots(context.Background(), "http://[fe80::1%25en0]:8080/x", WithHTTPClient(cl)); err != nil || r.Outcome != OutcomeUnreachable || !strings.Contains(r.URL, "%25en0") {
		t.Errorf("zone: %+v %v", r, err)
	}
	if v, err := e.Check("ftp://a.test/x"); err != nil || !v.Allowed || v.Reason != ReasonNotApplicable {
		t.Errorf("ftp: %+v %v", v, err)
	}
	if _, err := e.Sitemaps("ftp://a.test/"); !errors.Is(err, ErrNotHTTP) {
		t.Errorf("Sitemaps ftp: %v", err)
	}
	if _, err := FetchRobots(context.Background(), "ftp://a.test/"); !errors.Is(err, ErrNotHTTP) {
		t.Errorf("FetchRobots ftp: %v", err)
	}
	if sm, err := e.Sitemaps(testOrigin + "/deep/page"); err != nil || len(sm) != 2 {
		t.Errorf("Sitemaps: %v %v", sm, err)
	}
	if sm, err := e.Sitemaps("http://down.test/"); !errors.Is(err, ErrUnreachable) || sm != nil {
		t.Errorf("Sitemaps unreachable: %v %v", sm, err)
	}
	if sm, err := e.Sitemaps("http://gone.test/"); err != nil || sm != nil {
		t.Errorf("Sitemaps unavailable: %v %v", sm, err)
	}
}

func TestCancelledContext(t *testing.T) {
	t.Parallel()
	mt, cl := mock()
	inFlight := make(chan struct{}, 1)
	mt.RegisterResponder("GET", testRobots, func(req *http.Request) (*http.Response, error) {
		select {
		case inFlight <- struct{}{}:
		default:
		}
		return waitForCancel(req)
	})
	e := Apply(nil, WithHTTPClient(cl))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.CheckContext(ctx, testOrigin); !errors.Is(err, context.Canceled) {
		t.Errorf("CheckContext: %v", err)
	}
	if _, err := FetchRobots(ctx, testOrigin, WithHTTPClient(cl)); !errors.Is(err, context.Canceled) {
		t.Errorf("FetchRobots: %v", err)
	}
	// Cancelled during the fetch: nothing is cached, and a later caller
	// with a live context fetches again.
	ctx, cancel = context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, err := e.CheckContext(ctx, testOrigin); done <- err }()
	<-inFlight // the request is in flight
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled mid-fetch: %v", err)
	}
	if s := e.Stats(); s.Origins != 0 || len(s.Fetches) != 0 {
		t.Errorf("a cancelled fetch was recorded: %+v", s)
	}
	mt.RegisterResponder("GET", testRobots, respond(200, testRules))
	if v, err := e.Check(testOrigin + "/private"); err != nil || v.Allowed {
		t.Errorf("after cancellation: %+v %v", v, err)
	}
}

func TestOneFetchPerOrigin(t *testing.T) {
	t.Parallel()
	mt, cl := mock()
	release := make(chan struct{})
	mt.RegisterResponder("GET", testRobots, func(req *http.Request) (*http.Response, error) {
		<-release
		return respond(200, testRules)(req)
	})
	e := Apply(nil, WithHTTPClient(cl))
	const n = 64
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			v, err := e.Check(fmt.Sprintf("%s/private/%d", testOrigin, i))
			if err == nil && v.Allowed {
				err = fmt.Errorf("%d allowed", i)
			}
			errs <- err
		}(i)
	}
	for e.Stats().CacheMisses < n {
		time.Sleep(time.Millisecond) // until every caller has missed the cache
	}
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if c := mt.GetTotalCallCount(); c != 1 {
		t.Errorf("%d robots.txt requests, want 1", c)
	}
}

func TestLRUBound(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	mt, cl := mock()
	mt.RegisterNoResponder(respond(200, testRules))
	e := Apply(nil, WithDefaultDelay(0), WithHTTPClient(cl), WithCacheSize(2))
	for _, h := range []string{"a", "b", "a", "c", "b"} {
		e.Check("http://" + h + ".test/")
	}
	// a, b fetched; a hit; c evicts b (a was used more recently); b again.
	s := e.Stats()
	if got := mt.GetTotalCallCount(); got != 4 || s.Origins != 2 || s.Evictions != 2 || s.CacheHits != 1 {
		t.Errorf("fetches %d, stats %+v", got, s)
	}
}

// Robots.Verdict reads URLs that are not absolute exactly as Policy.Check
// does, so the CLI and the library never disagree on a relative reference.
func TestRobotsVerdictReadsURLsAsCheck(t *testing.T) {
	t.Parallel()
	p := ParsePolicy([]byte("User-agent: *\nDisallow: /a\nDisallow: /?\n"))
	r := &Robots{Outcome: OutcomeOK, Policy: p}
	for _, raw := range []string{"/a", "example.com/a", "//example.com/a", "?q", "a", "/b?x", "http://example.com/a", "HTTPS://example.com/b", "%zz/a"} {
		got, want := r.Verdict("FooBot", raw, FailClosed), p.Check("FooBot", raw)
		if got != want {
			t.Errorf("Verdict(%q) = %+v; Policy.Check says %+v", raw, got, want)
		}
	}
}

func TestRobotsURL(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		err      error
	}{
		{"http://Example.COM/a?b", "http://example.com/robots.txt", nil},
		{"https://example.com:443/x", "https://example.com/robots.txt", nil},
		{"https://example.com:8443/x", "https://example.com:8443/robots.txt", nil},
		{"http://[::1]:8080/", "http://[::1]:8080/robots.txt", nil},
		{"ftp://example.com/", "", ErrNotHTTP},
		{"http://a b/", "", ErrInvalidURL},
		{"/relative", "", ErrNotHTTP},
	}
	for _, tc := range tests {
		got, err := RobotsURL(tc.in)
		if got != tc.want || !errors.Is(err, tc.err) || (tc.err == nil) != (err == nil) {
			t.Errorf("RobotsURL(%q) = %q, %v; want %q, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// FetchRobots hands back the body it parsed; the extension's cache keeps none.
func TestFetchRobotsKeepsBody(t *testing.T) {
	t.Parallel()
	const body = "User-agent: *\nDisallow: /x\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, body)
	}))
	defer srv.Close()
	r, err := FetchRobots(context.Background(), srv.URL+"/page")
	if err != nil || string(r.Body) != body {
		t.Fatalf("FetchRobots: body %q, err %v; want %q", r.Body, err, body)
	}
	e := Apply(nil)
	if _, err := e.Check(srv.URL + "/x"); err != nil {
		t.Fatal(err)
	}
	o, _ := originOf(mustParse(t, srv.URL))
	if en := e.cache.Peek(o); en == nil || en.Robots == nil || en.Robots.Body != nil {
		t.Errorf("the extension's cache should hold the robots.txt without its body")
	}
}

func mustParse(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
