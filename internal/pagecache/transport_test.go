package pagecache

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
	"github.com/robotsext/robotsext/internal/mockhttp"
)

// rig is a Cache over a memory store in front of an httpmock origin, on a
// hand-moved clock.
type rig struct {
	clock *mockhttp.Clock
	mt    *httpmock.MockTransport
	cache *Cache
	store *Memory
	cl    *http.Client
	logs  *bytes.Buffer
}

func newRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{clock: mockhttp.NewClock(), mt: httpmock.NewMockTransport(), store: &Memory{}, logs: &bytes.Buffer{}}
	r.cache = New(Config{Store: r.store, Now: r.clock.Now, Logger: slog.New(slog.NewTextHandler(r.logs, nil)), MaxEntry: 1000})
	r.cl = &http.Client{Transport: &Transport{Cache: r.cache, Next: r.mt}}
	return r
}

// get fetches u and returns the status, the body and the cache's result.
func (r *rig) get(t *testing.T, u string, kv ...string) (int, string, Result) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	for i := 0; i+1 < len(kv); i += 2 {
		req.Header.Set(kv[i], kv[i+1])
	}
	resp, err := r.cl.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), ParseResult(resp.Header.Get(StatusHeader))
}

// origin answers each request with the next responder, recording the
// conditional headers it was sent.
func (r *rig) origin(u string, rs ...func(req *http.Request) (*http.Response, error)) *[]string {
	var seen []string
	var n atomic.Int32
	r.mt.RegisterResponder("GET", u, func(req *http.Request) (*http.Response, error) {
		seen = append(seen, req.Header.Get("If-None-Match")+"|"+req.Header.Get("If-Modified-Since"))
		i := int(n.Add(1)) - 1
		return rs[min(i, len(rs)-1)](req)
	})
	return &seen
}

func (r *rig) date() string { return r.clock.Now().Format(http.TimeFormat) }

func TestTransportFreshHitSendsNothing(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	seen := r.origin("https://a.example/p", mockhttp.Respond(200, "page", "Cache-Control", "max-age=60", "Date", r.date()))
	if s, b, res := r.get(t, "https://a.example/p"); s != 200 || b != "page" || res != Miss {
		t.Fatalf("first: %d %q %v", s, b, res)
	}
	r.clock.Advance(59 * time.Second)
	if s, b, res := r.get(t, "https://a.example/p"); s != 200 || b != "page" || res != Hit {
		t.Fatalf("second: %d %q %v", s, b, res)
	}
	if len(*seen) != 1 {
		t.Errorf("origin saw %d requests, want 1", len(*seen))
	}
	n := r.cache.Counts()
	if n.Hits != 1 || n.Misses != 1 || n.Saved != 4 {
		t.Errorf("counts %+v", n)
	}
}

func TestTransportRevalidation(t *testing.T) {
	t.Parallel()
	lm := "Sat, 01 Feb 2025 00:00:00 GMT"
	tests := []struct {
		name     string
		first    []string // the first response's fields
		second   func(r *rig) func(*http.Request) (*http.Response, error)
		wantSent string // the conditional headers of the second request
		want     Result
		body     string
		status   int
	}{
		{"ETag 304 serves the stored body as a 200",
			[]string{"ETag", `"v1"`, "Cache-Control", "max-age=0"},
			func(r *rig) func(*http.Request) (*http.Response, error) {
				return mockhttp.Respond(304, "", "ETag", `"v1"`, "Cache-Control", "max-age=60")
			}, `"v1"|`, Revalidated, "v1 body", 200},
		{"max-age=0 with an old Last-Modified is revalidated, not served",
			[]string{"Last-Modified", lm, "Cache-Control", "max-age=0"},
			func(r *rig) func(*http.Request) (*http.Response, error) { return mockhttp.Respond(304, "") },
			"|" + lm, Revalidated, "v1 body", 200},
		{"no-cache is revalidated even while fresh",
			[]string{"ETag", `"v1"`, "Cache-Control", "no-cache, max-age=600"},
			func(r *rig) func(*http.Request) (*http.Response, error) { return mockhttp.Respond(304, "") },
			`"v1"|`, Revalidated, "v1 body", 200},
		{"a 200 replaces the entry",
			[]string{"ETag", `"v1"`, "Cache-Control", "max-age=0"},
			func(r *rig) func(*http.Request) (*http.Response, error) {
				return mockhttp.Respond(200, "v2 body", "ETag", `"v2"`, "Cache-Control", "max-age=60")
			}, `"v1"|`, Stale, "v2 body", 200},
		{"a 429 to a revalidation reaches the caller, and the copy stays (not stale)",
			[]string{"ETag", `"v1"`, "Cache-Control", "max-age=0"},
			func(r *rig) func(*http.Request) (*http.Response, error) {
				return mockhttp.Respond(429, "slow down", "Retry-After", "60")
			}, `"v1"|`, None, "slow down", 429},
		{"no-store is never stored",
			[]string{"ETag", `"v1"`, "Cache-Control", "no-store"},
			func(r *rig) func(*http.Request) (*http.Response, error) { return mockhttp.Respond(200, "v1 body") },
			"|", Miss, "v1 body", 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newRig(t)
			seen := r.origin("https://a.example/p", mockhttp.Respond(200, "v1 body", append(tt.first, "Date", r.date())...), tt.second(r))
			r.get(t, "https://a.example/p")
			r.clock.Advance(time.Second)
			s, b, res := r.get(t, "https://a.example/p")
			if s != tt.status || b != tt.body || res != tt.want {
				t.Errorf("second: %d %q %v, want %d %q %v", s, b, res, tt.status, tt.body, tt.want)
			}
			if len(*seen) != 2 || (*seen)[1] != tt.wantSent {
				t.Errorf("origin saw %q, want a second request with %q", *seen, tt.wantSent)
			}
		})
	}
}

