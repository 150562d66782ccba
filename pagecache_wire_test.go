package robotsext

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
)

// seamPageCacheRedirect: a redirect the page cache serves (a fresh
// 301 or 308) is followed, its hop paced, and the host's claim that hop
// took ends with its response, so the next page waits one Crawl-delay,
// not the two minutes a claim is kept when its end is never seen.
// Stats().Responses counts what the site sent (the target's 200, the next
// page's), not the cached redirect. Before: the request was still marked
// as answered locally when its hop's response came, the hop's claim never
// ended, the next page hung (2m0.5s with Crawl-delay 0.5; here until the
// crawl's 30 s context ended), and Responses said 3xx:1 without the 200.
func seamPageCacheRedirect(t *testing.T) {
	for _, tt := range []struct {
		name        string
		status      int
		targetFresh bool // the target is itself a fresh hit in run 2
		async       bool // Async with a LimitRule
		visited     bool // the target was visited first: Colly refuses the hop
	}{
		{"301", http.StatusMovedPermanently, false, false, false},
		{"308", http.StatusPermanentRedirect, false, false, false},
		{"301 to a fresh target", http.StatusMovedPermanently, true, false, false},
		{"301, Async with a LimitRule", http.StatusMovedPermanently, false, true, false},
		{"301 to a target already visited", http.StatusMovedPermanently, false, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newCaseSite(t, func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/old":
					w.Header().Set("Cache-Control", "max-age=86400")
					w.Header().Set("Location", "/new")
					w.WriteHeader(tt.status)
					return
				case "/new":
					if tt.targetFresh {
						w.Header().Set("Cache-Control", "max-age=86400")
					} else {
						w.Header().Set("Cache-Control", "no-cache")
					}
				}
				fmt.Fprint(w, "page", r.URL.Path)
			}, "0.5")
			dir := t.TempDir()
			crawlCase(t, s, dir, visit(s.URL+"/old"))
			run := crawlCase(t, s, dir, func(c *colly.Collector, e *Extension) {
				if tt.async {
					c.Async = true
					_ = c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 2})
				}
				if c.AllowURLRevisit = !tt.visited; tt.visited {
					_ = c.Visit(s.URL + "/new")
				}
				_ = c.Visit(s.URL + "/old")
				c.Wait()
				_ = c.Visit(s.URL + "/other")
			})
			sent, wantSent := run.ext.Stats().Responses, int64(2)
			if tt.targetFresh {
				wantSent = 1
			}
			if len(run.got) != 2 || len(run.errs) != map[bool]int{true: 1}[tt.visited] || run.requests != wantSent {
				t.Errorf("callbacks got %q, errors %q, %d requests; want /new and /other, %d requests", run.got, run.errs, run.requests, wantSent)
			}
			if sent[Status3xx] != 0 || int64(sent[Status2xx]) != wantSent {
				t.Errorf("Stats().Responses %v; want %d 2xx, no 3xx (the 301 was served from the cache)", sent, wantSent)
			}
			if run.moved >= time.Minute {
				t.Errorf("the run's pace waited %v, want about one Crawl-delay", run.moved)
			}
		})
	}
}

