package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/robotsext/robotsext/backend"
)

// slowFirst is a Memory whose first Load fails as a call that got no
// answer in time does (a worker's first call, on a connection still being
// set up), or with another error.
type slowFirst struct {
	*backend.Memory
	first error
	loads atomic.Int32
}

func (b *slowFirst) Load(ctx context.Context, origin string) (*backend.Record, error) {
	if b.loads.Add(1) == 1 {
		return nil, b.first
	}
	return b.Memory.Load(ctx, origin)
}

// TestCacheRetriesTimedOutLoad: a first Backend call that timed out is
// tried once more before the worker fetches robots.txt on its own, so the
// fleet keeps one fetch per origin; any other failure falls back at once.
func TestCacheRetriesTimedOutLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		first     error
		wantLocal bool
	}{
		{"context deadline", fmt.Errorf("redisbackend: load: %w", context.DeadlineExceeded), false},
		{"connection refused", errors.New("dial tcp: connection refused"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			clk := newClock()
			mt, cl := mock()
			var requests atomic.Int32
			mt.RegisterResponder("GET", testRobots, func(req *http.Request) (*http.Response, error) {
				requests.Add(1)
				return respond(200, testRules, "Cache-Control", "max-age=600")(req)
			})
			mb := backend.NewMemory()
			mb.Now = clk.Now
			var in installs
			b := &slowFirst{Memory: mb, first: tt.first}
			var h health
			c := newTestCache(cl, clk, func(cfg *Config) { cfg.Backend, cfg.Health, cfg.Installed = b, &h, in.installed })
			if en, err := c.Get(context.Background(), testHost); err != nil || en.Outcome != backend.OutcomeOK {
				t.Fatalf("Get: %+v %v", en, err)
			}
			rec, _ := mb.Load(context.Background(), testOrigin)
			if local := rec == nil; local != tt.wantLocal || requests.Load() != 1 {
				t.Errorf("fetched locally %v (record stored for the fleet: %v), %d requests; want local %v, 1 request",
					local, rec != nil, requests.Load(), tt.wantLocal)
			}
		})
	}
}
