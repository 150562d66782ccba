package redisbackend

// Backoff across the fleet: the failure count and Retry-After live in the
// shared record, so a robots.txt that keeps failing is retried as rarely
// by a fleet as by one worker.

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

// TestBackoffFleetWide: two Extensions share a real Redis and a clock the
// test moves; the site answers robots.txt with 503 every time. Worker A
// fetches first, worker B once that answer has expired. Without a
// Retry-After, B's failure is the second of the fleet and waits twice as
// long (120 s), so neither worker fetches again at +60 s after it (the
// issue's figure before: a fetch every 60 s). With Retry-After: 600,
// neither fetches before it ends.
func TestBackoffFleetWide(t *testing.T) {
	t.Parallel()
	srv := startRedisServer(t)
	c := newClient(t, "unix", srv.Sock)
	type step struct {
		at     time.Duration // on the moved clock, from the start
		worker int           // 0: A, 1: B
		hits   int64         // robots.txt requests the site saw after the step
	}
	tests := []struct {
		name       string
		retryAfter string
		steps      []step
	}{
		{"doubling", "", []step{
			{0, 0, 1},
			{61 * time.Second, 1, 2},                                   // A's answer expired: B fetches, the fleet's 2nd failure
			{61*time.Second + 61*time.Second, 0, 2},                    // 60 s would be the 1st failure's backoff: not yet
			{61*time.Second + 119*time.Second, 1, 2},                   // still within the 2nd failure's 120 s
			{61*time.Second + 121*time.Second, 0, 3},                   // the 120 s are over
			{61*time.Second + 121*time.Second + 200*time.Second, 1, 3}, // the 3rd failure waits 240 s
		}},
		{"Retry-After", "600", []step{
			{0, 0, 1},
			{301 * time.Second, 1, 1},
			{599 * time.Second, 0, 1},
			{601 * time.Second, 1, 2},
		}},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var hits atomic.Int64
			site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					hits.Add(1)
				}
				if tc.retryAfter != "" {
					w.Header().Set("Retry-After", tc.retryAfter)
				}
				w.WriteHeader(http.StatusServiceUnavailable)
			}))
			t.Cleanup(site.Close)
			var mu sync.Mutex
			start := time.Now()
			var offset time.Duration
			clock := func() time.Time {
				mu.Lock()
				defer mu.Unlock()
				return start.Add(offset)
			}
			var exts []*robotsext.Extension
			for range 2 {
				b := New(c, WithPrefix("backoff"+itoa(i)+":"), WithHeartbeat(-1))
				var logs logBuffer // the 503s are logged at Warn, each time
				exts = append(exts, robotsext.Apply(colly.NewCollector(), robotsext.WithBackend(b), robotsext.WithClock(clock),
					robotsext.WithLogger(logs.logger())))
			}
			for j, st := range tc.steps {
				mu.Lock()
				offset = st.at
				mu.Unlock()
				_, _ = exts[st.worker].Check(site.URL + "/page") // 503: refused, as it should be
				if got := hits.Load(); got != st.hits {
					t.Fatalf("step %d (worker %c at +%v): the site saw %d robots.txt requests; want %d",
						j, 'A'+st.worker, st.at, got, st.hits)
				}
			}
			t.Logf("%d robots.txt requests over %v of 503s", hits.Load(), tc.steps[len(tc.steps)-1].at)
		})
	}
}
