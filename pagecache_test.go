package robotsext

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
)

// cacheSite is a loopback site of three kinds of pages: /fresh/ (an hour
// of max-age), /etag/ (no-cache with an ETag: revalidated each time, 304
// while unchanged) and /nostore/; robots.txt is robots. It counts what it
// is asked and the body bytes it sends.
type cacheSite struct {
	*httptest.Server
	clk      *stepClock
	robots   atomic.Pointer[string]
	requests atomic.Int64 // page requests
	notMod   atomic.Int64 // of which answered 304
	bytes    atomic.Int64 // page body bytes sent
	status   atomic.Int32 // when non-zero, every page request gets it
}

func newCacheSite(t *testing.T, clk *stepClock, robots string) *cacheSite {
	t.Helper()
	s := &cacheSite{clk: clk}
	s.robots.Store(&robots)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, *s.robots.Load())
			return
		}
		s.requests.Add(1)
		if st := s.status.Load(); st != 0 {
			w.Header().Set("Retry-After", "30")
			w.WriteHeader(int(st))
			return
		}
		w.Header().Set("Date", clk.now().Format(http.TimeFormat))
		w.Header().Set("Content-Type", "text/html")
		switch {
		case strings.HasPrefix(r.URL.Path, "/fresh/"):
			w.Header().Set("Cache-Control", "max-age=3600")
		case strings.HasPrefix(r.URL.Path, "/etag/"):
			w.Header().Set("Cache-Control", "no-cache")
			w.Header().Set("ETag", `"v1"`)
			if r.Header.Get("If-None-Match") == `"v1"` {
				s.notMod.Add(1)
				w.WriteHeader(http.StatusNotModified)
				return
			}
		default:
			w.Header().Set("Cache-Control", "no-store")
		}
		body := "<html><body>" + r.URL.Path + strings.Repeat(".", 1000) + "</body></html>"
		s.bytes.Add(int64(len(body)))
		fmt.Fprint(w, body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *cacheSite) urls(kinds ...string) []string {
	var out []string
	for _, k := range kinds {
		for i := range 3 {
			out = append(out, fmt.Sprintf("%s/%s/%d", s.URL, k, i))
		}
	}
	return out
}

// cacheRun is one crawl's outcome.
type cacheRun struct {
	ext      *Extension
	results  map[string]CacheResult // by path
	bodies   map[string]string
	errs     []string
	blocked  []string
	moved    time.Duration // the Extension's clock moved by the pace
	requests int64         // page requests the site saw
	logs     string
}

// crawlCached crawls urls with a fresh collector and Extension, as a new
// run of the same crawler would; setup adjusts the collector after Apply.
func crawlCached(t *testing.T, s *cacheSite, urls []string, setup func(*colly.Collector, *Extension), opts ...Option) *cacheRun {
	t.Helper()
	var logs bytes.Buffer
	var mu sync.Mutex
	run := &cacheRun{results: map[string]CacheResult{}, bodies: map[string]string{}}
	c := colly.NewCollector(colly.StdlibContext(crawlContext(t)), colly.UserAgent("CacheBot/1.0"))
	c.AllowURLRevisit = true
	run.ext = Apply(c, append([]Option{WithLogger(slog.New(slog.NewTextHandler(&logs, nil))), WithClock(s.clk.now), withSleep(s.clk.sleep), withRand(noJitter)}, opts...)...)
	if setup != nil {
		setup(c, run.ext)
	}
	c.OnResponse(func(r *colly.Response) {
		mu.Lock()
		defer mu.Unlock()
		if r.StatusCode != 200 {
			t.Errorf("%s: OnResponse saw %d", r.Request.URL.Path, r.StatusCode)
		}
		run.results[r.Request.URL.Path] = CacheResultOf(r)
		run.bodies[r.Request.URL.Path] = string(r.Body)
	})
	c.OnError(func(r *colly.Response, err error) {
		mu.Lock()
		defer mu.Unlock()
		run.errs = append(run.errs, fmt.Sprintf("%s: %d %v", r.Request.URL.Path, r.StatusCode, err))
	})
	run.ext.OnBlocked(func(r *colly.Request, _ Verdict) { run.blocked = append(run.blocked, r.URL.Path) })
	before, req0 := s.clk.now(), s.requests.Load()
	for _, u := range urls {
		_ = c.Visit(u)
	}
	c.Wait()
	run.moved, run.requests, run.logs = s.clk.now().Sub(before), s.requests.Load()-req0, logs.String()
	return run
}

// TestPageCacheRecrawl crawls a Crawl-delay: 1 site twice over one cache
// directory: the second run sends nothing for fresh pages and waits no
// pace for them, revalidates the ETag pages (304s, seen as 200s with the
// body), and downloads the no-store ones again.
func TestPageCacheRecrawl(t *testing.T) {
	t.Parallel()
	for _, async := range []bool{false, true} {
		t.Run(fmt.Sprint("async=", async), func(t *testing.T) {
			t.Parallel()
			testPageCacheRecrawl(t, async)
		})
	}
}

