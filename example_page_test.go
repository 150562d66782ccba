package robotsext_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

// directiveSite serves a home page linking to a page whose X-Robots-Tag
// says noindex and nofollow to DemoBot, which links on to /hidden.
func directiveSite() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/robots.txt": // a short delay keeps the example fast
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 0.05\n")
		case "/":
			fmt.Fprint(w, `<html><head><meta name="robots" content="max-snippet:100"></head><body><a href="/private">p</a></body></html>`)
		case "/private":
			w.Header().Set("X-Robots-Tag", "demobot: noindex, nofollow, unavailable_after: Wed, 30 Dec 2026 12:00:00 GMT")
			fmt.Fprint(w, `<html><body><a href="/hidden">h</a></body></html>`)
		default:
			fmt.Fprint(w, `<html><body>leaf</body></html>`)
		}
	}))
}

var stored []string

func store(r *colly.Response) { stored = append(stored, r.Request.URL.Path) }

func expireAt(u *url.URL, t time.Time) { fmt.Println("expire", u.Path, "at", t.Format(time.RFC3339)) }

// Page tells OnResponse callbacks what the page's X-Robots-Tag headers
// and meta robots tags say to the crawler, to decide what to store.
func ExampleExtension_Page() {
	srv := directiveSite()
	defer srv.Close()
	c := colly.NewCollector(colly.UserAgent("DemoBot/1.0"))
	ext := robotsext.Apply(c)

	c.OnResponse(func(r *colly.Response) {
		p := ext.Page(r)
		if p.Directives.NoIndex {
			return // the page asks not to be indexed: do not store it
		}
		if !p.Directives.UnavailableAfter.IsZero() {
			expireAt(p.URL, p.Directives.UnavailableAfter)
		}
		store(r)
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { _ = e.Request.Visit(e.Attr("href")) })
	_ = c.Visit(srv.URL + "/")
	fmt.Println("stored:", stored)
	// Output:
	// stored: [/]
}

// By default the links of a nofollow page are refused before they are
// fetched, and reach OnBlocked with the page and the rule.
func ExampleWithNofollow() {
	srv := directiveSite()
	defer srv.Close()
	for _, enforce := range []bool{true, false} {
		c := colly.NewCollector(colly.UserAgent("DemoBot/1.0"))
		ext := robotsext.Apply(c, robotsext.WithNofollow(enforce))
		ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
			page, _ := url.Parse(v.Page)
			fmt.Printf("refused %s: %s on %s (%s)\n", r.URL.Path, v.Reason, page.Path, v.Rule)
		})
		var fetched []string
		c.OnResponse(func(r *colly.Response) { fetched = append(fetched, r.Request.URL.Path) })
		c.OnHTML("a[href]", func(e *colly.HTMLElement) { _ = e.Request.Visit(e.Attr("href")) })
		_ = c.Visit(srv.URL + "/")
		fmt.Printf("WithNofollow(%v): fetched %v\n", enforce, fetched)
	}
	// Output:
	// refused /hidden: link of a nofollow page on /private (X-Robots-Tag: demobot: nofollow)
	// WithNofollow(true): fetched [/ /private]
	// WithNofollow(false): fetched [/ /private /hidden]
}

// WithRelNofollow also refuses links marked rel="nofollow", unless the
// page links to the same URL without it too.
func ExampleWithRelNofollow() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/robots.txt": // a short delay keeps the example fast
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 0.05\n")
		case "/":
			fmt.Fprint(w, `<html><body><a rel="nofollow ugc" href="/ad">ad</a> <a href="/about">about</a></body></html>`)
		}
	}))
	defer srv.Close()
	c := colly.NewCollector(colly.UserAgent("DemoBot/1.0"))
	ext := robotsext.Apply(c, robotsext.WithRelNofollow()) // before the OnHTML callbacks that follow links
	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		fmt.Printf("refused %s: %s\n", r.URL.Path, v.Reason)
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { _ = e.Request.Visit(e.Attr("href")) })
	_ = c.Visit(srv.URL + "/")
	// Output:
	// refused /ad: link marked rel="nofollow"
}

// ParseXRobotsTag reads X-Robots-Tag values for one product token; rules
// scoped to other crawlers are skipped, the rest add up.
func ExampleParseXRobotsTag() {
	d := robotsext.ParseXRobotsTag("DemoBot",
		"noarchive",
		"otherbot: noindex",
		"demobot: nofollow, unavailable_after: Wednesday, 03-Nov-2027 15:00:00 GMT",
		"max-snippet: 50")
	fmt.Println(d)
	fmt.Println(d.NofollowRule(), "|", d.From(robotsext.DirectiveNoFollow))
	// Output:
	// nofollow, noarchive, max-snippet:50, unavailable_after:2027-11-03T15:00:00Z
	// X-Robots-Tag: demobot: nofollow | header
}

// ParseMetaRobots reads the robots meta tags of a page's head.
func ExampleParseMetaRobots() {
	page := []byte(`<!DOCTYPE html><html><head><title>x</title>
<meta name="robots" content="noindex">
<meta name="DemoBot" content="nofollow, max-image-preview:standard">
<meta name="otherbot" content="none">
</head><body><meta name="robots" content="noarchive"></body></html>`)
	fmt.Println(robotsext.ParseMetaRobots("DemoBot", page))
	// Output:
	// noindex, nofollow, max-image-preview:standard
}

// ReadDirectives reads a response's headers and, for HTML, its head.
func ExampleReadDirectives() {
	h := http.Header{"Content-Type": {"text/html"}, "X-Robots-Tag": {"none"}}
	d := robotsext.ReadDirectives("DemoBot", h, []byte(`<head><meta name="robots" content="noarchive"></head>`))
	fmt.Println(d, "|", d.From(robotsext.DirectiveNoArchive))
	// Output:
	// noindex, nofollow, noarchive | meta
}

// Directives values name their rules.
func ExampleDirectives() {
	fmt.Println(robotsext.Directives{})
	fmt.Println(robotsext.ParseXRobotsTag("DemoBot", "all"))
	// Output:
	// none stated
	// all
}
