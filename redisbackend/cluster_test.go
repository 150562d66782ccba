package redisbackend

// The Backend on a real Redis Cluster of three masters, started by the
// test on loopback (internal/rediscluster): every script's keys must hash
// to one slot, hosts spread over the masters, and a fleet crawls through
// it as through one Redis.

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/backend/backendtest"
	"github.com/robotsext/robotsext/redisbackend/internal/rediscluster"
)

// TestClusterThreeMasters runs the Backend contract on three masters,
// checks that the hosts' keys spread over them, and crawls two paced
// sites with three workers, each with a ClusterClient of its own: one
// robots.txt per site, no gap at a site below its Crawl-delay (less
// gapSlack), never two requests on the wire at once, every page fetched.
func TestClusterThreeMasters(t *testing.T) {
	t.Parallel()
	addrs := rediscluster.Start(t, 3)
	c := rediscluster.Client(t, addrs)

	t.Run("contract", func(t *testing.T) {
		var n atomic.Int64
		backendtest.Run(t, func(t *testing.T) backend.Backend {
			return New(c, WithPrefix(fmt.Sprintf("cluster3-%d:", n.Add(1))), WithHeartbeat(-1))
		})
	})

	t.Run("hosts spread", func(t *testing.T) {
		b := New(c, WithPrefix("spread:"), WithHeartbeat(-1))
		for i := range 30 {
			if _, err := b.Queue(t.Context(), fmt.Sprintf("host%d.example", i), "a", 0, time.Minute, 5*time.Second); err != nil {
				t.Fatal(err)
			}
		}
		var mu sync.Mutex
		var sizes []int64
		err := c.ForEachMaster(t.Context(), func(ctx context.Context, m *redis.Client) error {
			n, err := m.DBSize(ctx).Result()
			mu.Lock()
			sizes = append(sizes, n)
			mu.Unlock()
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range sizes {
			if n == 0 {
				t.Errorf("keys per master %v; want the hosts spread over all three", sizes)
			}
		}
	})

	t.Run("fleet crawl", func(t *testing.T) {
		const delay = 100 * time.Millisecond
		sites := []*costSite{newCostSite(t, delay, 2*time.Millisecond), newCostSite(t, delay, 2*time.Millisecond)}
		run := &fleetRun{workers: 3, pages: 12, prefix: "clustercrawl:", client: func() redis.UniversalClient {
			return redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, ContextTimeoutEnabled: true,
				DialTimeout: 2 * time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second, PoolSize: 4})
		}}
		crawlSites(t, sites, run)
		_, total := run.log.between(run.started, run.finished.Add(time.Second))
		t.Logf("3 workers, 2 sites, %d pages in %v, %.2f calls per page", 2*run.pages, run.elapsed.Round(time.Millisecond),
			float64(total)/float64(2*run.pages))
		if got := run.got.Load(); got != int64(2*run.pages) {
			t.Errorf("%d pages answered; want %d", got, 2*run.pages)
		}
		for _, s := range sites {
			s.mu.Lock()
			robots, onWire := s.robots, s.maxOnWire
			s.mu.Unlock()
			if g := smallestGap(s.arrivals()); robots != 1 || onWire != 1 || g < delay-gapSlack {
				t.Errorf("site %s: %d robots.txt requests, at most %d on the wire, smallest gap %v; want 1, 1, at least %v",
					s.URL, robots, onWire, g, delay-gapSlack)
			}
		}
	})
}
