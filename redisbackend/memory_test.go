package redisbackend

import (
	"fmt"
	"github.com/robotsext/robotsext/backend"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/backend/backendtest"
)

// typicalRobots is a robots.txt of the common kind: a few groups, a
// dozen rules, a sitemap (about 600 bytes).
const typicalRobots = `# robots.txt for https://www.example.com
User-agent: *
Disallow: /wp-admin/
Allow: /wp-admin/admin-ajax.php
Disallow: /cart/
Disallow: /checkout/
Disallow: /my-account/
Disallow: /*?add-to-cart=*
Disallow: /*?orderby=*
Disallow: /search
Disallow: /tag/*/feed/

User-agent: GPTBot
Disallow: /

User-agent: AhrefsBot
Crawl-delay: 10
Disallow: /private/

User-agent: Googlebot-Image
Allow: /images/
Disallow: /images/drafts/

Sitemap: https://www.example.com/sitemap_index.xml
Sitemap: https://www.example.com/news-sitemap.xml
`

// recordOf returns the record a fetch of body from origin stores.
func recordOf(origin string, body []byte, now time.Time) *backend.Record {
	return &backend.Record{
		Latest: backend.Answer{
			URL: origin + "/robots.txt", FinalURL: origin + "/robots.txt", Status: 200,
			Outcome: backend.OutcomeOK, Body: body, FetchedAt: now, Expires: now.Add(24 * time.Hour),
			ETag: `"6d2-5f3a8c1e"`, LastModified: "Mon, 02 Jun 2025 10:00:00 GMT",
		},
		GoodAt:  now,
		Expires: now.Add(24 * time.Hour),
	}
}

// usedMemory returns Redis's used_memory.
func usedMemory(t *testing.T, c *redis.Client) int64 {
	t.Helper()
	info, err := c.Info(t.Context(), "memory").Result()
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.SplitSeq(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no used_memory in INFO memory")
	return 0
}

// TestMemoryPerOrigin measures what one origin costs a real Redis: MEMORY
// USAGE of a record with a typical robots.txt and with a 500 KiB one, and
// used_memory grown by 2,000 origins, each with a record and a pace (the
// lease is gone once the record is stored). It logs the figures (run with
// -v) and fails when a typical origin exceeds 4 KiB, which would put a
// million origins above 4 GB.
func TestMemoryPerOrigin(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	c := newClient(t, "unix", s.Sock)
	b := New(c, WithHeartbeat(-1))
	ctx := t.Context()
	now := time.Now()

	usage := func(origin string, body []byte) int64 {
		rec := recordOf(origin, body, now)
		l, _, _, err := b.Lease(ctx, origin, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Store(ctx, origin, l, rec); err != nil {
			t.Fatal(err)
		}
		n, err := c.MemoryUsage(ctx, b.keys.record(origin), 0).Result()
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	typical := usage("https://www.typical.example", []byte(typicalRobots))
	big := usage("https://www.big.example", backendtest.BigBody(robotsext.MaxBodySize))
	if _, err := b.Reserve(ctx, "www.typical.example", 10*time.Second); err != nil {
		t.Fatal(err)
	}
	pace, err := c.MemoryUsage(ctx, b.keys.pace("www.typical.example"), 0).Result()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("MEMORY USAGE: record with a typical robots.txt (%d B): %d B; with a 500 KiB one: %d B; pace: %d B",
		len(typicalRobots), typical, big, pace)

	const n = 2000
	before := usedMemory(t, c)
	for i := range n {
		origin := fmt.Sprintf("https://www.site%d.example", i)
		rec := recordOf(origin, []byte(typicalRobots), now)
		l, _, _, err := b.Lease(ctx, origin, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Store(ctx, origin, l, rec); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Reserve(ctx, fmt.Sprintf("www.site%d.example", i), 10*time.Second); err != nil {
			t.Fatal(err)
		}
	}
	per := (usedMemory(t, c) - before) / n
	t.Logf("used_memory per origin (record + pace, %d origins with a typical robots.txt): %d B; 1M origins ≈ %.2f GB",
		n, per, float64(per)*1e6/1e9)
	if per > 4096 {
		t.Errorf("an origin costs %d B of Redis memory; want at most 4 KiB", per)
	}
}