// TestTransport304Freshens: after a 304 with a new max-age, the entry is
// fresh again and served without a request.
func TestTransport304Freshens(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	seen := r.origin("https://a.example/p",
		mockhttp.Respond(200, "body", "ETag", `"a"`, "Cache-Control", "max-age=10", "Date", r.date()),
		mockhttp.Respond(304, "", "Cache-Control", "max-age=100", "Content-Length", "0"))
	r.get(t, "https://a.example/p")
	r.clock.Advance(20 * time.Second)
	r.get(t, "https://a.example/p")
	r.clock.Advance(50 * time.Second)
	if s, b, res := r.get(t, "https://a.example/p"); res != Hit || b != "body" || s != 200 {
		t.Errorf("third: %d %q %v, want a hit", s, b, res)
	}
	if len(*seen) != 2 {
		t.Errorf("origin saw %d requests, want 2", len(*seen))
	}
}

// TestTransportMismatchPaced: a 304 whose ETag is not the stored one's
// drops the stored copy and calls Pace with a nil owner before the
// request is sent again unconditionally; Pace's error fails it unsent.
func TestTransportMismatchPaced(t *testing.T) {
	t.Parallel()
	for _, paceErr := range []error{nil, context.Canceled} {
		r := newRig(t)
		var paced []any
		r.cl.Transport.(*Transport).Pace = func(_ *http.Request, owner any) error { paced = append(paced, owner); return paceErr }
		seen := r.origin("https://a.example/p",
			mockhttp.Respond(200, "v1", "ETag", `"v1"`, "Cache-Control", "no-cache", "Date", r.date()),
			mockhttp.Respond(304, "", "ETag", `"v2"`),
			mockhttp.Respond(200, "v2", "ETag", `"v2"`, "Cache-Control", "no-cache"))
		r.get(t, "https://a.example/p")
		req, _ := http.NewRequest("GET", "https://a.example/p", nil)
		resp, err := r.cl.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		wantSeen := map[bool]int{true: 3, false: 2}[paceErr == nil]
		if len(paced) != 1 || paced[0] != nil || len(*seen) != wantSeen || (*seen)[len(*seen)-1] != "|" && paceErr == nil || (err != nil) != (paceErr != nil) {
			t.Errorf("Pace error %v: Pace got %v, origin saw %q, error %v; want one nil owner, %d requests, the last unconditional", paceErr, paced, *seen, err, wantSeen)
		}
		if _, ok, _ := r.store.Get(t.Context(), Key("GET", req.URL)); ok && paceErr != nil {
			t.Errorf("Pace error %v: the outdated copy is still stored", paceErr)
		}
	}
}