// TestPageCacheResendPaced: a 304 whose ETag matches no stored response
// (the site answers by If-Modified-Since alone, with its new ETag) makes
// the cache send the request again unconditionally; that second request
// waits for its host's Crawl-delay after the 304, like any other, and
// both answers are counted as the site sent them (a 304, then a 200). A
// wait too long for the client's timeout defers it as a redirect hop is
// (ErrRedirectDeferred): it is re-issued, and the page still delivered.
// With WithWebBotAuth it carries a signature of its own, made after its
// pace (a copy of the first one's would replay its nonce).
// Before: it went out at once (a 0 s gap at the site with Crawl-delay
// 0.5) and Responses said 2xx:1.
func TestPageCacheResendPaced(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		delay string
		gap   time.Duration
		got   string
		errs  int
		sign  bool
	}{
		{"0.5", 500 * time.Millisecond, "/p 200 stale rev2", 0, false},
		{"11", 11 * time.Second, "/p 200 miss rev2", 1, false},
		{"0.5", 500 * time.Millisecond, "/p 200 stale rev2", 0, true},
	} {
		t.Run(fmt.Sprint(tt.delay, " signed=", tt.sign), func(t *testing.T) {
			t.Parallel()
			var rev atomic.Int32
			rev.Store(1)
			var mu sync.Mutex
			var at []time.Time // when the site saw each page request
			var sigs []string  // and its signature
			const lm = "Sat, 01 Feb 2025 00:00:00 GMT"
			var s *caseSite
			s = newCaseSite(t, func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				at = append(at, s.clk.now())
				sigs = append(sigs, r.Header.Get("Signature"))
				mu.Unlock()
				w.Header().Set("Cache-Control", "no-cache")
				w.Header().Set("ETag", fmt.Sprintf(`"rev%d"`, rev.Load()))
				w.Header().Set("Last-Modified", lm)
				if r.Header.Get("If-Modified-Since") == lm {
					w.WriteHeader(http.StatusNotModified)
					return
				}
				fmt.Fprintf(w, "rev%d", rev.Load())
			}, tt.delay)
			dir := t.TempDir()
			var opts []Option
			if tt.sign {
				_, key, _ := ed25519.GenerateKey(rand.Reader)
				opts = append(opts, WithWebBotAuth(key, wbaAgent))
			}
			crawlCase(t, s, dir, visit(s.URL+"/p"), opts...)
			rev.Store(2)
			mu.Lock()
			at, sigs = nil, nil
			mu.Unlock()
			run := crawlCase(t, s, dir, visit(s.URL+"/p"), opts...)
			mu.Lock()
			defer mu.Unlock()
			if len(run.got) != 1 || run.got[0] != tt.got || len(run.errs) != tt.errs || len(at) != 2 {
				t.Fatalf("callbacks got %q, errors %q, %d requests; want %q after a 304, %d errors, 2 requests", run.got, run.errs, len(at), tt.got, tt.errs)
			}
			if gap := at[1].Sub(at[0]); gap < tt.gap {
				t.Errorf("the request sent again after the 304 went %v after it, want the %v Crawl-delay", gap, tt.gap)
			}
			if sent := run.ext.Stats().Responses; sent[Status3xx] != 1 || sent[Status2xx] != 1 {
				t.Errorf("Stats().Responses %v; want the site's 304 and 200: 3xx:1 2xx:1", sent)
			}
			if tt.sign && (sigs[0] == "" || sigs[0] == sigs[1]) {
				t.Errorf("signatures %q; want two, each its own", sigs)
			}
		})
	}
}

// seamPageCacheTransportBeforeApply: a proxy or transport set on the collector
// before Apply stays its transport, behind the page cache: every request
// sent asks the proxy, robots.txt's too (the collector's transport is the
// Extension's), and the pages are cached. Before: Apply with
// WithPageCache replaced it with http.DefaultTransport, silently (0 proxy
// calls; 1 without the cache).
func seamPageCacheTransportBeforeApply(t *testing.T) {
	s := newCaseSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		fmt.Fprint(w, "page")
	}, "0")
	for _, tt := range []struct {
		name string
		set  func(c *colly.Collector, proxy func(*http.Request) (*url.URL, error))
	}{
		{"SetProxyFunc", func(c *colly.Collector, p func(*http.Request) (*url.URL, error)) { c.SetProxyFunc(p) }},
		{"WithTransport", func(c *colly.Collector, p func(*http.Request) (*url.URL, error)) {
			c.WithTransport(&http.Transport{Proxy: p})
		}},
	} {
		dir := t.TempDir()
		for run := range 2 {
			var proxied atomic.Int32
			c := colly.NewCollector(colly.StdlibContext(crawlContext(t)))
			tt.set(c, func(*http.Request) (*url.URL, error) { proxied.Add(1); return nil, nil })
			Apply(c, WithPageCache(dir), WithLogger(slog.New(slog.DiscardHandler)), WithClock(s.clk.now), withSleep(s.clk.sleep))
			var pages int
			c.OnResponse(func(*colly.Response) { pages++ })
			before := s.requests.Load()
			_ = c.Visit(s.URL + "/p")
			c.Wait()
			sent := s.requests.Load() - before
			if pages != 1 || int64(proxied.Load()) != sent+1 || sent != int64(1-run) {
				t.Errorf("%s, run %d: %d pages, %d requests, %d proxy calls; want 1 page, %d requests, each and robots.txt through the proxy", tt.name, run+1, pages, sent, proxied.Load(), 1-run)
			}
		}
	}
}

