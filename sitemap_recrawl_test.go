package robotsext

import (
	"context"
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

// demoSite is a loopback site of pages pages listed in a gzipped sitemap
// index of maps gzipped sitemaps, each entry with its <lastmod>. Every
// page and sitemap has an ETag and a Last-Modified and asks to be
// revalidated (no-cache). After change(k), the first k pages are newer:
// a new body and ETag, a later Last-Modified and <lastmod>. It counts
// what it is asked and sends, and when.
type demoSite struct {
	*httptest.Server
	pages, maps int
	changed     atomic.Int64

	mu          sync.Mutex
	requests    int
	notModified int
	bytes       int64 // body bytes sent
	first, last time.Time
}

var (
	demoOld = time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	demoNew = time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
)

func newDemoSite(t testing.TB, pages, maps int) *demoSite {
	s := &demoSite{pages: pages, maps: maps}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// change makes the first k pages newer.
func (s *demoSite) change(k int) { s.changed.Store(int64(k)) }

// reset forgets the counts.
func (s *demoSite) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests, s.notModified, s.bytes, s.first, s.last = 0, 0, 0, time.Time{}, time.Time{}
}

func (s *demoSite) serve(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	body, mod, etag := s.file(r.URL.Path)
	s.mu.Lock()
	s.requests++
	if s.first.IsZero() {
		s.first = now
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.last = time.Now()
		s.mu.Unlock()
	}()
	if body == nil {
		http.NotFound(w, r)
		return
	}
	if r.URL.Path != "/robots.txt" {
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("ETag", etag)
		w.Header().Set("Last-Modified", mod.Format(http.TimeFormat))
		if r.Header.Get("If-None-Match") == etag {
			s.mu.Lock()
			s.notModified++
			s.mu.Unlock()
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	n, _ := w.Write(body)
	s.mu.Lock()
	s.bytes += int64(n)
	s.mu.Unlock()
}

// file is the body, Last-Modified and ETag of path; nil for none.
func (s *demoSite) file(path string) ([]byte, time.Time, string) {
	k := int(s.changed.Load())
	switch {
	case path == "/robots.txt":
		return fmt.Appendf(nil, "User-agent: *\nCrawl-delay: 0\nSitemap: %s/sitemap_index.xml.gz\n", s.URL), demoOld, ""
	case path == "/sitemap_index.xml.gz":
		var b strings.Builder
		b.WriteString(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for i := range s.maps {
			fmt.Fprintf(&b, "<sitemap><loc>%s/sitemap-%d.xml.gz</loc><lastmod>%s</lastmod></sitemap>", s.URL, i, s.mapMod(i, k).Format(time.RFC3339))
		}
		b.WriteString("</sitemapindex>")
		return []byte(gzipped(b.String())), s.mapMod(0, k), fmt.Sprintf(`"i%d"`, k)
	case strings.HasPrefix(path, "/sitemap-"):
		var i int
		if _, err := fmt.Sscanf(path, "/sitemap-%d.xml.gz", &i); err != nil || i >= s.maps {
			return nil, time.Time{}, ""
		}
		per := s.pages / s.maps
		var b strings.Builder
		b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for p := i * per; p < (i+1)*per; p++ {
			fmt.Fprintf(&b, "<url><loc>%s/page/%d</loc><lastmod>%s</lastmod></url>\n", s.URL, p, s.pageMod(p, k).Format("2006-01-02"))
		}
		b.WriteString("</urlset>")
		return []byte(gzipped(b.String())), s.mapMod(i, k), fmt.Sprintf(`"s%d-%d"`, i, min(max(k-i*per, 0), per))
	case strings.HasPrefix(path, "/page/"):
		var p int
		if _, err := fmt.Sscanf(path, "/page/%d", &p); err != nil || p >= s.pages {
			return nil, time.Time{}, ""
		}
		mod := s.pageMod(p, k)
		return fmt.Appendf(nil, "<html><body><h1>page %d</h1><p>%s</p>%s</body></html>", p, mod.Format(time.DateOnly), strings.Repeat("lorem ipsum ", 100)),
			mod, fmt.Sprintf(`"p%d-%d"`, p, mod.Unix())
	}
	return nil, time.Time{}, ""
}

func (s *demoSite) pageMod(p, k int) time.Time {
	if p < k {
		return demoNew
	}
	return demoOld
}

func (s *demoSite) mapMod(i, k int) time.Time { return s.pageMod(i*(s.pages/s.maps), k) }

// demoCost is what one crawl cost the site.
type demoCost struct {
	requests, notModified int
	bytes                 int64
	span                  time.Duration // from the first request to the last answer
	visited               int
}

// crawlDemo crawls s from its sitemaps with a new Extension (a new run)
// over the page store st, visiting each entry ReadSitemaps yields.
func crawlDemo(t testing.TB, s *demoSite, st PageStore, skip bool) demoCost {
	s.reset()
	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; MapBot/1.0; +https://operator.test/bot)"), colly.Async(true))
	_ = c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 4})
	e := Apply(c, WithPageStore(st), WithSitemapRules(SitemapRules{SkipUnchanged: skip}), WithLogger(slog.New(slog.DiscardHandler)))
	visited := 0
	for en, err := range e.ReadSitemaps(context.Background(), s.URL) {
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Visit(en.Loc); err != nil {
			t.Fatal(err)
		}
		visited++
	}
	c.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	return demoCost{requests: s.requests, notModified: s.notModified, bytes: s.bytes, span: s.last.Sub(s.first), visited: visited}
}

// TestSitemapRecrawl crawls a site of 1,000 pages from its gzipped
// sitemap index of 4 sitemaps three times over one page store: the first
// downloads everything; after 10 pages changed, a second run without
// SkipUnchanged revalidates every page and sitemap (304s but for what
// changed); a third with SkipUnchanged asks only for what changed. Not
// parallel: its 3,000 requests would crowd the tests that time a pace.
func TestSitemapRecrawl(t *testing.T) {
	s := newDemoSite(t, 1000, 4)
	st := &pagecache.Memory{}
	first := crawlDemo(t, s, st, false)
	if first.requests != 1+1+4+1000 || first.visited != 1000 {
		t.Fatalf("first crawl: %+v; want robots.txt, the index, 4 sitemaps and 1,000 pages", first)
	}
	s.change(10)
	second := crawlDemo(t, s, st, false)
	// robots.txt, the index and the first sitemap changed; 3 sitemaps and
	// 990 pages revalidated with a 304; 10 pages fetched anew.
	if second.requests != 1006 || second.notModified != 3+990 {
		t.Errorf("second crawl without SkipUnchanged: %+v", second)
	}
	s.change(20)
	third := crawlDemo(t, s, st, true)
	// robots.txt, the index and the first sitemap changed; 3 sitemaps
	// revalidated; only the 10 pages changed since the second crawl asked.
	if third.requests != 1+1+4+10 || third.notModified != 3 || third.visited != 10 {
		t.Errorf("third crawl with SkipUnchanged: %+v", third)
	}
	t.Logf("first %+v\nsecond %+v\nthird %+v", first, second, third)
}

// BenchmarkSitemapRecrawl is the demo: a site of 10,000 pages in
// a gzipped sitemap index of 4 sitemaps with <lastmod>, crawled twice over
// one page store, with 1% of the pages changed in between; the second
// crawl with the page cache alone (every page revalidated) and with
// SkipUnchanged. It reports, per crawl, the requests, the body bytes and
// the time from the first request to the last answer at the server (an
// Async collector of Parallelism 4, on loopback).
//
//	go test -run '^$' -bench BenchmarkSitemapRecrawl -benchtime 3x .
func BenchmarkSitemapRecrawl(b *testing.B) {
	for _, skip := range []bool{false, true} {
		b.Run(fmt.Sprint("skipUnchanged=", skip), func(b *testing.B) {
			var first, second demoCost
			for range b.N {
				s := newDemoSite(b, 10_000, 4)
				st := &pagecache.Memory{}
				f := crawlDemo(b, s, st, false)
				s.change(100)
				g := crawlDemo(b, s, st, skip)
				first.requests, first.bytes, first.span = first.requests+f.requests, first.bytes+f.bytes, first.span+f.span
				second.requests, second.bytes, second.span = second.requests+g.requests, second.bytes+g.bytes, second.span+g.span
			}
			n := float64(b.N)
			b.ReportMetric(float64(first.requests)/n, "first-req")
			b.ReportMetric(float64(first.bytes)/n, "first-B")
			b.ReportMetric(first.span.Seconds()*1000/n, "first-ms")
			b.ReportMetric(float64(second.requests)/n, "second-req")
			b.ReportMetric(float64(second.bytes)/n, "second-B")
			b.ReportMetric(second.span.Seconds()*1000/n, "second-ms")
		})
	}
}
