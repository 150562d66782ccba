package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/redisbackend"
)

// TestBinaryListScale populates a real redis-server with many origins (50,000
// by default, ROBOTSADMIN_LIST_ORIGINS=1000000 for the fleet docs/scaling.md
// sizes Redis for) and lists them with the binary: every origin comes out,
// the -state and -host filters keep the right ones, and the per-origin
// cost is logged (wall clock, which is the subject here; there is no
// assertion on it). Skipped with -short.
func TestBinaryListScale(t *testing.T) {
	if testing.Short() {
		t.Skip("populates Redis with 50,000 origins")
	}
	n := 50_000
	if s := os.Getenv("ROBOTSADMIN_LIST_ORIGINS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 10 {
			t.Fatalf("ROBOTSADMIN_LIST_ORIGINS=%q: want a count of at least 10", s)
		}
	}
	addr := redisServer(t)
	client := redis.NewClient(&redis.Options{Addr: addr})
	defer client.Close()
	ctx := context.Background()
	b := redisbackend.New(client, redisbackend.WithPrefix("big:"), redisbackend.WithHeartbeat(-1))

	// One record stored as a worker stores it gives the bytes and the key
	// form; the others are copies written in pipelines (a worker's Lease
	// and Store per origin would take minutes at a million). Every tenth
	// origin is unreachable.
	now := time.Now()
	store := func(origin string, rec *backend.Record) string {
		l, ok, _, err := b.Lease(ctx, origin, time.Minute)
		if err != nil || !ok {
			t.Fatalf("Lease: %v %v", ok, err)
		}
		if err := b.Store(ctx, origin, l, rec); err != nil {
			t.Fatal(err)
		}
		client.Del(ctx, "big:{"+strings.TrimPrefix(origin, "https://")+"}:lease:"+origin)
		keys, err := client.Keys(ctx, "big:{*}:rec:"+origin).Result()
		if err != nil || len(keys) != 1 {
			t.Fatalf("the record of %s: keys %q, %v", origin, keys, err)
		}
		return keys[0]
	}
	okRec := &backend.Record{Latest: backend.Answer{URL: "https://o0.shop.example/robots.txt", Status: 200, Outcome: backend.OutcomeOK,
		Body: []byte("User-agent: *\nCrawl-delay: 1\nDisallow: /cart\n"), FetchedAt: now, Expires: now.Add(time.Hour)}, GoodAt: now, Expires: now.Add(time.Hour)}
	downRec := &backend.Record{Latest: backend.Answer{URL: "https://o9.shop.example/robots.txt", Status: 503, Outcome: backend.OutcomeUnreachable,
		FetchedAt: now, Expires: now.Add(time.Minute)}, Failures: 1, Expires: now.Add(time.Minute)}
	okKey, downKey := store("https://o0.shop.example", okRec), store("https://o9.shop.example", downRec)
	okRaw, _ := client.Get(ctx, okKey).Bytes()
	downRaw, _ := client.Get(ctx, downKey).Bytes()
	keyOf := func(i int) string {
		host := fmt.Sprintf("o%d.shop.example", i)
		return "big:{" + host + "}:rec:https://" + host
	}
	if keyOf(0) != okKey || keyOf(9) != downKey {
		t.Fatalf("key form changed: %q, %q", okKey, downKey)
	}
	start := time.Now()
	for lo := 0; lo < n; lo += 5000 {
		if _, err := client.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i := lo; i < min(lo+5000, n); i++ {
				raw := okRaw
				if i%10 == 9 {
					raw = downRaw
				}
				p.Set(ctx, keyOf(i), raw, time.Hour)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("populated %d origins in %v", n, time.Since(start).Round(time.Millisecond))

	count := func(args ...string) (int, time.Duration) {
		t.Helper()
		cmd := exec.Command(binPath, append([]string{"-redis", addr, "-prefix", "big:"}, args...)...)
		start := time.Now()
		out, err := cmd.Output()
		d := time.Since(start)
		if err != nil {
			t.Fatalf("list %v: %v", args, err)
		}
		return strings.Count(string(out), "\n") - 1, d // less the header
	}
	got, d := count("list")
	if got != n {
		t.Errorf("list printed %d origins, want %d", got, n)
	}
	t.Logf("list: %d origins in %v, %.1f µs per origin (extrapolated to 1,000,000 origins: %.0f s)",
		n, d.Round(time.Millisecond), float64(d.Microseconds())/float64(n), d.Seconds()*1e6/float64(n))
	if got, _ := count("-state", "unreachable", "list"); got != n/10 {
		t.Errorf("-state unreachable printed %d origins, want %d", got, n/10)
	}
	if got, _ := count("-host", "o1?.shop.example", "list"); got != min(10, max(n-10, 0)) {
		t.Errorf("-host o1?.shop.example printed %d origins, want 10", got)
	}
}