// TestPageCacheCountsAsSent: Stats().Responses counts what the site sent.
// A revalidated page is the site's 304 (3xx), though the callbacks get
// the stored 200; a request the crawl's context ended before it was sent
// is no response at all. Before: 2xx:1 for the 304, and none:1 for the
// request never sent.
func TestPageCacheCountsAsSent(t *testing.T) {
	t.Parallel()
	s := newCaseSite(t, etagPage("no-cache"), "0")
	dir := t.TempDir()
	crawlCase(t, s, dir, visit(s.URL+"/p"))
	ctx, cancel := context.WithCancel(crawlContext(t))
	c := colly.NewCollector(colly.StdlibContext(ctx))
	c.AllowURLRevisit = true
	ext := Apply(c, WithPageCache(dir), WithLogger(slog.New(slog.DiscardHandler)), WithClock(s.clk.now), withSleep(s.clk.sleep))
	c.OnRequest(func(r *colly.Request) { // after Apply's hook: r was paced, and is not sent
		if r.URL.Path == "/cancelled" {
			cancel()
		}
	})
	var got []string
	c.OnResponse(func(r *colly.Response) { got = append(got, CacheResultOf(r).String()) })
	before := s.requests.Load()
	_ = c.Visit(s.URL + "/p")
	_ = c.Visit(s.URL + "/cancelled")
	sent := ext.Stats().Responses
	if fmt.Sprint(got) != "[revalidated]" || s.requests.Load()-before != 1 || len(sent) != 1 || sent[Status3xx] != 1 {
		t.Errorf("callbacks got %q, %d requests at the site, Stats().Responses %v; want [revalidated], 1, map[3xx:1]", got, s.requests.Load()-before, sent)
	}
}

// TestPageCacheUnstorableSideBySide: concurrent requests of one URL wait
// for the first one's answer (it may be stored); once it turns out not
// storable (no-store), the others go out at once, side by side, as they
// would without the cache. Before: each waited for the one before it,
// one after another. The site holds every later request until all have
// arrived; the real-time bound (2 s) only keeps the failing case from
// hanging, and is never measured.
func TestPageCacheUnstorableSideBySide(t *testing.T) {
	t.Parallel()
	const n = 5
	var arrived atomic.Int32
	all := make(chan struct{})
	var together atomic.Int32 // later requests that saw all n arrive
	s := newCaseSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		if k := arrived.Add(1); k == n {
			close(all)
		} else if k > 1 {
			select {
			case <-all:
				together.Add(1)
			case <-time.After(2 * time.Second):
			}
		}
		fmt.Fprint(w, "page")
	}, "0")
	run := crawlCase(t, s, t.TempDir(), func(c *colly.Collector, e *Extension) {
		c.Async = true
		for range n {
			_ = c.Visit(s.URL + "/p")
		}
	})
	if len(run.got) != n || run.requests != n || together.Load() != n-2 {
		t.Errorf("%d pages, %d requests, %d of the later requests out side by side; want %d, %d, %d", len(run.got), run.requests, together.Load(), n, n, n-2)
	}
}
