package redisbackend

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/internal/simhost"
)

// TestSlowHostHoldsNoSlotRedis is the root's TestSlowHostHoldsNoSlotFleet
// on a real redis-server: two Async collectors sharing one Backend, at
// Parallelism 1 each, each fed four pages of a host at Crawl-delay 0.3
// answering in 300 ms and twenty of a host without a delay answering in
// 80 ms. A slow-host request whose host another request took while it
// waited for its slot gives its turn back (Stats.TurnRequeued) rather
// than wait at the gate, inside the slot. The subject is where real
// requests spend real time in real slots, so it is measured on the wall
// clock: the time all requests spent in the Extension's OnRequestHeaders
// hook (1.8-3.8 s with backend.Memory before the give-back) must stay a
// fraction of one delay. Every page is sent once; the pace at the server
// stays exact.
func TestSlowHostHoldsNoSlotRedis(t *testing.T) {
	t.Parallel()
	const delay = 300 * time.Millisecond
	srv := startRedisServer(t)
	b := New(newClient(t, "unix", srv.Sock), WithPrefix(fmt.Sprintf("slots%d:", time.Now().UnixNano())), WithHeartbeat(-1))
	site := simhost.New(2, func(i int) simhost.Spec {
		if i == 0 {
			return simhost.Spec{Robots: simhost.Delay, Delay: delay, Pages: 8, PageLatency: 300 * time.Millisecond}
		}
		return simhost.Spec{Robots: simhost.Delay, Pages: 40, PageLatency: 80 * time.Millisecond}
	})
	defer site.Close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	var (
		mu       sync.Mutex
		atGate   time.Duration
		requeued uint64
		wg       sync.WaitGroup
	)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := colly.NewCollector(colly.Async(true), colly.StdlibContext(ctx), colly.UserAgent("SlotBot/1.0 (+https://example.com/bot)"))
			c.WithTransport(site.Transport())
			if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 1}); err != nil {
				t.Error(err)
				return
			}
			entered := map[*colly.Request]time.Time{}
			c.OnRequestHeaders(func(r *colly.Request) { // before the Extension's gate
				mu.Lock()
				entered[r] = time.Now()
				mu.Unlock()
			})
			ext := robotsext.Apply(c, robotsext.WithBackend(b), robotsext.WithLogger(slog.New(slog.DiscardHandler)),
				robotsext.WithHTTPClient(&http.Client{Transport: site.Transport(), Timeout: 10 * time.Second}))
			c.OnRequestHeaders(func(r *colly.Request) { // after it
				mu.Lock()
				atGate += time.Since(entered[r])
				mu.Unlock()
			})
			for p := w; p < 8; p += 2 {
				_ = c.Visit(simhost.URL(0, p))
			}
			for p := w; p < 40; p += 2 {
				_ = c.Visit(simhost.URL(1, p))
			}
			c.Wait()
			mu.Lock()
			requeued += ext.Stats().TurnRequeued
			mu.Unlock()
		}()
	}
	wg.Wait()
	t.Logf("%v in all at the gate; %d turns given back", atGate, requeued)
	if atGate > delay/3 {
		t.Errorf("requests spent %v in all at the gate, inside their LimitRule slots; want almost none (< %v)", atGate, delay/3)
	}
	rp := site.Report(func(i int) time.Duration {
		if i == 0 {
			return delay
		}
		return 0
	})
	if rp.Pages != 48 {
		t.Errorf("the server saw %d page requests, want 48", rp.Pages)
	}
	if rp.GapsBelow > 0 || rp.MinGapRatio < 1 || rp.MaxInFlight != 1 {
		t.Errorf("the slow host's pace at the server: %d gaps below the delay, smallest %.3f × the delay, %d in flight; want none, ≥ 1, 1",
			rp.GapsBelow, rp.MinGapRatio, rp.MaxInFlight)
	}
}
