package robotsext

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
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
	"github.com/robotsext/robotsext/internal/pagecache"
)

// mapSite is a loopback site of sitemaps and pages. It records each
// request (path, User-Agent, the hand-moved clock's time), answers
// conditional requests of ETag-tagged files with 304, and sends each page
// with a Last-Modified.
type mapSite struct {
	*httptest.Server
	clk   *stepClock
	wba   *wbaVerifier // verifies each request's signature; nil: none
	files map[string]string

	mu   sync.Mutex
	hits []mapHit
}

type mapHit struct {
	path, ua string
	at       time.Time
	status   int
	sigErr   error
}

// gzipped is s gzipped (writing to memory cannot fail).
func gzipped(s string) string {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write([]byte(s))
	_ = zw.Close()
	return b.String()
}

func newMapSite(t *testing.T, clk *stepClock, wba *wbaVerifier, files func(base string) map[string]string) *mapSite {
	t.Helper()
	s := &mapSite{clk: clk, wba: wba}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := mapHit{path: r.URL.Path, ua: r.UserAgent(), at: clk.now(), status: 200}
		if wba != nil {
			_, h.sigErr = wba.verify(r)
		}
		defer func() { s.mu.Lock(); s.hits = append(s.hits, h); s.mu.Unlock() }()
		body, ok := s.files[r.URL.Path]
		switch {
		case !ok:
			h.status = 404
			http.NotFound(w, r)
			return
		case r.URL.Path == "/robots.txt":
		case strings.HasPrefix(r.URL.Path, "/page/"):
			w.Header().Set("Last-Modified", time.Date(2024, 5, 10, 0, 0, 0, 0, time.UTC).Format(http.TimeFormat))
			w.Header().Set("Cache-Control", "no-cache")
		default: // a sitemap: revalidated each time
			w.Header().Set("ETag", `"v1"`)
			w.Header().Set("Cache-Control", "no-cache")
			if r.Header.Get("If-None-Match") == `"v1"` {
				h.status = 304
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		fmt.Fprint(w, body)
	}))
	s.files = files(s.URL)
	t.Cleanup(s.Close)
	return s
}

func (s *mapSite) requests() []mapHit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]mapHit(nil), s.hits...)
}

// readAll ranges over a ReadSitemaps stream.
func readSitemaps(e *Extension, rawURL string) (locs []string, errs []error) {
	for en, err := range e.ReadSitemaps(context.Background(), rawURL) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		locs = append(locs, en.Loc)
	}
	return locs, errs
}

// politeFiles is a site whose robots.txt names a gzipped index (served
// without Content-Encoding, as a .gz file is) of a urlset, an RSS feed, a
// sitemap robots.txt disallows, another site's sitemap and itself.
func politeFiles(base string) map[string]string {
	return map[string]string{
		"/robots.txt": "User-agent: *\nDisallow: /private/\nCrawl-delay: 5\n\nSitemap: " + base + "/index.xml.gz\n",
		"/index.xml.gz": gzipped(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
			`<sitemap><loc>` + base + `/index.xml.gz</loc></sitemap><sitemap><loc>` + base + `/s1.xml</loc></sitemap>` +
			`<sitemap><loc>` + base + `/feed.rss</loc></sitemap><sitemap><loc>` + base + `/private/s3.xml</loc></sitemap>` +
			`<sitemap><loc>https://elsewhere.example/s.xml</loc></sitemap></sitemapindex>`),
		"/s1.xml": `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">` +
			`<url><loc>` + base + `/page/1</loc><lastmod>2024-05-01</lastmod><xhtml:link rel="alternate" hreflang="de" href="` + base + `/page/1?de"/></url>` +
			`<url><loc>` + base + `/page/2</loc><lastmod>2024-06-01T12:00:00+02:00</lastmod></url>` +
			`<url><loc>https://elsewhere.example/page</loc></url></urlset>`,
		"/feed.rss":       `<rss version="2.0"><channel><item><link>` + base + `/page/3</link><pubDate>Wed, 01 May 2024 00:00:00 GMT</pubDate></item></channel></rss>`,
		"/private/s3.xml": `<urlset><url><loc>` + base + `/private/x</loc></url></urlset>`,
		"/page/1":         "<html>1</html>", "/page/2": "<html>2</html>", "/page/3": "<html>3</html>",
	}
}

