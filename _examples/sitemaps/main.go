// Command sitemaps reads the Sitemap lines of a site's robots.txt and queues
// the pages the sitemaps list; robots.txt still decides which are fetched.
// Offline: the demo site runs on loopback.
//
// The demo site's robots.txt asks for a short Crawl-delay (50 ms) so
// that the example runs fast; a site that states none is paced one
// request per second (robotsext.DefaultDelay).
//
//	go run ./_examples/sitemaps
package main

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

func main() {
	var base string
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nDisallow: /drafts/\nCrawl-delay: 0.05\n\nSitemap: %s/sitemap-pages.xml\nSitemap: %s/sitemap-blog.xml\n", base, base)
		case "/sitemap-pages.xml":
			urlset(w, base, "/", "/pricing", "/drafts/launch")
		case "/sitemap-blog.xml":
			urlset(w, base, "/blog/hello", "/blog/robots")
		default:
			fmt.Fprintf(w, "<html><body>%s</body></html>", r.URL.Path)
		}
	}))
	defer site.Close()
	base = site.URL

	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; MapBot/1.0; +https://example.com/bot)"))
	ext := robotsext.Apply(c)
	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		fmt.Printf("BLOCKED  %-22s %s (line %d: %q)\n", r.URL.Path, v.Reason, v.Line, v.Rule)
	})
	c.OnXML("//urlset/url/loc", func(e *colly.XMLElement) {
		_ = e.Request.Visit(strings.TrimSpace(e.Text))
	})
	c.OnResponse(func(r *colly.Response) {
		fmt.Printf("FETCHED  %s\n", r.Request.URL.Path)
	})

	maps, err := ext.Sitemaps(base + "/")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("Sitemaps in robots.txt:")
	for _, m := range maps {
		fmt.Println("  " + m)
	}
	for _, m := range maps {
		if err := c.Visit(m); err != nil {
			log.Printf("visit %s: %v", m, err)
		}
	}
	c.Wait()
}

func urlset(w http.ResponseWriter, base string, paths ...string) {
	w.Header().Set("Content-Type", "application/xml")
	fmt.Fprintln(w, `<?xml version="1.0" encoding="UTF-8"?>`)
	fmt.Fprintln(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for _, p := range paths {
		fmt.Fprintf(w, "  <url><loc>%s%s</loc></url>\n", base, p)
	}
	fmt.Fprintln(w, `</urlset>`)
}
