package robotsext

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// releaseLog is a backend.Memory whose first failRelease Release calls
// fail; it logs every Start, Hold and Release it is asked.
type releaseLog struct {
	*backend.Memory
	mu          sync.Mutex
	failRelease int
	calls       []string
}

func (r *releaseLog) log(s string) {
	r.mu.Lock()
	r.calls = append(r.calls, s)
	r.mu.Unlock()
}

func (r *releaseLog) Start(ctx context.Context, host, token string, delay time.Duration) (time.Duration, bool, error) {
	r.log("start " + token)
	return r.Memory.Start(ctx, host, token, delay)
}

func (r *releaseLog) Claim(ctx context.Context, host, token string, delay, hold time.Duration) (time.Duration, bool, error) {
	r.log("hold " + token)
	return r.Memory.Claim(ctx, host, token, delay, hold)
}

func (r *releaseLog) Unclaim(ctx context.Context, host, token string) error {
	r.mu.Lock()
	fail := r.failRelease > 0
	if fail {
		r.failRelease--
	}
	r.mu.Unlock()
	if fail {
		r.log("release " + token + " failed")
		return errors.New("backend away")
	}
	r.log("release " + token)
	return r.Memory.Unclaim(ctx, host, token)
}

// TestFailedReleaseRetried: a release the backend failed is made again
// before the worker's next call about the host, so that the fleet does
// not wait for the hold to expire; a host that is no longer paced drops
// it.
func TestFailedReleaseRetried(t *testing.T) {
	t.Parallel()
	const host, delay = "site.test", 50 * time.Millisecond
	tests := []struct {
		name   string
		forget bool // the host's pace is dropped before the next call
		want   []string
	}{
		{"retried", false, []string{"hold T1", "release T1 failed", "release T1", "start T2"}},
		{"host forgotten", true, []string{"hold T1", "release T1 failed", "start T2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := &releaseLog{Memory: backend.NewMemory(), failRelease: 1}
			pc := newPacer(0, nil)
			pc.starter, pc.claimer = b, b
			var errs int
			pc.onErr = func(error) { errs++ }
			pc.tokPrefix = "T"
			pc.loaded(host, delay, true, time.Now())
			key := hostKey(host)
			req := new(int)
			if err := pc.confirm(t.Context(), key, req, delay, time.Time{}); err != nil {
				t.Fatal(err)
			}
			pc.land(t.Context(), req)
			if errs != 1 {
				t.Fatalf("%d errors reported; want the failed release's", errs)
			}
			if tc.forget {
				pc.mu.Lock()
				pc.drop(key)
				pc.mu.Unlock()
				pc.loaded(host, delay, true, time.Now()) // paced again, by a new robots.txt
			}
			if _, err := pc.startShared(t.Context(), key, "T2", delay); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(b.calls, tc.want) {
				t.Errorf("backend calls %q; want %q", b.calls, tc.want)
			}
		})
	}
}