// TestReadSitemapsPolite reads a site's sitemaps: every sitemap request
// is decided by robots.txt (the disallowed one is never sent), paced at
// the host's Crawl-delay (5 s apart on the hand-moved clock), carries the
// collector's User-Agent and a valid Web Bot Auth signature; the index
// that lists itself is not read again, and what was not read is yielded
// as an error and counted.
func TestReadSitemapsPolite(t *testing.T) {
	t.Parallel()
	clk := &stepClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	pub, key, _ := ed25519.GenerateKey(rand.Reader)
	s := newMapSite(t, clk, newWBAVerifier(pub), politeFiles)
	const ua = "Mozilla/5.0 (compatible; MapBot/1.0; +https://operator.test/bot)"
	c := colly.NewCollector(colly.UserAgent(ua))
	e := Apply(c, withClock(clk.now), withSleep(clk.sleep), withRand(noJitter), WithWebBotAuth(key, wbaAgent), WithLogger(slog.New(slog.DiscardHandler)))

	locs, errs := readSitemaps(e, s.URL)
	if want := s.URL + "/page/1 " + s.URL + "/page/2 " + s.URL + "/page/3"; strings.Join(locs, " ") != want {
		t.Errorf("entries %q, want %q", locs, want)
	}
	if len(errs) != 2 || !errors.Is(errs[0], ErrSitemapLoop) || !errors.Is(errs[1], ErrSitemapNotFetched) {
		t.Errorf("errors %v; want the loop, then the disallowed sitemap", errs)
	}
	var last time.Time
	for i, h := range s.requests() {
		if h.path == "/private/s3.xml" {
			t.Errorf("the disallowed sitemap was requested")
		}
		if h.ua != ua || h.sigErr != nil {
			t.Errorf("%s: User-Agent %q, signature %v", h.path, h.ua, h.sigErr)
		}
		if i > 0 && h.at.Sub(last) < 5*time.Second {
			t.Errorf("%s sent %v after the request before it; the Crawl-delay is 5 s", h.path, h.at.Sub(last))
		}
		last = h.at
	}
	if n := len(s.requests()); n != 4 { // robots.txt, the index, s1.xml, feed.rss
		t.Errorf("%d requests, want 4", n)
	}
	st := e.Stats()
	want := SitemapCounts{Sitemaps: 3, Entries: 3, Outside: 2, Loops: 1, Failed: 1}
	if st.Sitemaps != want {
		t.Errorf("Stats.Sitemaps = %+v, want %+v", st.Sitemaps, want)
	}
	if st.Blocked[ReasonDisallowRule] != 1 || st.Responses[Status2xx] != 3 {
		t.Errorf("Blocked %v, Responses %v: the sitemap requests are counted as the pages'", st.Blocked, st.Responses)
	}
}

