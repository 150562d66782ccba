package redisbackend_test

import (
	"context"
	"fmt"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/redisbackend"
)

// Each worker process of a crawl makes one Backend on a client of the
// shared Redis and gives it to its Extension. The client settings keep a
// slow or dead Redis from stalling requests: per-call deadlines reach the
// socket, dialling and retries are short. The Extension then falls back to
// local fetching and pacing until Redis answers again.
func ExampleNew() {
	client := redis.NewClient(&redis.Options{
		Addr:                  "redis.internal:6379",
		ContextTimeoutEnabled: true,
		DialTimeout:           250 * time.Millisecond,
		ReadTimeout:           250 * time.Millisecond,
		WriteTimeout:          250 * time.Millisecond,
		MaxRetries:            1,
	})
	defer client.Close()

	backend := redisbackend.New(client,
		redisbackend.WithPrefix("crawl-2026-05:"), // one prefix per crawl
		redisbackend.WithBreaker(5, 2*time.Second),
	)
	defer backend.Close(context.Background()) // leave the fleet count at once

	c := colly.NewCollector(colly.UserAgent("MyBot/1.0 (+https://example.com/bot)"))
	robotsext.Apply(c, robotsext.WithBackend(backend))
	// c.Visit(...) as usual; every worker shares robots.txt and each
	// host's Crawl-delay with the others.
}

// Every worker of a fleet of eight is told the fleet's size, so that a
// worker that cannot reach Redis (down at start, a wrong password, a full
// Redis) paces each host at its Crawl-delay × 8 from its first request;
// without it a worker assumes only the workers it has seen. The worker id
// starts each lease token, so robotsadmin shows which worker fetches.
func ExampleWithFleetSize() {
	client := redis.NewClient(&redis.Options{Addr: "redis.internal:6379", ContextTimeoutEnabled: true})
	defer client.Close()

	backend := redisbackend.New(client,
		redisbackend.WithFleetSize(8),
		redisbackend.WithWorkerID("crawler-3"), // default: host name/process id
	)
	defer backend.Close(context.Background())

	c := colly.NewCollector()
	robotsext.Apply(c, robotsext.WithBackend(backend))
}

// A worker's client also serves the collector's redisstorage: the
// Backend keeps 16 of its 80 connections free for it. Of the Backend's
// 64, half are kept for urgent calls (the wire claims of the requests in
// Colly's slots); the burst of calls of the thousands of requests
// enqueued at once waits in the process, within the other half.
func ExampleWithInFlight() {
	client := redis.NewClient(&redis.Options{
		Addr:                  "redis.internal:6379",
		ContextTimeoutEnabled: true,
		PoolSize:              80,
	})
	defer client.Close()

	backend := redisbackend.New(client, redisbackend.WithInFlight(64))
	defer backend.Close(context.Background())

	c := colly.NewCollector(colly.Async(true))
	_ = c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 64})
	robotsext.Apply(c, robotsext.WithBackend(backend))
}

// An operator's report of the paused hosts of a large fleet reads it page
// by page, as robotsadmin list does: ScanOrigins streams the origins a
// thousand at a time, and InspectMany reads each page's records, leases
// and pauses in one pipelined round trip, every call bounded by
// WithTimeout rather than the whole report.
func ExampleBackend_ScanOrigins() {
	client := redis.NewClient(&redis.Options{Addr: "redis.internal:6379", ContextTimeoutEnabled: true})
	defer client.Close()
	backend := redisbackend.New(client, redisbackend.WithTimeout(2*time.Second))
	defer backend.Close(context.Background())

	ctx := context.Background()
	err := backend.ScanOrigins(ctx, "*.shop.example", func(origins []string) error {
		states, err := backend.InspectMany(ctx, origins)
		if err != nil {
			return err
		}
		for _, st := range states {
			if st.Pause != "" {
				fmt.Printf("%s %s until %s\n", st.Origin, st.Pause, st.PauseEnds.Format(time.RFC3339))
			}
		}
		return nil
	})
	if err != nil {
		fmt.Println("report cut short:", err)
	}
}
