package robotsotel

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

// siteRobots is the test site's robots.txt: two of its five pages are
// disallowed, and its Crawl-delay paces the three others.
const siteRobots = "User-agent: *\nDisallow: /private/\nCrawl-delay: 0.05\n"

// siteHome is the test site's home page: it links to the four other
// pages, which link nowhere.
const siteHome = `<html><body>
<a href="/a">a</a> <a href="/b">b</a>
<a href="/private/x">x</a> <a href="/private/y">y</a>
</body></html>`

// newSite starts the test site on loopback; it is closed when t ends.
func newSite(t testing.TB) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, siteRobots)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/" {
			fmt.Fprint(w, siteHome)
			return
		}
		fmt.Fprint(w, "<html><body>"+r.URL.Path+"</body></html>")
	})
	site := httptest.NewServer(mux)
	t.Cleanup(site.Close)
	return site
}

// newCrawler returns a collector that follows links, made to obey
// robots.txt by ext, and the list of the paths it fetches.
func newCrawler() (*colly.Collector, *robotsext.Extension, *[]string) {
	c := colly.NewCollector(colly.UserAgent("TestBot/1.0"))
	ext := robotsext.Apply(c, robotsext.WithUserAgent("TestBot"))
	fetched := new([]string)
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		_ = e.Request.Visit(e.Attr("href")) // blocked ones return an error
	})
	c.OnResponse(func(r *colly.Response) {
		*fetched = append(*fetched, r.Request.URL.Path)
	})
	return c, ext, fetched
}

// run crawls site from its home page with c.
func run(t testing.TB, c *colly.Collector, site *httptest.Server) {
	t.Helper()
	if err := c.Visit(site.URL + "/"); err != nil {
		t.Fatal(err)
	}
	c.Wait()
}