func testPageCacheRecrawl(t *testing.T, async bool) {
	clk := &stepClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := newCacheSite(t, clk, "User-agent: *\nCrawl-delay: 1\n")
	dir := t.TempDir()
	urls := s.urls("fresh", "etag", "nostore")
	var setup func(*colly.Collector, *Extension)
	if async {
		setup = func(c *colly.Collector, _ *Extension) { c.Async = true }
	}
	first := crawlCached(t, s, urls, setup, WithPageCache(dir))
	if first.requests != 9 || len(first.errs) != 0 {
		t.Fatalf("first run: %d requests, errors %q", first.requests, first.errs)
	}
	clk.sleep(t.Context(), time.Minute) // a minute later: /fresh/ is still fresh
	second := crawlCached(t, s, urls, setup, WithPageCache(dir))
	if len(second.errs) != 0 {
		t.Fatalf("second run: errors %q", second.errs)
	}
	if second.requests != 6 || s.notMod.Load() != 3 {
		t.Errorf("second run: the site saw %d requests (%d answered 304), want 6 (3)", second.requests, s.notMod.Load())
	}
	for _, u := range urls {
		p := u[len(s.URL):]
		want := map[string]CacheResult{"fresh": CacheHit, "etag": CacheRevalidated, "nostore": CacheMiss}[strings.Split(p, "/")[1]]
		if got := second.results[p]; got != want {
			t.Errorf("%s: %v, want %v", p, got, want)
		}
		if !strings.Contains(second.bodies[p], p) {
			t.Errorf("%s: body %q", p, second.bodies[p])
		}
	}
	// 6 requests went out at a 1 s pace; the 3 fresh pages waited for
	// none. (With Async the waits overlap, and the hand-moved clock adds
	// them up: the count of paced requests tells instead.)
	if n := second.ext.Stats().PaceWaits.Count; n != 6 {
		t.Errorf("%d requests waited for the pace, want 6 (none of the fresh pages)", n)
	}
	if !async && second.moved > 6*time.Second {
		t.Errorf("the second run waited %v of pace, want at most 6 s (none for fresh pages)", second.moved)
	}
	st := second.ext.Stats().PageCache
	if st.Hits != 3 || st.Revalidated != 3 || st.Misses != 3 || st.BytesSaved == 0 {
		t.Errorf("Stats.PageCache = %+v", st)
	}
	if r := second.ext.Stats().Responses; r[Status2xx] != 3 || r[Status3xx] != 3 {
		t.Errorf("Responses = %v, want 3 2xx and the 3 304s (fresh hits are no response of the host)", r)
	}
}

// TestPageCacheOnlyOnlyFreshWaitsNothing: a crawl of fresh pages only
// sends nothing and moves the pace clock not at all.
func TestPageCacheFreshWaitsNothing(t *testing.T) {
	t.Parallel()
	clk := &stepClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := newCacheSite(t, clk, "User-agent: *\nCrawl-delay: 1\n")
	dir := t.TempDir()
	crawlCached(t, s, s.urls("fresh"), nil, WithPageCache(dir))
	second := crawlCached(t, s, s.urls("fresh"), nil, WithPageCache(dir))
	if second.requests != 0 || second.moved != 0 || len(second.errs) != 0 {
		t.Errorf("second run: %d requests, %v of pace, errors %q; want none", second.requests, second.moved, second.errs)
	}
}

// TestPageCacheRobotsStillRule: a page stored while allowed is refused,
// not served, once robots.txt disallows it.
func TestPageCacheRobotsStillRule(t *testing.T) {
	t.Parallel()
	clk := &stepClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := newCacheSite(t, clk, "User-agent: *\nAllow: /\n")
	dir := t.TempDir()
	crawlCached(t, s, s.urls("fresh"), nil, WithPageCache(dir))
	disallow := "User-agent: *\nDisallow: /fresh/\n"
	s.robots.Store(&disallow)
	second := crawlCached(t, s, s.urls("fresh"), nil, WithPageCache(dir))
	if len(second.results) != 0 || len(second.blocked) != 3 || second.requests != 0 {
		t.Errorf("served %v, blocked %v, %d requests; want 3 blocked and nothing served", second.results, second.blocked, second.requests)
	}
}

// TestPageCacheRevalidationBackoff: a 503 answered to a revalidation
// reaches OnError and pauses the host, though a stale copy is stored.
func TestPageCacheRevalidationBackoff(t *testing.T) {
	t.Parallel()
	clk := &stepClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}
	s := newCacheSite(t, clk, "User-agent: *\nCrawl-delay: 1\n")
	dir := t.TempDir()
	urls := []string{s.urls("etag")[0], s.urls("fresh")[0]}
	crawlCached(t, s, urls, nil, WithPageCache(dir))
	s.status.Store(503)
	second := crawlCached(t, s, urls, nil, WithPageCache(dir))
	if len(second.errs) != 1 || !strings.Contains(second.errs[0], "503") {
		t.Errorf("errors %q, want the 503", second.errs)
	}
	if n := second.ext.Stats().Pauses; len(n) == 0 {
		t.Errorf("no pause counted: %v", n)
	}
	// The fresh page of the paused host is served: it sends nothing, so
	// it waits for nothing (the pause asked for 30 s).
	if second.results["/fresh/0"] != CacheHit || second.requests != 1 || second.moved >= 30*time.Second {
		t.Errorf("fresh page of a paused host: %v, %d requests, %v waited", second.results["/fresh/0"], second.requests, second.moved)
	}
}
