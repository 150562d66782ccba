package redisbackend

// The fleet's back-off through a real Redis: three workers, each with an
// Extension and a Backend of its own, crawl a host that answers 429 with
// Retry-After 2 for a window of real time.

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

// overloadSite answers every page 429 Retry-After 2 for window from its
// first page request, then 200, counting requests in the window and the
// pages answered 200.
type overloadSite struct {
	*httptest.Server
	mu     sync.Mutex
	start  time.Time
	during int
	ok     map[string]bool
}

func newOverloadSite(t *testing.T, window time.Duration) *overloadSite {
	s := &overloadSite{ok: map[string]bool{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nAllow: /\nCrawl-delay: 0\n") // the back-off, not the pace
			return
		}
		s.mu.Lock()
		now := time.Now()
		if s.start.IsZero() {
			s.start = now
		}
		in := now.Sub(s.start) < window
		if in {
			s.during++
		} else {
			s.ok[r.URL.Path] = true
		}
		s.mu.Unlock()
		if in {
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(s.Close)
	return s
}

// crawlFleet crawls pages of s with three workers sharing Redis under
// prefix, each an Async collector (Parallelism 4) with the retry idiom
// (30 attempts), and returns the requests in the overload, the pages
// answered 200 and the workers' summed pauses and probes.
func crawlFleet(t *testing.T, s *overloadSite, prefix string, opts ...robotsext.Option) (during, ok int, pauses, probes, anomalies uint64) {
	srv := startRedisServer(t)
	const workers, pages = 3, 60
	var exts []*robotsext.Extension
	var cs []*colly.Collector
	for w := range workers {
		b := New(newClient(t, "unix", srv.Sock), WithPrefix(prefix), WithHeartbeat(-1))
		c := colly.NewCollector(colly.UserAgent(fmt.Sprintf("fleetbot/1.0 (worker %d)", w)), colly.Async(true))
		if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 4}); err != nil {
			t.Fatal(err)
		}
		o := append([]robotsext.Option{robotsext.WithBackend(b), robotsext.WithLogger(slog.New(slog.DiscardHandler))}, opts...)
		exts = append(exts, robotsext.Apply(c, o...))
		retryIdiom(c, http.StatusTooManyRequests)
		cs = append(cs, c)
	}
	var wg sync.WaitGroup
	for w, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < pages; i += workers {
				_ = c.Visit(fmt.Sprintf("%s/p/%d", s.URL, i))
			}
			c.Wait()
		}()
	}
	wg.Wait()
	for _, e := range exts {
		st := e.Stats()
		pauses += st.Pauses[robotsext.PauseTooManyRequests]
		probes += st.Probes
		anomalies += st.BackendAnomalies
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.during, len(s.ok), pauses, probes, anomalies
}

// TestFleetBackoff: issue 27's fleet case. Without the back-off the three
// workers spend all their attempts in the overload and lose every page;
// with it the fleet pauses as one (one pause counted, one probe), sends
// a few requests during the overload and gets every page. Real time: the
// overload is a window of a real server's clock, 1.5 s, shorter than the
// Retry-After so that the one probe succeeds.
func TestFleetBackoff(t *testing.T) {
	t.Parallel()
	bd, bok, _, _, _ := crawlFleet(t, newOverloadSite(t, 1500*time.Millisecond), "before:", robotsext.WithoutBackoff())
	ad, aok, pauses, probes, anomalies := crawlFleet(t, newOverloadSite(t, 1500*time.Millisecond), "after:")
	t.Logf("3 workers via Redis vs 429 Retry-After 2: without back-off %d requests in the overload, %d pages 200; with it %d, %d (pauses %d, probes %d)",
		bd, bok, ad, aok, pauses, probes)
	if ad > 16 || aok != 60 {
		t.Errorf("with the back-off: %d requests in the overload, %d pages 200; want ≤ 16 and 60", ad, aok)
	}
	if pauses != 1 || probes != 1 || anomalies != 0 {
		t.Errorf("the fleet counted %d pauses, %d probes, %d anomalies; want 1, 1, 0", pauses, probes, anomalies)
	}
	if bd <= ad {
		t.Errorf("without the back-off %d requests in the overload, with it %d", bd, ad)
	}
}

