package robotsext

import (
	"fmt"
	"io"
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

// caseSite is a loopback site whose pages the test answers itself; it
// counts the page requests.
type caseSite struct {
	*httptest.Server
	clk      *stepClock
	requests atomic.Int64
}

func newCaseSite(t *testing.T, page func(w http.ResponseWriter, r *http.Request), delay ...string) *caseSite {
	t.Helper()
	s := &caseSite{clk: &stepClock{t: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: "+strings.Join(append(delay, "1")[:1], "")+"\n")
			return
		}
		s.requests.Add(1)
		w.Header().Set("Date", s.clk.now().Format(http.TimeFormat))
		page(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// caseRun is what one crawl's callbacks got.
type caseRun struct {
	ext      *Extension
	got      []string // "path status result body", in order
	errs     []string
	requests int64
	moved    time.Duration
}

// crawlCase runs a new collector over dir; setup adds to it after Apply,
// and visits (it gets the collector); opts are Apply's.
func crawlCase(t *testing.T, s *caseSite, dir string, setup func(c *colly.Collector, e *Extension), opts ...Option) *caseRun {
	t.Helper()
	run := &caseRun{}
	var mu sync.Mutex
	c := colly.NewCollector(colly.StdlibContext(crawlContext(t)), colly.UserAgent("CacheBot/1.0"))
	c.AllowURLRevisit = true
	run.ext = Apply(c, append([]Option{WithPageCache(dir), WithLogger(slog.New(slog.DiscardHandler)),
		WithClock(s.clk.now), withSleep(s.clk.sleep), withRand(noJitter)}, opts...)...)
	c.OnResponse(func(r *colly.Response) {
		mu.Lock()
		defer mu.Unlock()
		run.got = append(run.got, fmt.Sprintf("%s %d %v %s", r.Request.URL.Path, r.StatusCode, CacheResultOf(r), r.Body))
	})
	c.OnError(func(r *colly.Response, err error) {
		mu.Lock()
		defer mu.Unlock()
		run.errs = append(run.errs, fmt.Sprintf("%s %d %v", r.Request.URL.Path, r.StatusCode, err))
	})
	before, req0 := s.clk.now(), s.requests.Load()
	setup(c, run.ext)
	c.Wait()
	run.requests, run.moved = s.requests.Load()-req0, s.clk.now().Sub(before)
	return run
}

func visit(urls ...string) func(*colly.Collector, *Extension) {
	return func(c *colly.Collector, _ *Extension) {
		for _, u := range urls {
			_ = c.Visit(u)
		}
	}
}

// TestPageCacheValidatorMismatch (issue 50, case 1): a 304 whose ETag is
// not the stored one may not update it (RFC 9111 §4.3.4). The site
// answers conditionals by If-Modified-Since alone, with its current ETag;
// the page changed from rev1 to rev2. Before: run 2 delivered rev1 as
// "revalidated" and stored ETag "rev2", so every later run did too. Now
// the page is fetched again unconditionally: rev2, "stale".
func TestPageCacheValidatorMismatch(t *testing.T) {
	t.Parallel()
	var rev atomic.Int32
	rev.Store(1)
	const lm = "Sat, 01 Feb 2025 00:00:00 GMT"
	s := newCaseSite(t, func(w http.ResponseWriter, r *http.Request) {
		etag := fmt.Sprintf(`"rev%d"`, rev.Load())
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", lm)
		if r.Header.Get("If-Modified-Since") == lm || r.Header.Get("If-None-Match") == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		fmt.Fprintf(w, "rev%d", rev.Load())
	})
	dir := t.TempDir()
	crawlCase(t, s, dir, visit(s.URL+"/p"))
	rev.Store(2)
	for i, want := range []string{"/p 200 stale rev2", "/p 200 revalidated rev2"} {
		run := crawlCase(t, s, dir, visit(s.URL+"/p"))
		if len(run.got) != 1 || run.got[0] != want || len(run.errs) != 0 {
			t.Errorf("run %d: callbacks got %q, errors %q; want %q", i+2, run.got, run.errs, want)
		}
	}
}

// seamPageCacheVary (issue 50, case 2): Vary is judged on
// the request as sent, after every OnRequest callback and the cookie jar.
// Before: the logged-out page was served to a session (0 requests), and
// the English page for "fr" set by an OnRequest registered after Apply.
func seamPageCacheVary(t *testing.T) {
	s := newCaseSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		w.Header().Set("Vary", "Cookie, Accept-Language")
		fmt.Fprintf(w, "cookie=%q lang=%q", r.Header.Get("Cookie"), r.Header.Get("Accept-Language"))
	})
	dir := t.TempDir()
	login := func(c *colly.Collector, e *Extension) {
		_ = c.SetCookies(s.URL, []*http.Cookie{{Name: "session", Value: "alice"}})
		visit(s.URL+"/p")(c, e)
	}
	loginMidRun := func(c *colly.Collector, e *Extension) {
		visit(s.URL+"/p")(c, e)
		login(c, e)
	}
	french := func(c *colly.Collector, e *Extension) {
		c.OnRequest(func(r *colly.Request) { r.Headers.Set("Accept-Language", "fr") })
		visit(s.URL+"/p")(c, e)
	}
	const loggedOut = `/p 200 hit cookie="" lang=""`
	for _, tt := range []struct {
		name  string
		setup func(*colly.Collector, *Extension)
		want  []string
	}{
		{"a session in the jar", login, []string{`/p 200 miss cookie="session=alice" lang=""`}},
		{"a login within the run", loginMidRun, []string{loggedOut, `/p 200 miss cookie="session=alice" lang=""`}},
		{"Accept-Language set after Apply", french, []string{`/p 200 miss cookie="" lang="fr"`}},
	} {
		s.clk.sleep(t.Context(), time.Hour)     // the copy stored by the row before is stale:
		crawlCase(t, s, dir, visit(s.URL+"/p")) // each row starts from the logged-out English page
		run := crawlCase(t, s, dir, tt.setup)
		if fmt.Sprint(run.got) != fmt.Sprint(tt.want) || run.requests != 1 {
			t.Errorf("%s: callbacks got %q with %d requests; want %q with 1", tt.name, run.got, run.requests, tt.want)
		}
		if run.moved < time.Second {
			t.Errorf("%s: the request sent after all waited %v, want the 1 s pace", tt.name, run.moved)
		}
	}
}

// seamPageCacheUserValidator: a request's own If-None-Match, or
// Cache-Control: no-cache, set by an OnRequest registered after Apply,
// reaches the origin (before: a fresh hit, no request).
func seamPageCacheUserValidator(t *testing.T) {
	s := newCaseSite(t, etagPage("max-age=600"))
	dir := t.TempDir()
	crawlCase(t, s, dir, visit(s.URL+"/p"))
	for _, kv := range [][2]string{{"If-None-Match", `"v1"`}, {"Cache-Control", "no-cache"}} {
		run := crawlCase(t, s, dir, func(c *colly.Collector, e *Extension) {
			c.OnRequest(func(r *colly.Request) { r.Headers.Set(kv[0], kv[1]) })
			visit(s.URL+"/p")(c, e)
		})
		if run.requests != 1 {
			t.Errorf("%s: %d requests, want 1 (got %q, errors %q)", kv[0], run.requests, run.got, run.errs)
		}
	}
}

// etagPage is a page "v1" with ETag "v1" and Cache-Control cc, answered
// 304 to If-None-Match "v1".
func etagPage(cc string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", cc)
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		fmt.Fprint(w, "v1")
	}
}

// TestPageCacheUnsafeInvalidates (issue 50, case 3): a non-error answer to
// POST, PUT, DELETE or PATCH drops the stored GET of its URL (RFC 9111
// §4.4) and of its Location on the same origin. Before: the pre-POST cart
// came from the cache, 0 requests.
func TestPageCacheUnsafeInvalidates(t *testing.T) {
	t.Parallel()
	var cart atomic.Int32
	s := newCaseSite(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			cart.Add(1)
			w.Header().Set("Location", "/other")
			return
		}
		w.Header().Set("Cache-Control", "max-age=600")
		fmt.Fprintf(w, "items=%d", cart.Load())
	})
	dir := t.TempDir()
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch} {
		run := crawlCase(t, s, dir, func(c *colly.Collector, _ *Extension) {
			_ = c.Visit(s.URL + "/other")
			_ = c.Visit(s.URL + "/cart")
			_ = c.Request(m, s.URL+"/cart", strings.NewReader("x=1"), nil, nil)
			_ = c.Visit(s.URL + "/cart")
			_ = c.Visit(s.URL + "/other")
		})
		n := cart.Load()
		want := fmt.Sprintf("/cart 200 miss items=%d", n)
		if len(run.got) != 5 || run.got[3] != want || !strings.HasPrefix(run.got[4], "/other 200 miss") {
			t.Errorf("%s: callbacks got %q; want the GET after it %q and /other fetched again", m, run.got, want)
		}
	}
}

