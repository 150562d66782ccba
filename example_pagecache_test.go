package robotsext_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

// pageSite serves a fresh page (an hour of max-age) and one revalidated
// by its ETag, and counts the requests it is sent.
func pageSite(requests *int) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 0\n")
			return
		}
		*requests++
		if r.URL.Path == "/news" {
			w.Header().Set("Cache-Control", "no-cache")
			w.Header().Set("ETag", `"v1"`)
			if r.Header.Get("If-None-Match") == `"v1"` {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		} else {
			w.Header().Set("Cache-Control", "max-age=3600")
		}
		fmt.Fprint(w, "<html><body>"+r.URL.Path+"</body></html>")
	}))
}

// WithPageCache keeps pages across runs: the second run serves the fresh
// page without a request (nor a wait for its host's pace) and revalidates
// the other, whose 304 reaches OnResponse as the stored 200.
func ExampleWithPageCache() {
	requests := 0
	site := pageSite(&requests)
	defer site.Close()
	dir, _ := os.MkdirTemp("", "pages")
	defer os.RemoveAll(dir)

	for run := 1; run <= 2; run++ {
		c := colly.NewCollector(colly.UserAgent("FooBot/1.0 (+https://example.com/bot)"))
		robotsext.Apply(c, robotsext.WithPageCache(dir))
		c.OnResponse(func(r *colly.Response) {
			fmt.Println(run, r.Request.URL.Path, r.StatusCode, robotsext.CacheResultOf(r))
		})
		c.Visit(site.URL + "/about")
		c.Visit(site.URL + "/news")
	}
	fmt.Println("requests:", requests)
	// Output:
	// 1 /about 200 miss
	// 1 /news 200 miss
	// 2 /about 200 hit
	// 2 /news 200 revalidated
	// requests: 3
}

// WithPageStore puts the page cache over a store of your choice: here the
// disk store with a bound of 64 MiB instead of DefaultPageCacheSize.
func ExampleWithPageStore() {
	dir, _ := os.MkdirTemp("", "pages")
	defer os.RemoveAll(dir)
	store, err := robotsext.NewDiskPageStore(dir, 64<<20)
	if err != nil {
		fmt.Println(err)
		return
	}
	c := colly.NewCollector(colly.UserAgent("FooBot/1.0 (+https://example.com/bot)"))
	ext := robotsext.Apply(c, robotsext.WithPageStore(store))
	fmt.Println(ext.Stats().PageCache.Hits)
	// Output: 0
}

// PageTransport keeps your own transport behind the page cache: set it
// after Apply, wrapped, as c.SetProxy or c.WithTransport alone would
// replace the cache.
func ExampleExtension_PageTransport() {
	requests := 0
	site := pageSite(&requests)
	defer site.Close()
	dir, _ := os.MkdirTemp("", "pages")
	defer os.RemoveAll(dir)

	c := colly.NewCollector(colly.UserAgent("FooBot/1.0 (+https://example.com/bot)"))
	c.AllowURLRevisit = true
	ext := robotsext.Apply(c, robotsext.WithPageCache(dir))
	myTransport := &http.Transport{Proxy: http.ProxyFromEnvironment}
	c.WithTransport(ext.PageTransport(myTransport))
	c.Visit(site.URL + "/about")
	c.Visit(site.URL + "/about")
	fmt.Println("requests:", requests, "hits:", ext.Stats().PageCache.Hits)
	// Output: requests: 1 hits: 1
}

// CacheResultOf tells, in OnResponse, OnHTML or OnScraped, what the page
// cache did for a response.
func ExampleCacheResultOf() {
	requests := 0
	site := pageSite(&requests)
	defer site.Close()
	dir, _ := os.MkdirTemp("", "pages")
	defer os.RemoveAll(dir)

	c := colly.NewCollector(colly.UserAgent("FooBot/1.0 (+https://example.com/bot)"))
	c.AllowURLRevisit = true
	robotsext.Apply(c, robotsext.WithPageCache(dir))
	c.OnScraped(func(r *colly.Response) {
		switch robotsext.CacheResultOf(r) {
		case robotsext.CacheHit, robotsext.CacheRevalidated:
			fmt.Println("unchanged:", r.Request.URL.Path)
		default:
			fmt.Println("downloaded:", r.Request.URL.Path)
		}
	})
	c.Visit(site.URL + "/news")
	c.Visit(site.URL + "/news")
	// Output:
	// downloaded: /news
	// unchanged: /news
}

// Apply with your own transport and the page cache: set it on the
// collector before Apply (robots.txt goes the same way), or after Apply
// wrapped by PageTransport, as here, so that the cache stays in front of
// it. c.WithTransport(myTransport) alone, or SetProxyFunc,
// after Apply would replace the cache (one Warn; pages paced, uncached).
func ExampleApply_transport() {
	requests := 0
	site := pageSite(&requests)
	defer site.Close()
	dir, _ := os.MkdirTemp("", "pages")
	defer os.RemoveAll(dir)

	myTransport := &http.Transport{Proxy: http.ProxyFromEnvironment}
	c := colly.NewCollector(colly.UserAgent("FooBot/1.0 (+https://example.com/bot)"))
	c.AllowURLRevisit = true
	ext := robotsext.Apply(c, robotsext.WithPageCache(dir))
	c.WithTransport(ext.PageTransport(myTransport))
	c.Visit(site.URL + "/about")
	c.Visit(site.URL + "/about")
	fmt.Println("requests:", requests, "hits:", ext.Stats().PageCache.Hits)
	// Output: requests: 1 hits: 1
}
