package pacing

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// queueLog is a Memory backend that records the delay each Queue call
// asks the host's queue to step by.
type queueLog struct {
	*backend.Memory
	mu     sync.Mutex
	delays []time.Duration
}

func (q *queueLog) Queue(ctx context.Context, host, token string, ticket int64, delay, ttl time.Duration) (backend.Turn, error) {
	q.mu.Lock()
	q.delays = append(q.delays, delay)
	q.mu.Unlock()
	return q.Memory.Queue(ctx, host, token, ticket, delay, ttl)
}

// TestQueuedStartJitter: with a Queuer, a request's start asks the host's
// queue to step by the delay plus the start's jitter (a tenth of the
// delay at most, the injected Rand's share of it), as a local or a
// Starter's start is spaced, so that a fleet's starts do not fall in
// lock-step either.
func TestQueuedStartJitter(t *testing.T) {
	t.Parallel()
	const host, delay = "queued.test", time.Second
	tests := []struct {
		name string
		u    float64
		want time.Duration
	}{
		{"no jitter", 0, delay},
		{"half of the largest", 0.5, delay + delay/20},
		{"a broken Rand", 1, delay},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			q := &queueLog{Memory: backend.NewMemory()}
			pc := New(Config{Rand: fixedRand(tc.u), Backend: q, Health: &failures{}})
			pc.Loaded(host, delay, true, time.Now().Add(-time.Hour))
			if err := pc.Wait(t.Context(), host, new(int)); err != nil {
				t.Fatal(err)
			}
			q.mu.Lock()
			defer q.mu.Unlock()
			if len(q.delays) != 1 || q.delays[0] != tc.want {
				t.Errorf("Queue asked with delays %v; want [%v]", q.delays, tc.want)
			}
		})
	}
}
