package robotsext_test

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

// The README's first snippet. It is compiled, not run: it crawls a real site.
func ExampleApply_quickstart() {
	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; FooBot/1.0; +https://example.com/bot)"))
	ext := robotsext.Apply(c) // robots.txt is now fetched, cached and obeyed, as "FooBot"

	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		log.Printf("skipped %s: %s (line %d: %q)", r.URL, v.Reason, v.Line, v.Rule)
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	c.Visit("https://example.com/")
	c.Wait()
}

// RobotsURL names the one robots.txt that governs a URL: scheme, host and
// port, with the default port dropped.
func ExampleRobotsURL() {
	for _, u := range []string{"https://Shop.Example.com:443/cart?id=1", "http://example.com:8080/a", "ftp://example.com/"} {
		fmt.Println(robotsext.RobotsURL(u))
	}
	// Output:
	// https://shop.example.com/robots.txt <nil>
	// http://example.com:8080/robots.txt <nil>
	//  robotsext: not an http or https URL
}

// An unreachable robots.txt (5xx, 429, network error) blocks the origin by
// default, as RFC 9309 requires; FailOpen crawls it anyway.
func ExampleWithFailMode() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
	}))
	defer site.Close()

	for _, mode := range []robotsext.FailMode{robotsext.FailClosed, robotsext.FailOpen} {
		ext := robotsext.Apply(colly.NewCollector(), robotsext.WithFailMode(mode))
		v, _ := ext.Check(site.URL + "/page")
		fmt.Printf("%s: allowed=%v (%s)\n", mode, v.Allowed, v.Reason)
	}
	// Output:
	// fail-closed: allowed=false (robots.txt unreachable)
	// fail-open: allowed=true (robots.txt unreachable)
}

// The product token matched against User-agent lines defaults to the first
// token of the collector's User-Agent; WithUserAgent sets it explicitly.
func ExampleWithUserAgent() {
	site := exampleSite("User-agent: newsbot\nDisallow: /\n")
	defer site.Close()

	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; NewsBot/2.1; +https://example.com/bot)"))
	ext := robotsext.Apply(c, robotsext.WithUserAgent("NewsBot"))
	v, _ := ext.Check(site.URL + "/article")
	fmt.Println(v.Allowed, v.Reason, v.Line)
	// Output: false disallowed by rule 2
}

// WithMaxCrawlDelay caps absurd Crawl-delay values; LimitRules shows the
// pace in force as Colly LimitRules.
func ExampleWithMaxCrawlDelay() {
	site := exampleSite("User-agent: *\nCrawl-delay: 86400\n")
	defer site.Close()

	ext := robotsext.Apply(colly.NewCollector(), robotsext.WithMaxCrawlDelay(30*time.Second))
	if _, err := ext.Check(site.URL + "/"); err != nil {
		fmt.Println(err)
	}
	for _, r := range ext.LimitRules() {
		fmt.Println("parallelism", r.Parallelism, "delay", r.Delay)
	}
	fmt.Println("clamped:", ext.Stats().CrawlDelaysClamped)
	// Output:
	// parallelism 1 delay 30s
	// clamped: 1
}

// Some sites answer 403 for robots.txt and mean "keep out". RFC 9309 reads
// any 4xx as "no rules"; this option restores the older reading.
func ExampleWithUnauthorizedDisallowAll() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "forbidden", http.StatusForbidden)
	}))
	defer site.Close()

	rfc := robotsext.Apply(colly.NewCollector())
	strict := robotsext.Apply(colly.NewCollector(), robotsext.WithUnauthorizedDisallowAll())
	for _, ext := range []*robotsext.Extension{rfc, strict} {
		v, _ := ext.Check(site.URL + "/page")
		fmt.Println(v.Allowed, v.Reason)
	}
	// Output:
	// true robots.txt unavailable (4xx or redirect limit): allow all
	// false robots.txt answered 401/403: disallow all
}

// Lifetime, size and timeout of the robots.txt cache and fetches.
func ExampleWithCacheTTL() {
	c := colly.NewCollector()
	robotsext.Apply(c,
		robotsext.WithCacheTTL(6*time.Hour),  // when the response has no caching headers
		robotsext.WithCacheSize(100_000),     // origins kept (LRU)
		robotsext.WithTimeout(5*time.Second), // one robots.txt fetch, redirects included
		robotsext.WithHeaders(http.Header{"From": {"crawler@example.com"}}),
	)
}