// TestReadSitemapsPageCache reads a site's sitemaps twice through the
// page cache: the second time each sitemap costs a 304. With
// SkipUnchanged, the pages a crawl stored since their <lastmod> are not
// yielded again (counted in Stats.Sitemaps.Unchanged); the page whose
// <lastmod> is later than its stored Last-Modified is.
func TestReadSitemapsPageCache(t *testing.T) {
	t.Parallel()
	clk := &stepClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := newMapSite(t, clk, nil, politeFiles)
	c := colly.NewCollector()
	e := Apply(c, withClock(clk.now), withSleep(clk.sleep), WithPageStore(&pagecache.Memory{}),
		WithSitemapRules(SitemapRules{SkipUnchanged: true}), WithLogger(slog.New(slog.DiscardHandler)))
	first, _ := readSitemaps(e, s.URL)
	for _, l := range first {
		if err := c.Visit(l); err != nil {
			t.Fatal(err)
		}
	}
	before := len(s.requests())
	second, _ := readSitemaps(e, s.URL)
	var notMod int
	for _, h := range s.requests()[before:] {
		if h.status != 304 {
			t.Errorf("second read: %s answered %d, want 304", h.path, h.status)
		}
		notMod++
	}
	if notMod != 3 { // the index, s1.xml, feed.rss
		t.Errorf("second read: %d requests, want 3 revalidations", notMod)
	}
	// page/1 (2024-05-01) and page/3 (2024-05-01) were stored with
	// Last-Modified 2024-05-10; page/2 changed on 2024-06-01.
	if want := s.URL + "/page/2"; strings.Join(second, " ") != want {
		t.Errorf("second read yielded %q, want only %q", second, want)
	}
	if n := e.Stats().Sitemaps.Unchanged; n != 2 {
		t.Errorf("Stats.Sitemaps.Unchanged = %d, want 2", n)
	}
}

// TestReadSitemapsEndsWithContext: a sitemap waiting for its host's pace
// (a Crawl-delay of 30 s on a clock that never moves: the wait ends only
// with the context) stops waiting when ctx ends, and the stream ends
// without sending it, saying it was cut short. The 10 s bound only
// guards against a hang.
func TestReadSitemapsEndsWithContext(t *testing.T) {
	t.Parallel()
	clk := &stepClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	s := newMapSite(t, clk, nil, func(base string) map[string]string {
		return map[string]string{
			"/robots.txt": "User-agent: *\nCrawl-delay: 30\nSitemap: " + base + "/s1.xml\n",
			"/s1.xml":     `<urlset><url><loc>` + base + `/page/1</loc></url></urlset>`,
		}
	})
	waiting := make(chan struct{}, 1)
	blockUntilDone := func(ctx context.Context, _ time.Duration) error {
		select {
		case waiting <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return ctx.Err()
	}
	e := Apply(colly.NewCollector(), withClock(clk.now), withSleep(blockUntilDone), WithLogger(slog.New(slog.DiscardHandler)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan []error)
	go func() {
		var errs []error
		for _, err := range e.ReadSitemaps(ctx, s.URL) {
			errs = append(errs, err)
		}
		done <- errs
	}()
	<-waiting
	cancel()
	select {
	case got := <-done:
		if len(got) != 1 || !errors.Is(got[0], context.Canceled) {
			t.Errorf("yielded %v after the context ended; want one error, the read cut short", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadSitemaps still waiting 10 s after its context ended")
	}
	for _, h := range s.requests() {
		if h.path != "/robots.txt" {
			t.Errorf("%s was sent after the context ended", h.path)
		}
	}
}

// TestReadSitemapsFreshFromCache: a sitemap the page cache holds fresh
// (max-age) is read again without a request, and, nothing having been
// sent, it neither waits for the pace nor counts as the host's answer.
func TestReadSitemapsFreshFromCache(t *testing.T) {
	t.Parallel()
	var sent atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 0\n")
			return
		}
		sent.Add(1)
		w.Header().Set("Cache-Control", "max-age=3600")
		fmt.Fprintf(w, "http://%s/page/1\n", r.Host)
	}))
	defer srv.Close()
	e := Apply(colly.NewCollector(), WithPageStore(&pagecache.Memory{}), WithLogger(slog.New(slog.DiscardHandler)))
	for range 2 {
		if locs, errs := readSitemaps(e, srv.URL+"/sitemap.txt"); len(locs) != 1 || len(errs) != 0 {
			t.Fatalf("entries %q, errors %v", locs, errs)
		}
	}
	if n, got := sent.Load(), e.Stats().Responses[Status2xx]; n != 1 || got != 1 {
		t.Errorf("%d sitemap requests sent, %d responses counted; want 1 and 1", n, got)
	}
}
