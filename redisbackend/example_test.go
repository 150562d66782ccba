package redisbackend_test

import (
	"context"
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
		redisbackend.WithFleetSize(8),          // the workers you run: their fallback pace while Redis is away
		redisbackend.WithWorkerID("crawler-3"), // shown as the lease holder by robotsadmin; default host/pid
	)
	defer backend.Close(context.Background()) // leave the fleet count at once

	c := colly.NewCollector(colly.UserAgent("MyBot/1.0 (+https://example.com/bot)"))
	robotsext.Apply(c, robotsext.WithBackend(backend))
	// c.Visit(...) as usual; every worker shares robots.txt and each
	// host's Crawl-delay with the others.
}
