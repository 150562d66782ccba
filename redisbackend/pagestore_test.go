package redisbackend

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

var _ robotsext.PageStore = (*PageStore)(nil)

// TestPageStore: get, set, delete, the TTL and the byte bound on a real
// redis-server; it logs what a stored page costs in Redis memory.
func TestPageStore(t *testing.T) {
	t.Parallel()
	srv := startRedisServer(t)
	c := newClient(t, "unix", srv.Sock)
	ctx := context.Background()
	s := NewPageStore(c, WithPageTTL(time.Hour), WithPageMaxBytes(20_000))
	if _, ok, err := s.Get(ctx, "GET https://a.example/"); ok || err != nil {
		t.Fatalf("empty: ok %v err %v", ok, err)
	}
	entry := bytes.Repeat([]byte("p"), 10_000)
	if err := s.Set(ctx, "GET https://a.example/", entry); err != nil {
		t.Fatal(err)
	}
	got, ok, err := s.Get(ctx, "GET https://a.example/")
	if err != nil || !ok || !bytes.Equal(got, entry) {
		t.Fatalf("Get: %d bytes, ok %v, err %v", len(got), ok, err)
	}
	k := s.key("GET https://a.example/")
	if ttl := c.TTL(ctx, k).Val(); ttl <= 59*time.Minute || ttl > time.Hour {
		t.Errorf("TTL %v, want an hour", ttl)
	}
	mem, err := c.MemoryUsage(ctx, k, 0).Result()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("a 10000-byte entry takes %d bytes of Redis memory (key %d bytes)", mem, len(k))
	if over := mem - int64(len(entry)); over < 0 || over > 512 {
		t.Errorf("a page costs %d bytes over its entry, want at most 512", over)
	}
	if err := s.Set(ctx, "GET https://a.example/", bytes.Repeat([]byte("p"), 20_001)); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get(ctx, "GET https://a.example/"); ok || s.Skipped() != 1 {
		t.Errorf("an entry over the bound: stored %v (or the old one kept), skipped %d", ok, s.Skipped())
	}
	_ = s.Set(ctx, "GET https://a.example/", entry)
	if err := s.Delete(ctx, "GET https://a.example/"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.Get(ctx, "GET https://a.example/"); ok {
		t.Error("deleted entry still there")
	}
	if _, _, err := (&PageStore{}).Get(ctx, "k"); err != ErrNoPageClient {
		t.Errorf("zero PageStore: %v", err)
	}
}

// TestPageStoreFleet: two workers (Extensions) over one Redis share the
// page cache: a page the first fetched is a fresh hit for the second,
// which sends nothing.
func TestPageStoreFleet(t *testing.T) {
	t.Parallel()
	srv := startRedisServer(t)
	var pages atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 0\n")
			return
		}
		pages.Add(1)
		w.Header().Set("Cache-Control", "max-age=3600")
		fmt.Fprint(w, "<html><body>"+r.URL.Path+"</body></html>")
	}))
	defer site.Close()
	var results []string
	for worker := range 2 {
		c := colly.NewCollector(colly.UserAgent("FleetBot/1.0 (+https://example.com/bot)"))
		robotsext.Apply(c, robotsext.WithPageStore(NewPageStore(newClient(t, "unix", srv.Sock))))
		c.OnResponse(func(r *colly.Response) {
			results = append(results, fmt.Sprint(worker, " ", robotsext.CacheResultOf(r), " ", strings.Contains(string(r.Body), "/a")))
		})
		_ = c.Visit(site.URL + "/a")
	}
	if pages.Load() != 1 || strings.Join(results, ",") != "0 miss true,1 hit true" {
		t.Errorf("site saw %d page requests; results %q", pages.Load(), results)
	}
}
