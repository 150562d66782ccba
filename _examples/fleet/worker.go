package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/redisbackend"
)

// runWorker crawls pages of site, plus one disallowed page, sharing
// robots.txt and the pace with the other workers through the Redis at
// redisAddr. It prints what it fetched and what robots.txt blocked.
func runWorker(id, redisAddr, site string, pages int) error {
	client := redis.NewClient(&redis.Options{
		Addr:                  redisAddr,
		ContextTimeoutEnabled: true, // the backend's per-call timeouts reach the socket
		DialTimeout:           time.Second,
	})
	defer client.Close()
	backend := redisbackend.New(client, redisbackend.WithPrefix("fleet-example:"))
	defer backend.Close(context.Background())

	c := colly.NewCollector(colly.UserAgent("fleetbot/1.0 (worker " + id + ")"))
	ext := robotsext.Apply(c, robotsext.WithBackend(backend))
	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		fmt.Printf("BLOCKED %s (%s)\n", r.URL, v.Reason)
	})
	c.OnResponse(func(r *colly.Response) {
		fmt.Printf("%s FETCHED %s\n", time.Now().Format("15:04:05.000"), r.Request.URL)
	})
	for p := range pages {
		_ = c.Visit(fmt.Sprintf("%s/worker%s/page%d", site, id, p))
	}
	_ = c.Visit(fmt.Sprintf("%s/private/worker%s", site, id))

	st := ext.Stats()
	var fetched uint64
	for _, n := range st.Fetches {
		fetched += n
	}
	fmt.Printf("robots.txt fetched by this worker: %d; fleet size it last saw: %d\n", fetched, backend.FleetSize())
	return nil
}