// TestPauseCorrupt: a pause key holding garbage, a key of another type,
// or times a year ahead neither stalls the host nor passes unnoticed:
// Ask and Pause repair it (repaired true) and the host is in good health
// again.
func TestPauseCorrupt(t *testing.T) {
	t.Parallel()
	srv := startRedisServer(t)
	c := newClient(t, "unix", srv.Sock)
	b := New(c, WithPrefix("corruptpause:"), WithHeartbeat(-1))
	yearAhead := func(now int64) string {
		return fmt.Sprintf("1 %d 1000 0 0 0 0 ", now+int64(365*24*time.Hour/time.Microsecond))
	}
	cases := []struct {
		name string
		set  func(key string, now int64) error
	}{
		{"garbage", func(key string, _ int64) error { return c.Set(t.Context(), key, "garbage", time.Hour).Err() }},
		{"bad phase", func(key string, now int64) error {
			return c.Set(t.Context(), key, fmt.Sprintf("7 %d 1 0 0 0 0 ", now), time.Hour).Err()
		}},
		{"probe length wrong", func(key string, now int64) error {
			return c.Set(t.Context(), key, fmt.Sprintf("2 %d 1 %d 0 0 9 x", now, now), time.Hour).Err()
		}},
		{"a year ahead", func(key string, now int64) error { return c.Set(t.Context(), key, yearAhead(now), time.Hour).Err() }},
		{"another type", func(key string, _ int64) error { return c.RPush(t.Context(), key, "x").Err() }},
	}
	for i, tc := range cases {
		host := fmt.Sprintf("corrupt%d.example", i)
		if err := tc.set(b.keys.pause(host), redisMicros(t, c)); err != nil {
			t.Fatal(err)
		}
		w, probe, healthy, repaired, err := b.Ask(t.Context(), host, "tok")
		if err != nil || w != 0 || probe || !healthy || !repaired {
			t.Errorf("%s: Ask = %v, probe %v, healthy %v, repaired %v, %v; want healthy and repaired", tc.name, w, probe, healthy, repaired, err)
		}
		if err := tc.set(b.keys.pause(host), redisMicros(t, c)); err != nil {
			t.Fatal(err)
		}
		w, started, _, repaired, err := b.Pause(t.Context(), host, time.Second, time.Second, time.Minute)
		if err != nil || !started || !repaired || w > time.Second {
			t.Errorf("%s: Pause = %v, started %v, repaired %v, %v; want a fresh one-second pause, repaired", tc.name, w, started, repaired, err)
		}
	}
	// The index of another type: Paused repairs it and lists nothing.
	if err := c.Set(t.Context(), b.keys.pauses(), "x", time.Hour).Err(); err != nil {
		t.Fatal(err)
	}
	if hosts, err := b.Paused(t.Context(), 10); err != nil || len(hosts) != 0 {
		t.Errorf("Paused over an index of another type = %v, %v", hosts, err)
	}
	if _, _, _, _, err := b.Pause(t.Context(), "after.example", time.Second, time.Second, time.Minute); err != nil {
		t.Fatal(err)
	}
	if hosts, err := b.Paused(t.Context(), 10); err != nil || strings.Join(hosts, ",") != "after.example" {
		t.Errorf("Paused after the repair = %v, %v", hosts, err)
	}
}

// TestInspectPause: Inspect (and so robotsadmin show) reports a host's
// pause and its end.
func TestInspectPause(t *testing.T) {
	t.Parallel()
	srv := startRedisServer(t)
	b := New(newClient(t, "unix", srv.Sock), WithPrefix("inspectpause:"), WithHeartbeat(-1))
	before := time.Now()
	if _, _, _, _, err := b.Pause(t.Context(), "slow.example:8080", time.Hour, time.Second, 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	st, err := b.Inspect(t.Context(), "http://slow.example:8080")
	if err != nil {
		t.Fatal(err)
	}
	if st.Pause != "paused" || st.PauseEnds.Before(before.Add(time.Hour-time.Minute)) || st.PauseEnds.After(time.Now().Add(time.Hour+time.Minute)) {
		t.Fatalf("Inspect: pause %q until %v; want paused for an hour", st.Pause, st.PauseEnds)
	}
	if st, err := b.Inspect(t.Context(), "http://fine.example"); err != nil || st.Pause != "" {
		t.Fatalf("Inspect of a host in good health: pause %q, %v", st.Pause, err)
	}
}

// retryIdiom registers the usual retry idiom on c: a request answered
// with one of statuses is retried, up to 30 attempts a path.
func retryIdiom(c *colly.Collector, statuses ...int) {
	var mu sync.Mutex
	attempts := map[string]int{}
	c.OnError(func(r *colly.Response, _ error) {
		if !slices.Contains(statuses, r.StatusCode) {
			return
		}
		mu.Lock()
		attempts[r.Request.URL.Path]++
		n := attempts[r.Request.URL.Path]
		mu.Unlock()
		if n < 30 {
			_ = r.Request.Retry()
		}
	})
}
