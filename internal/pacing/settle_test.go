package pacing

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// flakyStarter is a backend.Memory whose first fail Start calls fail, as
// a node's do when they time out.
type flakyStarter struct {
	*backend.Memory
	mu    sync.Mutex
	fail  int
	calls int
}

func (f *flakyStarter) Start(ctx context.Context, host, token string, delay time.Duration) (time.Duration, bool, error) {
	f.mu.Lock()
	f.calls++
	fail := f.calls <= f.fail
	f.mu.Unlock()
	if fail {
		return 0, false, &backend.ScopeError{Scope: "node-a", Err: errors.New("i/o timeout")}
	}
	return f.Memory.Start(ctx, host, token, delay)
}

// settling is a Health that is up and answers Settle as told, counting
// the failures and the questions.
type settling struct {
	failures
	answers bool
	asked   int
}

func (s *settling) Settle(context.Context, error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked++
	return s.answers
}

// TestCallSharedSettles: a request whose pace call failed asks Health
// whether the part answers (a probe sent at once) and, if it does, calls
// once more instead of pacing locally; a second failure paces it locally
// without asking again.
func TestCallSharedSettles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		fail      int  // Start calls that fail
		answers   bool // what Settle says
		wantErr   error
		wantCalls int
		wantFails int
		wantAsked int
	}{
		{"the part answers: called again, shared", 1, true, nil, 2, 1, 1},
		{"the part fails: paced locally", 1, false, errFallback, 1, 1, 1},
		{"answers, but the second call fails too: paced locally", 2, true, errFallback, 2, 2, 1},
		{"no failure: nothing asked", 0, true, nil, 1, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := &flakyStarter{Memory: backend.NewMemory(), fail: tt.fail}
			h := &settling{answers: tt.answers}
			pc := New(Config{Rand: noJitter, Backend: b, Health: h})
			const host, delay = "site.test", 50 * time.Millisecond
			pc.Loaded(host, delay, true, time.Now())
			_, err := pc.startShared(t.Context(), HostKey(host), "T1", delay)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("startShared: %v, want %v", err, tt.wantErr)
			}
			if b.calls != tt.wantCalls || h.n != tt.wantFails || h.asked != tt.wantAsked {
				t.Errorf("%d Start calls, %d failures reported, Settle asked %d times; want %d, %d, %d",
					b.calls, h.n, h.asked, tt.wantCalls, tt.wantFails, tt.wantAsked)
			}
		})
	}
}
