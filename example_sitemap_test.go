package robotsext_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

// sitemapSite serves a robots.txt naming one sitemap, which lists two
// pages with their <lastmod>, a third under /drafts/ (which robots.txt
// disallows) and one on another host (which the location rule drops).
func sitemapSite() *httptest.Server {
	var base string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nDisallow: /drafts/\nCrawl-delay: 0\nSitemap: %s/sitemap.xml\n", base)
		case "/sitemap.xml":
			fmt.Fprintf(w, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>%[1]s/</loc><lastmod>2024-05-17</lastmod></url>
<url><loc>%[1]s/pricing</loc><lastmod>2024-05-17T10:00:00+02:00</lastmod></url>
<url><loc>%[1]s/drafts/launch</loc></url>
<url><loc>https://elsewhere.example/</loc></url>
</urlset>`, base)
		default:
			fmt.Fprint(w, "<html><body>page</body></html>")
		}
	}))
	base = srv.URL
	return srv
}

// ReadSitemaps streams the pages of a site's sitemaps; visit each through
// the collector, and robots.txt decides each page as it is visited.
func ExampleExtension_ReadSitemaps() {
	srv := sitemapSite()
	defer srv.Close()
	site, ctx := srv.URL, context.Background()
	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; MapBot/1.0; +https://example.com/bot)"))
	c.OnResponse(func(r *colly.Response) { fmt.Println("fetched", r.Request.URL.Path) })

	ext := robotsext.Apply(c)
	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) { fmt.Println("blocked", r.URL.Path) })
	for entry, err := range ext.ReadSitemaps(ctx, site) {
		if err != nil {
			log.Print(err) // a sitemap not read, or read in part; the stream goes on
			continue
		}
		c.Visit(entry.Loc) // robots.txt decides the page when it is visited
	}
	fmt.Println("dropped by the location rule:", ext.Stats().Sitemaps.Outside)
	// Output:
	// fetched /
	// fetched /pricing
	// blocked /drafts/launch
	// dropped by the location rule: 1
}

// WithSitemapRules bounds what ReadSitemaps reads: past a bound, the rest
// is not read and an error says which bound was reached.
func ExampleWithSitemapRules() {
	srv := sitemapSite()
	defer srv.Close()
	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; MapBot/1.0; +https://example.com/bot)"))
	ext := robotsext.Apply(c, robotsext.WithSitemapRules(robotsext.SitemapRules{
		Limits: robotsext.SitemapLimits{FileURLs: 2},
	}))
	for entry, err := range ext.ReadSitemaps(context.Background(), srv.URL+"/sitemap.xml") {
		var le *robotsext.SitemapLimitError
		if errors.As(err, &le) {
			fmt.Println("cut:", le.Bound, le.Limit)
			continue
		}
		fmt.Println(strings.TrimPrefix(entry.Loc, srv.URL), entry.LastMod.Format("2006-01-02 15:04"))
	}
	// Output:
	// / 2024-05-17 00:00
	// /pricing 2024-05-17 08:00
	// cut: file URLs 2
}
