package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/redisbackend"
)

// seed stores two origins' records under prefix through a Backend, as
// workers would, and leaves a lease held by worker "worker-7" on a third.
func seed(t *testing.T, addr, prefix string) {
	t.Helper()
	client := redis.NewClient(&redis.Options{Addr: addr})
	t.Cleanup(func() { client.Close() })
	b := redisbackend.New(client, redisbackend.WithPrefix(prefix), redisbackend.WithHeartbeat(-1),
		redisbackend.WithWorkerID("worker-7"))
	ctx := context.Background()
	now := time.Now()
	recs := map[string]*backend.Record{
		"https://shop.example": {
			Latest: backend.Answer{URL: "https://shop.example/robots.txt", Status: 200, Outcome: backend.OutcomeOK,
				Body: []byte("User-agent: *\nCrawl-delay: 2\nDisallow: /cart\n"), FetchedAt: now, Expires: now.Add(time.Hour)},
			GoodAt: now, Expires: now.Add(time.Hour),
		},
		"http://down.example:8080": {
			Latest:   backend.Answer{URL: "http://down.example:8080/robots.txt", Status: 503, Outcome: backend.OutcomeUnreachable, FetchedAt: now, Expires: now.Add(2 * time.Minute)},
			Failures: 2, Expires: now.Add(2 * time.Minute),
		},
	}
	for o, r := range recs {
		l, ok, _, err := b.Lease(ctx, o, time.Minute)
		if err != nil || !ok {
			t.Fatalf("Lease(%s): %v %v", o, ok, err)
		}
		if err := b.Store(ctx, o, l, r); err != nil {
			t.Fatalf("Store(%s): %v", o, err)
		}
	}
	if _, ok, _, err := b.Lease(ctx, "https://busy.example", time.Minute); err != nil || !ok {
		t.Fatalf("Lease(busy): %v %v", ok, err)
	}
}

func TestCommands(t *testing.T) {
	t.Parallel()
	mr := miniredis.RunT(t)
	seed(t, mr.Addr(), "crawl1:")
	closed := miniredis.RunT(t)
	closedAddr := closed.Addr()
	closed.Close()

	tests := []struct {
		name     string
		args     []string
		status   int
		want     []string // substrings of stdout
		wantErr  string   // substring of stderr
		dontWant []string
	}{
		{"list", []string{"-prefix", "crawl1:", "list"}, 0,
			[]string{"ORIGIN", "https://shop.example", "ok", "2s", "http://down.example:8080", "unreachable", "503"}, "", []string{"busy.example"}},
		{"list for another agent", []string{"-prefix", "crawl1:", "-agent", "FooBot", "list"}, 0,
			[]string{"2s"}, "", nil},
		{"show by URL", []string{"-prefix", "crawl1:", "show", "HTTPS://Shop.Example/cart?x=1"}, 0,
			[]string{"origin:", "https://shop.example", "outcome:", "ok", "Disallow: /cart", "crawl-delay:", "2s (for *)"}, "", nil},
		{"show a failing origin", []string{"-prefix", "crawl1:", "show", "http://down.example:8080"}, 0,
			[]string{"unreachable", "failures:", "2"}, "", []string{"---"}},
		{"show a lease holder", []string{"-prefix", "crawl1:", "show", "https://busy.example"}, 0,
			[]string{"lease:", "worker-7"}, "", nil},
		{"unknown origin", []string{"-prefix", "crawl1:", "show", "https://nowhere.example"}, 2,
			nil, "no record for https://nowhere.example", nil},
		{"wrong prefix", []string{"-prefix", "crawl2:", "list"}, 2,
			nil, `nothing was ever stored under prefix "crawl2:"`, nil},
		{"wrong prefix on show", []string{"-prefix", "crawl2:", "show", "https://shop.example"}, 2,
			nil, `nothing was ever stored under prefix "crawl2:"`, nil},
		{"redis down", []string{"-redis", closedAddr, "-timeout", "500ms", "list"}, 2,
			nil, "cannot reach Redis at " + closedAddr, nil},
		{"no command", nil, 2, nil, "no command given", nil},
		{"unknown command", []string{"drop"}, 2, nil, `unknown command "drop"`, nil},
		{"missing argument", []string{"show"}, 2, nil, "show takes 1 argument(s), got 0", nil},
		{"not a URL", []string{"-prefix", "crawl1:", "show", "ftp://x.example"}, 2, nil, "is not an http(s) URL", nil},
		{"bad redis URL", []string{"-redis", "redis://:x@[bad", "list"}, 2, nil, "-redis", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := tc.args
			if len(args) > 0 && args[0] != "-redis" {
				args = append([]string{"-redis", mr.Addr()}, args...)
			}
			var out, errb bytes.Buffer
			status := run(args, &out, &errb)
			if status != tc.status {
				t.Errorf("status %d, want %d; stderr %q", status, tc.status, errb.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range tc.dontWant {
				if strings.Contains(out.String(), w) {
					t.Errorf("stdout has %q:\n%s", w, out.String())
				}
			}
			if !strings.Contains(errb.String(), tc.wantErr) {
				t.Errorf("stderr %q lacks %q", errb.String(), tc.wantErr)
			}
		})
	}
}

// TestPurge: purge drops the record for the fleet (a second Backend, as
// another worker, sees it in the purge log) and a second purge is an
// unknown origin.
func TestPurge(t *testing.T) {
	t.Parallel()
	mr := miniredis.RunT(t)
	seed(t, mr.Addr(), "crawl1:")
	client := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	defer client.Close()
	var worker backend.Backend = redisbackend.New(client, redisbackend.WithPrefix("crawl1:"), redisbackend.WithHeartbeat(-1))
	f, ok := worker.(backend.Forgetter)
	if !ok {
		t.Fatal("redisbackend.Backend is not a backend.Forgetter")
	}
	ctx := context.Background()
	_, cursor, _, err := f.Purges(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if status := run([]string{"-redis", mr.Addr(), "-prefix", "crawl1:", "purge", "https://shop.example/x"}, &out, &errb); status != 0 {
		t.Fatalf("purge: status %d, stderr %q", status, errb.String())
	}
	if !strings.Contains(out.String(), "purged https://shop.example") {
		t.Errorf("purge printed %q", out.String())
	}
	if rec, err := worker.Load(ctx, "https://shop.example"); err != nil || rec != nil {
		t.Errorf("after purge Load = %v, %v; want nil", rec, err)
	}
	origins, _, all, err := f.Purges(ctx, cursor)
	if err != nil || all || len(origins) != 1 || origins[0] != "https://shop.example" {
		t.Errorf("a worker's Purges = %q, all %v, %v; want [https://shop.example]", origins, all, err)
	}
	errb.Reset()
	if status := run([]string{"-redis", mr.Addr(), "-prefix", "crawl1:", "purge", "https://shop.example"}, &out, &errb); status != 2 {
		t.Errorf("second purge: status %d, want 2 (%q)", status, errb.String())
	}
}
