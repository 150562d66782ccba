package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/redisbackend"
	"github.com/robotsext/robotsext/redisbackend/internal/rediscluster"
)

// TestBinaryCluster: the binary against a real Redis Cluster of three
// masters, given all its nodes or one with -cluster: list finds the
// origins of every master, show and purge reach the origin's node, a
// prefix with nothing under it on any master is an error, and a prefix
// holding a brace is refused before Redis is asked.
func TestBinaryCluster(t *testing.T) {
	t.Parallel()
	addrs := rediscluster.Start(t, 3)
	b := redisbackend.New(rediscluster.Client(t, addrs), redisbackend.WithPrefix("crawl1:"), redisbackend.WithHeartbeat(-1))
	ctx := context.Background()
	now := time.Now()
	origins := []string{"https://shop.example", "https://news.example", "http://api.example:8080", "https://docs.example", "https://blog.example"}
	for _, o := range origins {
		l, ok, _, err := b.Lease(ctx, o, time.Minute)
		if err != nil || !ok {
			t.Fatalf("Lease(%s): %v %v", o, ok, err)
		}
		rec := &backend.Record{Latest: backend.Answer{URL: o + "/robots.txt", Status: 200, Outcome: backend.OutcomeOK,
			Body: []byte("User-agent: *\nCrawl-delay: 3\n"), FetchedAt: now, Expires: now.Add(time.Hour)},
			GoodAt: now, Expires: now.Add(time.Hour)}
		if err := b.Store(ctx, o, l, rec); err != nil {
			t.Fatal(err)
		}
	}
	all := strings.Join(addrs, ",")

	out, errOut, code := runBin(t, "-redis", all, "-prefix", "crawl1:", "list")
	if code != 0 {
		t.Fatalf("list on the cluster: status %d, stderr %q", code, errOut)
	}
	for _, o := range origins {
		if !strings.Contains(out, o) {
			t.Errorf("list on the cluster lacks %s:\n%s", o, out)
		}
	}
	if !strings.Contains(errOut, "listed 5 of 5") {
		t.Errorf("list summary %q; want 5 of 5", errOut)
	}

	out, errOut, code = runBin(t, "-cluster", "-redis", addrs[1], "-prefix", "crawl1:", "show", "https://shop.example/cart")
	if code != 0 || !strings.Contains(out, "Crawl-delay: 3") {
		t.Errorf("show through one node with -cluster: status %d, stdout %q, stderr %q", code, out, errOut)
	}
	out, errOut, code = runBin(t, "-cluster", "-redis", addrs[2], "-prefix", "crawl1:", "purge", "https://news.example")
	if code != 0 || !strings.Contains(out, "purged https://news.example") {
		t.Errorf("purge through one node with -cluster: status %d, stdout %q, stderr %q", code, out, errOut)
	}
	if rec, err := b.Load(ctx, "https://news.example"); err != nil || rec != nil {
		t.Errorf("after the purge Load = %v, %v; want nil", rec, err)
	}

	if _, errOut, code := runBin(t, "-redis", all, "-prefix", "crawl2:", "list"); code != 2 || !strings.Contains(errOut, `nothing was ever stored under prefix "crawl2:"`) {
		t.Errorf("list under an empty prefix: status %d, stderr %q", code, errOut)
	}
	if _, errOut, code := runBin(t, "-redis", all, "-prefix", "crawl{1}:", "list"); code != 2 || !strings.Contains(errOut, "brace") {
		t.Errorf("a prefix with a brace: status %d, stderr %q", code, errOut)
	}
	if _, errOut, code := runBin(t, "-cluster", "-redis", "unix:/tmp/x.sock", "list"); code != 2 || !strings.Contains(errOut, "host:port") {
		t.Errorf("a unix socket as a cluster node: status %d, stderr %q", code, errOut)
	}
}