// seamPageCacheRetry (issue 50, case 4): the retry
// idiom delivers every page after a revalidation's 429, and the cache's
// conditional headers never reach the user's request.
func seamPageCacheRetry(t *testing.T) {
	var refuse atomic.Int32
	s := newCaseSite(t, func(w http.ResponseWriter, r *http.Request) {
		if refuse.Add(-1) >= 0 {
			w.Header().Set("Retry-After", "5")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("ETag", `"v1"`)
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		fmt.Fprint(w, "page", r.URL.Path)
	})
	dir := t.TempDir()
	var urls []string
	for i := range 10 {
		urls = append(urls, fmt.Sprintf("%s/p%d", s.URL, i))
	}
	crawlCase(t, s, dir, visit(urls...))
	refuse.Store(1)
	var conditional atomic.Int32
	run := crawlCase(t, s, dir, func(c *colly.Collector, e *Extension) {
		c.OnError(func(r *colly.Response, _ error) {
			if r.Request.Headers.Get("If-None-Match") != "" {
				conditional.Add(1)
			}
			if r.StatusCode == http.StatusTooManyRequests {
				_ = r.Request.Retry()
			}
		})
		visit(urls...)(c, e)
	})
	if len(run.got) != 10 || len(run.errs) != 1 || conditional.Load() != 0 {
		t.Errorf("%d pages, errors %q, %d requests carrying the cache's If-None-Match; want 10 pages, one 429, none", len(run.got), run.errs, conditional.Load())
	}
	for _, g := range run.got {
		if !strings.Contains(g, "revalidated") {
			t.Errorf("got %q, want revalidated", g)
		}
	}
}

// seamPageCacheTransport (issue 50, case 5): the transport
// setups Apply's doc shows, over a warm cache, lose no page. Before:
// WithHTTPClient(&http.Client{Transport: t}) plus c.WithTransport(t)
// after Apply failed the first fresh page with `invalid header field name
// "Robotsext Fresh"`. Now one Warn says what to call, at the first
// request, and the pages go out paced; ext.PageTransport(t) keeps the
// cache.
func seamPageCacheTransport(t *testing.T) {
	s := newCaseSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		fmt.Fprint(w, "page")
	})
	dir := t.TempDir()
	urls := []string{s.URL + "/a", s.URL + "/b"}
	crawlCase(t, s, dir, visit(urls...))
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	for _, tt := range []struct {
		name  string
		set   func(c *colly.Collector, e *Extension)
		opts  []Option
		sends int64
	}{
		{"WithHTTPClient and c.WithTransport(t)", func(c *colly.Collector, _ *Extension) { c.WithTransport(tr) },
			[]Option{WithHTTPClient(&http.Client{Transport: tr})}, 2},
		{"SetProxyFunc", func(c *colly.Collector, _ *Extension) { c.SetProxyFunc(http.ProxyFromEnvironment) }, nil, 2},
		{"c.WithTransport(ext.PageTransport(t))", func(c *colly.Collector, e *Extension) { c.WithTransport(e.PageTransport(tr)) }, nil, 0},
	} {
		var logs strings.Builder
		run := crawlCase(t, s, dir, func(c *colly.Collector, e *Extension) {
			tt.set(c, e)
			visit(urls...)(c, e)
		}, append(tt.opts, WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))...)
		if len(run.got) != 2 || len(run.errs) != 0 || run.requests != tt.sends {
			t.Errorf("%s: callbacks got %q, errors %q, %d requests; want 2 pages, no error, %d requests", tt.name, run.got, run.errs, run.requests, tt.sends)
		}
		if warned := strings.Count(logs.String(), "ext.PageTransport"); warned != min(int(tt.sends), 1) {
			t.Errorf("%s: %d warnings naming ext.PageTransport", tt.name, warned)
		}
		if tt.sends > 0 && run.moved < time.Second {
			t.Errorf("%s: the pages sent waited %v, want the 1 s pace", tt.name, run.moved)
		}
	}
}

