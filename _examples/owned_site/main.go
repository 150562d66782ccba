// Command owned_site shows WithOverride: the rules of a site you own are not
// applied (its Crawl-delay still is), while a third-party site with the very
// same robots.txt is crawled politely. Offline: both sites run on loopback.
//
//	go run ./_examples/owned_site
package main

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

const robots = "User-agent: *\nDisallow: /admin/\nDisallow: /staging/\nCrawl-delay: 0.1\n"

var pages = []string{"/", "/products", "/admin/orders", "/staging/new-home"}

func main() {
	ours := site("our shop")
	defer ours.Close()
	theirs := site("third party")
	defer theirs.Close()
	ourHost := hostOf(ours.URL)

	c := colly.NewCollector(colly.UserAgent("ShopAuditBot/1.0"))
	// Exact host (with its port here, as both demo sites share 127.0.0.1);
	// "*.example.com" patterns are accepted too.
	ext := robotsext.Apply(c, robotsext.WithOverride(ourHost))

	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		fmt.Printf("BLOCKED  %-40s %s, line %d\n", r.URL, v.Reason, v.Line)
	})
	c.OnResponse(func(r *colly.Response) {
		fmt.Printf("FETCHED  %s\n", r.Request.URL)
	})

	for _, base := range []string{ours.URL, theirs.URL} {
		for _, p := range pages {
			if err := c.Visit(base + p); err != nil {
				log.Printf("visit %s: %v", base+p, err)
			}
		}
	}
	c.Wait()

	for _, base := range []string{ours.URL, theirs.URL} {
		v, err := ext.Check(base + "/admin/orders")
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("\n%s/admin/orders -> allowed=%v (%s)", base, v.Allowed, v.Reason)
	}
	st := ext.Stats()
	fmt.Printf("\n\noverride decisions: %d, blocked: %d\n", st.Overrides, st.Blocked[robotsext.ReasonDisallowRule])
}

func site(name string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, robots)
			return
		}
		fmt.Fprintf(w, "<html><body>%s: %s</body></html>", name, r.URL.Path)
	}))
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		log.Fatal(err)
	}
	return u.Host
}
