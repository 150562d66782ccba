package pacing

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// unclaimLog is a backend.Memory whose first failUnclaim Unclaim calls
// fail; it logs every Start, Claim (or ClaimTurn: "claim" too) and
// Unclaim it is asked.
type unclaimLog struct {
	*backend.Memory
	mu          sync.Mutex
	failUnclaim int
	calls       []string
}

func (r *unclaimLog) log(s string) {
	r.mu.Lock()
	r.calls = append(r.calls, s)
	r.mu.Unlock()
}

func (r *unclaimLog) Start(ctx context.Context, host, token string, delay time.Duration) (time.Duration, bool, error) {
	r.log("start " + token)
	return r.Memory.Start(ctx, host, token, delay)
}

func (r *unclaimLog) Claim(ctx context.Context, host, token string, delay, ttl time.Duration) (time.Duration, bool, error) {
	r.log("claim " + token)
	return r.Memory.Claim(ctx, host, token, delay, ttl)
}

func (r *unclaimLog) ClaimTurn(ctx context.Context, host, token string, delay, ttl time.Duration) (backend.Turn, error) {
	r.log("claim " + token)
	return r.Memory.ClaimTurn(ctx, host, token, delay, ttl)
}

func (r *unclaimLog) Unclaim(ctx context.Context, host, token string) error {
	r.mu.Lock()
	fail := r.failUnclaim > 0
	if fail {
		r.failUnclaim--
	}
	r.mu.Unlock()
	if fail {
		r.log("unclaim " + token + " failed")
		return errors.New("backend away")
	}
	r.log("unclaim " + token)
	return r.Memory.Unclaim(ctx, host, token)
}

// TestFailedUnclaimRetried: an Unclaim the backend failed is made again
// before the worker's next call about the host, so that the fleet does
// not wait for the claim to expire; a host that is no longer paced drops
// it.
func TestFailedUnclaimRetried(t *testing.T) {
	t.Parallel()
	const host, delay = "site.test", 50 * time.Millisecond
	tests := []struct {
		name   string
		forget bool // the host's pace is dropped before the next call
		want   []string
	}{
		{"retried", false, []string{"claim T1", "unclaim T1 failed", "unclaim T1", "start T2"}},
		{"host forgotten", true, []string{"claim T1", "unclaim T1 failed", "start T2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := &unclaimLog{Memory: backend.NewMemory(), failUnclaim: 1}
			var errs failures
			pc := New(Config{Rand: noJitter, Backend: b, Health: &errs})
			pc.names.prefix = "T"
			pc.Loaded(host, delay, true, time.Now())
			key := HostKey(host)
			req := new(int)
			if err := pc.confirm(t.Context(), key, req, delay, time.Time{}); err != nil {
				t.Fatal(err)
			}
			pc.Land(t.Context(), req)
			if errs.n != 1 {
				t.Fatalf("%d errors reported; want the failed Unclaim's", errs.n)
			}
			if tc.forget {
				pc.mu.Lock()
				pc.drop(key)
				pc.mu.Unlock()
				pc.Loaded(host, delay, true, time.Now()) // paced again, by a new robots.txt
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

// failures is a Health that is always up and counts the failures
// reported to it.
type failures struct {
	mu sync.Mutex
	n  int
}

func (*failures) Up(string) bool         { return true }
func (*failures) Recovering(string) bool { return false }

// Settle says no: a failed call is not made again.
func (*failures) Settle(context.Context, error) bool { return false }
func (f *failures) Failed(error) {
	f.mu.Lock()
	f.n++
	f.mu.Unlock()
}