// seamPageCacheAbort: r.Request.Abort() in OnResponseHeaders
// stops the download as without the cache, and stores nothing. Before: a
// cacheable file was read (up to 8 MiB) before OnResponseHeaders ran, on
// every run. The bytes read from the response body are counted where the
// client reads them (the server's writes would count the sockets'
// buffers, which vary with the machine).
func seamPageCacheAbort(t *testing.T) {
	s := newCaseSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		w.Header().Set("Content-Type", "video/mp4")
		chunk := make([]byte, 64<<10)
		for range 6 << 20 / len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	dir := t.TempDir()
	read := func(opts ...Option) (int64, int64) {
		var n atomic.Int64
		tr := &http.Transport{}
		t.Cleanup(tr.CloseIdleConnections)
		run := crawlCase(t, s, dir, func(c *colly.Collector, e *Extension) {
			c.OnResponseHeaders(func(r *colly.Response) { r.Request.Abort() })
			visit(s.URL+"/video")(c, e)
		}, append(opts, WithHTTPClient(&http.Client{Transport: countingTransport{tr, &n}}))...)
		return n.Load(), run.requests
	}
	without, _ := read(WithPageStore(nil))
	for run := range 2 {
		if got, n := read(); got != without || n != 1 {
			t.Errorf("run %d: %d body bytes read over %d requests; want %d (as without the cache) over 1", run+1, got, n, without)
		}
	}
}

