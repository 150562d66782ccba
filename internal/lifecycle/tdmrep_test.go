package lifecycle

import (
	"context"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"
)

const testTDMRep = testOrigin + "/.well-known/tdmrep.json"

// newTestTDMRep is a TDMRep on a fresh mock transport and clock, whose
// fetches' states are appended to *states.
func newTestTDMRep(t *testing.T, size int, states *[]TDMRepState) (*TDMRep, *httpmock.MockTransport, *clock) {
	t.Helper()
	mt, cl := mock()
	clk := newClock()
	f := NewFetcher(fetcherConfig(cl, clk))
	t.Cleanup(f.Close)
	return NewTDMRep(TDMRepConfig{
		Fetcher: f, Size: size, MaxBytes: 1 << 20, Logger: slog.New(slog.DiscardHandler),
		Header:  func() http.Header { return RequestHeader(nil) },
		Pace:    func(context.Context, string) error { return nil },
		Fetched: func(s TDMRepState) { *states = append(*states, s) },
	}), mt, clk
}

// TestTDMRepStates checks how each answer is classified, what it states,
// and how long it is kept before the file is fetched again.
func TestTDMRepStates(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		answer httpmock.Responder
		state  TDMRepState
		file   bool
		kept   time.Duration // fetched again after this long, not before
	}{
		{"found", respond(200, `[{"location":"/","tdm-reservation":1}]`, "Cache-Control", "max-age=3600"), TDMRepFound, true, time.Hour},
		{"missing", respond(404, ""), TDMRepMissing, false, 24 * time.Hour},
		{"an HTML page in its place", respond(200, "<!DOCTYPE html><p>hi"), TDMRepMissing, false, 24 * time.Hour},
		{"malformed", respond(200, `{"location":"/"}`), TDMRepMalformed, false, 24 * time.Hour},
		{"unreachable", respond(503, ""), TDMRepUnreachable, false, time.Minute},
		{"redirect loop", redirect(testTDMRep), TDMRepMissing, false, 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var states []TDMRepState
			c, mt, clk := newTestTDMRep(t, 10, &states)
			mt.RegisterResponder("GET", testTDMRep, tt.answer)
			ctx := context.Background()
			f, err := c.File(ctx, testHost, clk.Now())
			if err != nil || (f != nil) != tt.file {
				t.Fatalf("File = %v, %v; want a file: %v", f, err, tt.file)
			}
			if len(states) != 1 || states[0] != tt.state {
				t.Fatalf("states %v, want [%v]", states, tt.state)
			}
			clk.Advance(tt.kept - time.Second)
			c.File(ctx, testHost, clk.Now())
			if len(states) != 1 {
				t.Fatalf("fetched again %v before its expiry", tt.kept-time.Second)
			}
			clk.Advance(time.Second)
			c.File(ctx, testHost, clk.Now())
			if len(states) != 2 {
				t.Fatalf("not fetched again at its expiry: %v", states)
			}
		})
	}
}

// TestTDMRepStaleCopy checks that a good file stays in force while its
// origin is unreachable, and that Forget drops it.
func TestTDMRepStaleCopy(t *testing.T) {
	t.Parallel()
	var states []TDMRepState
	c, mt, clk := newTestTDMRep(t, 10, &states)
	mt.RegisterResponder("GET", testTDMRep, respond(200, `[{"location":"/","tdm-reservation":1}]`, "Cache-Control", "max-age=60"))
	ctx := context.Background()
	good, err := c.File(ctx, testHost, clk.Now())
	if good == nil || err != nil {
		t.Fatalf("File = %v, %v", good, err)
	}
	mt.RegisterResponder("GET", testTDMRep, respond(500, ""))
	clk.Advance(time.Minute)
	if f, err := c.File(ctx, testHost, clk.Now()); f != good || err != nil {
		t.Fatalf("while unreachable: File = %v, %v; want the good copy", f, err)
	}
	if len(states) != 2 || states[1] != TDMRepUnreachable || c.Cached(testHost) != good {
		t.Fatalf("states %v, cached %v", states, c.Cached(testHost))
	}
	c.Forget(testHost)
	if f := c.Cached(testHost); f != nil {
		t.Fatalf("forgotten, yet cached: %v", f)
	}
}

// TestTDMRepBound checks that the cache keeps at most Size origins, the
// least recently used evicted.
func TestTDMRepBound(t *testing.T) {
	t.Parallel()
	var states []TDMRepState
	c, mt, clk := newTestTDMRep(t, 1, &states)
	other := Origin{Host: "b.test"}
	for _, o := range []string{testOrigin, "http://b.test"} {
		mt.RegisterResponder("GET", o+"/.well-known/tdmrep.json", respond(200, `[{"location":"/","tdm-reservation":0}]`))
	}
	ctx := context.Background()
	c.File(ctx, testHost, clk.Now())
	c.File(ctx, other, clk.Now())
	if c.Cached(testHost) != nil || c.Cached(other) == nil {
		t.Fatalf("with Size 1: cached %v and %v", c.Cached(testHost), c.Cached(other))
	}
}