func TestTransportPassesThrough(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	big := strings.Repeat("x", 1001)
	r.origin("https://a.example/big", mockhttp.Respond(200, big, "Cache-Control", "max-age=60"))
	if _, b, _ := r.get(t, "https://a.example/big"); b != big {
		t.Errorf("a body over MaxEntry came back as %d bytes", len(b))
	}
	if _, _, res := r.get(t, "https://a.example/big"); res != Miss {
		t.Errorf("a body over MaxEntry was stored: %v", res)
	}
	r.origin("https://a.example/c", mockhttp.Respond(200, "c", "Cache-Control", "max-age=60"))
	if _, _, res := r.get(t, "https://a.example/c", "If-None-Match", `"mine"`); res != None {
		t.Errorf("a request with its own validator went through the cache: %v", res)
	}
	r.origin("https://a.example/v", mockhttp.Respond(200, "v", "Cache-Control", "max-age=60", "Vary", "Accept-Language"))
	r.get(t, "https://a.example/v", "Accept-Language", "en")
	if _, _, res := r.get(t, "https://a.example/v", "Accept-Language", "fr"); res != Miss {
		t.Errorf("Vary mismatch: %v, want a miss", res)
	}
}

func TestTransportCorruptEntryIsAMissLoggedOnce(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	r.origin("https://a.example/p", mockhttp.Respond(200, "body", "Cache-Control", "max-age=60"))
	for range 2 {
		_ = r.store.Set(context.Background(), "GET https://a.example/p", []byte("RXPC\x01garbage"))
		if _, b, res := r.get(t, "https://a.example/p"); res != Miss || b != "body" {
			t.Fatalf("corrupt entry: %v %q", res, b)
		}
	}
	if n := strings.Count(r.logs.String(), "could not be read back"); n != 1 {
		t.Errorf("logged %d times, want once", n)
	}
	if r.cache.Counts().Corrupt != 2 {
		t.Errorf("corrupt count %d, want 2", r.cache.Counts().Corrupt)
	}
}

// TestClaim: a claimed request is served without sending, from the entry
// set aside (the store may have lost it meanwhile); a claim the request as
// sent may no longer use (a Vary field set after the claim, a validator
// of its own, no-cache) is paced through Transport.Pace and sent; nothing
// of a claim is ever in the request's header.
func TestClaim(t *testing.T) {
	t.Parallel()
	r := newRig(t)
	var paced []any
	r.cl.Transport.(*Transport).Pace = func(_ *http.Request, owner any) error { paced = append(paced, owner); return nil }
	seen := r.origin("https://a.example/p", mockhttp.Respond(200, "body", "Cache-Control", "max-age=60", "Vary", "Accept-Language"))
	r.get(t, "https://a.example/p")
	claimed := func(kv ...string) *http.Request {
		req, _ := http.NewRequest("GET", "https://a.example/p", nil)
		e, fresh := r.cache.Lookup(context.Background(), "GET", req.URL, req.Header)
		if !fresh || !r.cache.Claim(req.URL, e, len(kv)) {
			t.Fatal("not fresh")
		}
		for i := 0; i+1 < len(kv); i += 2 {
			req.Header.Set(kv[i], kv[i+1])
		}
		return req
	}
	req := claimed()
	_ = r.store.Delete(context.Background(), "GET https://a.example/p") // the claim holds the entry
	resp, err := r.cl.Do(req)
	if err != nil || resp.StatusCode != 200 || len(req.Header) != 0 {
		t.Fatalf("claimed: %v %v, header %v", resp, err, req.Header)
	}
	resp.Body.Close()
	if len(*seen) != 1 || len(paced) != 0 {
		t.Fatalf("origin saw %d requests, %d paced; want 1, 0", len(*seen), len(paced))
	}
	r.get(t, "https://a.example/p") // stored again
	for _, kv := range [][]string{{"If-None-Match", `"x"`}, {"Cache-Control", "no-cache"}, {"Accept-Language", "fr"}} {
		resp, err := r.cl.Do(claimed(kv...))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if len(*seen) != 5 || len(paced) != 3 {
		t.Errorf("origin saw %d requests, %d paced; want 5, 3", len(*seen), len(paced))
	}
	req, _ = http.NewRequest("GET", "https://a.example/p", nil)
	r.cache.Claim(req.URL, &Entry{}, nil)
	r.cache.Release(req.URL)
	if _, ok := r.cache.Claimed(req.URL); ok {
		t.Error("a released claim is still claimed")
	}
}
