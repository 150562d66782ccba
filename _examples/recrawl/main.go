// Command recrawl runs the same crawl twice over one page cache
// (robotsext.WithPageCache) against a demo site, and prints what the
// second run saved: the pages served fresh without a request and without
// a wait for the pace, the pages the site answered 304 Not Modified to,
// and the bytes not downloaded. It runs offline: the demo site is served
// on loopback.
//
// The demo site has 500 pages of about 80 KB and says "Crawl-delay: 0.01"
// (a tenth of a second in ten pages, to keep the demo short): a tenth of
// its pages are fresh for a day (max-age), the rest are revalidated each
// time (no-cache with an ETag), and between the two runs a tenth of those
// change.
//
//	go run ./_examples/recrawl
package main

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

const pages = 500

// site is the demo site: its version moves on between the runs, changing
// the pages whose number ends in 1.
type site struct {
	version          atomic.Int32
	requests, notMod atomic.Int64
	sent             atomic.Int64 // body bytes
}

func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		fmt.Fprint(w, "User-agent: *\nCrawl-delay: 0.01\n")
		return
	}
	s.requests.Add(1)
	var n int
	fmt.Sscanf(r.URL.Path, "/page/%d", &n)
	w.Header().Set("Content-Type", "text/html")
	if n%10 == 0 {
		w.Header().Set("Cache-Control", "max-age=86400")
	} else {
		etag := `"v1"`
		if n%10 == 1 {
			etag = fmt.Sprintf(`"v%d"`, s.version.Load())
		}
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("ETag", etag)
		if r.Header.Get("If-None-Match") == etag {
			s.notMod.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	body := fmt.Sprintf("<html><body><h1>Page %d</h1><p>%s</p></body></html>", n, strings.Repeat("lorem ipsum ", 6800))
	s.sent.Add(int64(len(body)))
	fmt.Fprint(w, body)
}

// crawl visits every page with a new collector, as a new run of the
// crawler would, over the cache in dir.
func crawl(base, dir string) (robotsext.Stats, time.Duration) {
	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; DemoBot/1.0; +https://example.com/bot)"))
	ext := robotsext.Apply(c, robotsext.WithPageCache(dir))
	c.OnError(func(r *colly.Response, err error) { log.Printf("%s: %v", r.Request.URL, err) })
	start := time.Now()
	for i := range pages {
		c.Visit(fmt.Sprintf("%s/page/%d", base, i))
	}
	c.Wait()
	return ext.Stats(), time.Since(start)
}

func main() {
	s := &site{}
	s.version.Store(1)
	srv := httptest.NewServer(s)
	defer srv.Close()
	dir, err := os.MkdirTemp("", "recrawl")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	_, took := crawl(srv.URL, dir)
	fmt.Printf("first run:  %d pages downloaded, %.1f MB, in %.1f s\n", s.requests.Load(), float64(s.sent.Load())/1e6, took.Seconds())

	s.version.Store(2)
	s.requests.Store(0)
	s.sent.Store(0)
	st, took := crawl(srv.URL, dir)
	pc := st.PageCache
	fmt.Printf("second run: %d requests reached the site, %.1f MB sent, in %.1f s\n", s.requests.Load(), float64(s.sent.Load())/1e6, took.Seconds())
	fmt.Printf("%d of %d pages not modified (304), %.0f MB not downloaded; %d fresh pages served without a request, %d changed\n",
		pc.Revalidated, pages, float64(pc.BytesSaved)/1e6, pc.Hits, pc.Stale)
	fmt.Printf("the pace: %d requests waited %.1f s in all; %d pages waited 0 s (served fresh)\n",
		st.PaceWaits.Count, st.PaceWaits.Sum.Seconds(), pages-int(st.PaceWaits.Count))
}
