// Command sitemaps crawls a demo site from its sitemaps twice over one
// page cache, and prints what the second run cost the site. It runs
// offline: the site is served on loopback.
//
// The site's robots.txt names a gzipped sitemap index of 4 gzipped
// sitemaps listing 1,000 pages, each with its <lastmod>, and disallows
// /drafts/. Every page and sitemap carries an ETag and a Last-Modified
// and asks to be revalidated. Between the runs, 10 pages change (a new
// body, a later <lastmod>). The first run reads the sitemaps
// (ext.ReadSitemaps) and visits every page; the second, a new process's
// run over the same cache directory with SkipUnchanged, revalidates the
// sitemaps (a 304 for each that did not change) and visits only the
// pages whose <lastmod> is later than the copy it stored.
//
//	go run ./_examples/sitemaps
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

const (
	pages   = 1000
	maps    = 4
	changed = 10
)

var (
	before = time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)
	after  = time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
)

// site is the demo site; it counts what it is asked and sends.
type site struct {
	*httptest.Server
	mu       sync.Mutex
	changed  bool
	requests int
	notMod   int
	bytes    int
}

func main() {
	s := &site{}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	defer s.Close()
	dir, err := os.MkdirTemp("", "sitemaps-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	fmt.Println("first run:")
	run(s, dir)
	s.mu.Lock()
	s.changed, s.requests, s.notMod, s.bytes = true, 0, 0, 0
	s.mu.Unlock()
	fmt.Printf("%d pages change\nsecond run (SkipUnchanged):\n", changed)
	run(s, dir)
}

// run crawls the site from its sitemaps, as a new process would, over the
// page cache in dir.
func run(s *site, dir string) {
	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; MapBot/1.0; +https://example.com/bot)"), colly.Async(true))
	_ = c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 4})
	ext := robotsext.Apply(c, robotsext.WithPageCache(dir),
		robotsext.WithSitemapRules(robotsext.SitemapRules{SkipUnchanged: true}))
	visited := 0
	for entry, err := range ext.ReadSitemaps(context.Background(), s.URL) {
		if err != nil {
			log.Print(err)
			continue
		}
		if c.Visit(entry.Loc) == nil {
			visited++
		}
	}
	c.Wait()
	st := ext.Stats()
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Printf("  sitemaps read %d, entries %d (skipped as unchanged %d), visited %d, blocked %d\n",
		st.Sitemaps.Sitemaps, st.Sitemaps.Entries, st.Sitemaps.Unchanged, visited, st.Blocked[robotsext.ReasonDisallowRule])
	fmt.Printf("  the site got %d requests (%d answered 304) and sent %d body bytes\n", s.requests, s.notMod, s.bytes)
}

func (s *site) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests++
	body, mod := s.file(r.URL.Path)
	if body == nil {
		http.NotFound(w, r)
		return
	}
	etag := fmt.Sprintf(`"%x"`, len(body)+int(mod.Unix()))
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("ETag", etag)
	w.Header().Set("Last-Modified", mod.Format(http.TimeFormat))
	if r.Header.Get("If-None-Match") == etag {
		s.notMod++
		w.WriteHeader(http.StatusNotModified)
		return
	}
	n, _ := w.Write(body)
	s.bytes += n
}

// file is the body and Last-Modified of path, nil for none; s.mu is held.
func (s *site) file(path string) ([]byte, time.Time) {
	per := pages / maps
	switch {
	case path == "/robots.txt":
		return fmt.Appendf(nil, "User-agent: *\nDisallow: /drafts/\nCrawl-delay: 0\nSitemap: %s/sitemap_index.xml.gz\n", s.URL), before
	case path == "/sitemap_index.xml.gz":
		var b strings.Builder
		b.WriteString(`<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for i := range maps {
			fmt.Fprintf(&b, "<sitemap><loc>%s/sitemap-%d.xml.gz</loc><lastmod>%s</lastmod></sitemap>", s.URL, i, s.mod(i*per).Format(time.RFC3339))
		}
		return gzipped(b.String() + "</sitemapindex>"), s.mod(0)
	case strings.HasPrefix(path, "/sitemap-"):
		var i int
		if _, err := fmt.Sscanf(path, "/sitemap-%d.xml.gz", &i); err != nil || i < 0 || i >= maps {
			return nil, time.Time{}
		}
		var b strings.Builder
		b.WriteString(`<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
		for p := i * per; p < (i+1)*per; p++ {
			fmt.Fprintf(&b, "<url><loc>%s/page/%d</loc><lastmod>%s</lastmod></url>\n", s.URL, p, s.mod(p).Format(time.DateOnly))
		}
		fmt.Fprintf(&b, "<url><loc>%s/drafts/%d</loc></url></urlset>", s.URL, i)
		return gzipped(b.String()), s.mod(i * per)
	case strings.HasPrefix(path, "/page/"), strings.HasPrefix(path, "/drafts/"):
		var p int
		if _, err := fmt.Sscanf(path[strings.LastIndexByte(path, '/')+1:], "%d", &p); err != nil || p < 0 || p >= pages {
			return nil, time.Time{}
		}
		return fmt.Appendf(nil, "<html><body><h1>%s</h1><p>%s</p>%s</body></html>", path, s.mod(p).Format(time.DateOnly), strings.Repeat("lorem ipsum ", 400)), s.mod(p)
	}
	return nil, time.Time{}
}

// mod is page p's last change; s.mu is held.
func (s *site) mod(p int) time.Time {
	if s.changed && p < changed {
		return after
	}
	return before
}

func gzipped(s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write([]byte(s))
	_ = zw.Close()
	return b.Bytes()
}