// countingTransport counts the response body bytes its callers read.
type countingTransport struct {
	next http.RoundTripper
	n    *atomic.Int64
}

func (c countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err == nil {
		resp.Body = countingBody{resp.Body, c.n}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// TestPageCacheCountedOnce: concurrent requests of one URL on a cold cache
// are one request at the site; the others are served from the cache as it
// stores it, and Stats counts what the server sent and what the cache
// served, each once. Before: 15 Responses counted, 9–12 at the server.
func TestPageCacheCountedOnce(t *testing.T) {
	t.Parallel()
	s := newCaseSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		fmt.Fprint(w, "page")
	}, "0")
	run := crawlCase(t, s, t.TempDir(), func(c *colly.Collector, e *Extension) {
		c.Async = true
		for range 5 {
			_ = c.Visit(s.URL + "/p")
		}
	})
	st := run.ext.Stats()
	if run.requests != 1 || st.Responses[Status2xx] != 1 || st.PageCache.Misses != 1 || st.PageCache.Hits != 4 || len(run.got) != 5 {
		t.Errorf("%d requests at the site, Responses[2xx] %d, PageCache %+v, %d pages; want 1, 1, 1 miss and 4 hits, 5",
			run.requests, st.Responses[Status2xx], st.PageCache, len(run.got))
	}
}

// TestPageCacheCacheableStatuses: 301, 308, 404 and 410 with an explicit
// lifetime are stored and served (RFC 9110 §15.1); before, every run
// requested them again.
func TestPageCacheCacheableStatuses(t *testing.T) {
	t.Parallel()
	s := newCaseSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		switch r.URL.Path {
		case "/moved", "/perm":
			w.Header().Set("Location", "/target")
			w.WriteHeader(map[string]int{"/moved": 301, "/perm": 308}[r.URL.Path])
		case "/gone":
			w.WriteHeader(http.StatusGone)
		case "/target":
			fmt.Fprint(w, "target")
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	})
	dir := t.TempDir()
	urls := []string{s.URL + "/moved", s.URL + "/perm", s.URL + "/gone", s.URL + "/missing"}
	first := crawlCase(t, s, dir, visit(urls...))
	second := crawlCase(t, s, dir, visit(urls...))
	if second.requests != 0 || len(second.got) != len(first.got) || len(second.errs) != len(first.errs) {
		t.Errorf("second run: %d requests, %q and errors %q; want none, as the first's %q %q", second.requests, second.got, second.errs, first.got, first.errs)
	}
}
