package lifecycle

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
)

// TestFetchFile: another file of the origin is fetched as robots.txt is
// (its redirect rules, its freshness), its body read up to the limit
// plus one octet, and every answer reported.
func TestFetchFile(t *testing.T) {
	t.Parallel()
	const file = testOrigin + "/.well-known/tdmrep.json"
	tests := []struct {
		name   string
		answer httpmock.Responder
		status int
		body   string
		fresh  time.Duration
		err    error
		retry  time.Duration
	}{
		{"found", respond(200, "[]", "Cache-Control", "max-age=3600"), 200, "[]", time.Hour, nil, 0},
		{"longer than the limit", respond(200, strings.Repeat("x", 20)), 200, strings.Repeat("x", 11), 24 * time.Hour, nil, 0},
		{"missing", respond(404, "not here"), 404, "", 24 * time.Hour, nil, 0},
		{"unavailable, retry later", respond(503, "", "Retry-After", "120"), 503, "", 24 * time.Hour, nil, 2 * time.Minute},
		{"redirect loop", redirect(file), 0, "", 0, errTooManyRedirects, 0},
		{"no answer", func(*http.Request) (*http.Response, error) { return nil, errors.New("connection refused") }, 0, "", 0, errUnreachable, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mt, cl := mock()
			mt.RegisterResponder("GET", file, tt.answer)
			f := NewFetcher(fetcherConfig(cl, newClock()))
			defer f.Close()
			a, err := f.FetchFile(context.Background(), testHost, "/.well-known/tdmrep.json", RequestHeader(nil), 10)
			if err != nil {
				t.Fatal(err)
			}
			if a.URL != file || a.Status != tt.status || string(a.Body) != tt.body || a.Fresh != tt.fresh || a.RetryAfter != tt.retry {
				t.Errorf("FetchFile = %+v", a)
			}
			if (tt.err == nil) != (a.Err == nil) || tt.err != nil && !errors.Is(a.Err, tt.err) {
				t.Errorf("Err = %v, want %v", a.Err, tt.err)
			}
		})
	}
	// The caller's context ends: an error, not an answer.
	mt, cl := mock()
	mt.RegisterResponder("GET", file, waitForCancel)
	f := NewFetcher(fetcherConfig(cl, newClock()))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if a, err := f.FetchFile(ctx, testHost, "/.well-known/tdmrep.json", RequestHeader(nil), 10); err == nil {
		t.Errorf("a cancelled fetch answered %+v", a)
	}
	if d := backoff(3, 0); d != 4*time.Minute {
		t.Errorf("backoff(3, 0) = %v", d)
	}
}
