package robotsext_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

// exampleSite serves robots.txt and small pages on loopback, so that the
// examples run offline. The examples' robots.txt files state a short
// Crawl-delay (0.05 s) so that they run in milliseconds: a site whose
// robots.txt states none is paced DefaultDelay (1 s) apart.
func exampleSite(robotsTxt string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, robotsTxt)
			return
		}
		fmt.Fprint(w, "<html><body>hello</body></html>")
	}))
}

// Apply with OnBlocked: disallowed requests are aborted before they are
// sent, and OnBlocked says which rule on which line decided.
func ExampleExtension_OnBlocked() {
	site := exampleSite("User-agent: *\nDisallow: /private\nCrawl-delay: 0.05\n")
	defer site.Close()

	c := colly.NewCollector(colly.UserAgent("FooBot/1.0"))
	ext := robotsext.Apply(c)
	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		fmt.Printf("blocked %s: %s, line %d %q\n", r.URL.Path, v.Reason, v.Line, v.Rule)
	})
	c.OnResponse(func(r *colly.Response) { fmt.Println("fetched", r.Request.URL.Path) })

	c.Visit(site.URL + "/public")
	c.Visit(site.URL + "/private/report")
	// Output:
	// fetched /public
	// blocked /private/report: disallowed by rule, line 2 "/private"
}

// Check decides a URL without crawling it, fetching robots.txt if needed.
func ExampleExtension_Check() {
	site := exampleSite("User-agent: foobot\nDisallow: /drafts/\nAllow: /drafts/public\n")
	defer site.Close()

	ext := robotsext.Apply(colly.NewCollector(colly.UserAgent("FooBot/1.0")))
	for _, path := range []string{"/drafts/one", "/drafts/public-notes", "/about"} {
		v, err := ext.Check(site.URL + path)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%-22s allowed=%-5v %s\n", path, v.Allowed, v.Reason)
	}
	// Output:
	// /drafts/one            allowed=false disallowed by rule
	// /drafts/public-notes   allowed=true  allowed by rule
	// /about                 allowed=true  no rule matched
}

// Sitemaps lists the Sitemap lines of the robots.txt governing a URL.
func ExampleExtension_Sitemaps() {
	site := exampleSite("Sitemap: https://example.com/sitemap.xml\nSitemap: https://example.com/news.xml\n")
	defer site.Close()

	ext := robotsext.Apply(colly.NewCollector())
	maps, err := ext.Sitemaps(site.URL + "/any/page")
	fmt.Println(maps, err)
	// Output:
	// [https://example.com/sitemap.xml https://example.com/news.xml] <nil>
}

// Stats counts fetches, cache hits and decisions; it may be read while
// the collector crawls.
func ExampleExtension_Stats() {
	site := exampleSite("User-agent: *\nDisallow: /tmp/\nCrawl-delay: 0.05\n")
	defer site.Close()

	c := colly.NewCollector()
	ext := robotsext.Apply(c)
	for _, p := range []string{"/", "/a", "/tmp/x", "/tmp/y"} {
		c.Visit(site.URL + p)
	}
	s := ext.Stats()
	fmt.Println("robots.txt fetches:", s.Fetches[robotsext.OutcomeOK])
	fmt.Println("cache hits:", s.CacheHits)
	fmt.Println("allowed:", s.Allowed[robotsext.ReasonNoMatch], "blocked:", s.Blocked[robotsext.ReasonDisallowRule])
	// Output:
	// robots.txt fetches: 1
	// cache hits: 3
	// allowed: 2 blocked: 2
}

// FetchRobots fetches and classifies one origin's robots.txt exactly as
// the Extension does, without a collector (the robotscheck command uses
// it).
func ExampleFetchRobots() {
	site := exampleSite("User-agent: *\nDisallow: /cart\n")
	defer site.Close()

	r, err := robotsext.FetchRobots(context.Background(), site.URL+"/some/page",
		robotsext.WithUserAgent("FooBot"), robotsext.WithTimeout(5*time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Status, r.Outcome)
	fmt.Println(r.Verdict("FooBot", site.URL+"/cart/checkout", robotsext.FailClosed).Allowed)
	// Output:
	// 200 ok
	// false
}

// Robots.Verdict applies RFC 9309's outcome table: here a robots.txt that
// answered 503 under both fail modes.
func ExampleRobots_Verdict() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer site.Close()

	r, _ := robotsext.FetchRobots(context.Background(), site.URL)
	for _, mode := range []robotsext.FailMode{robotsext.FailClosed, robotsext.FailOpen} {
		v := r.Verdict("FooBot", "/page", mode)
		fmt.Printf("%d %s %s: allowed=%v\n", r.Status, r.Outcome, mode, v.Allowed)
	}
	// Output:
	// 503 unreachable fail-closed: allowed=false
	// 503 unreachable fail-open: allowed=true
}

// WithOverride exempts sites you own from their Allow/Disallow rules (their
// Crawl-delay and Sitemaps still apply); WithShadowMode reports would-be
// blocks without aborting, to audit a crawl before enforcing.
func ExampleWithOverride() {
	site := exampleSite("User-agent: *\nDisallow: /\nCrawl-delay: 0.05\n")
	defer site.Close()
	u, _ := url.Parse(site.URL)

	c := colly.NewCollector()
	ext := robotsext.Apply(c,
		robotsext.WithOverride(u.Host, "*.staging.example.com"),
	)
	c.OnResponse(func(r *colly.Response) { fmt.Println("fetched", r.Request.URL.Path) })
	c.Visit(site.URL + "/admin")
	fmt.Println("overrides:", ext.Stats().Overrides)
	// Output:
	// fetched /admin
	// overrides: 1
}

func ExampleWithShadowMode() {
	site := exampleSite("User-agent: *\nDisallow: /old/\nCrawl-delay: 0.05\n")
	defer site.Close()

	c := colly.NewCollector()
	ext := robotsext.Apply(c, robotsext.WithShadowMode())
	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		fmt.Println("would block", r.URL.Path)
	})
	c.OnResponse(func(r *colly.Response) { fmt.Println("fetched", r.Request.URL.Path) })
	c.Visit(site.URL + "/old/page")
	fmt.Println("shadowed:", ext.Stats().Shadowed)
	// Output:
	// would block /old/page
	// fetched /old/page
	// shadowed: 1
}

// WithHTTPClient gives robots.txt a client of its own; without it,
// robots.txt goes out through the collector's transport, its proxy
// included. Compiled, not run: the proxy is an example address.
func ExampleWithHTTPClient() {
	proxy, _ := url.Parse("http://proxy.internal:3128")
	robotsTransport := &http.Transport{Proxy: http.ProxyURL(proxy)}

	c := colly.NewCollector()
	robotsext.Apply(c,
		robotsext.WithHTTPClient(&http.Client{Transport: robotsTransport}), // robots.txt only
		robotsext.WithTimeout(15*time.Second),
	)
}

// WithRedirectHandler composes your redirect policy with the robots.txt
// check on redirect hops: the check runs first, your handler only for hops
// it lets through.
func ExampleWithRedirectHandler() {
	sameHostOnly := func(req *http.Request, via []*http.Request) error {
		if req.URL.Host != via[0].URL.Host {
			return http.ErrUseLastResponse
		}
		return nil
	}
	c := colly.NewCollector()
	robotsext.Apply(c, robotsext.WithRedirectHandler(sameHostOnly))
}

// A redirect handler set after Apply must wrap the Extension's, or redirect
// hops are no longer checked.
func ExampleExtension_WrapRedirectHandler() {
	c := colly.NewCollector()
	ext := robotsext.Apply(c)
	c.SetRedirectHandler(ext.WrapRedirectHandler(func(req *http.Request, via []*http.Request) error {
		if len(via) >= 3 {
			return http.ErrUseLastResponse
		}
		return nil
	}))
}

// WithLogger reports fetch outcomes and blocks; the level chooses how much.
func ExampleWithLogger() {
	site := exampleSite("User-agent: *\nDisallow: /x\n")
	defer site.Close()

	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		Level: slog.LevelDebug,
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "url" || a.Key == "expires" || a.Key == "host" || a.Key == "first_host" {
				return slog.Attr{} // keep the example's output stable
			}
			return a
		},
	}))
	c := colly.NewCollector(colly.UserAgent("FooBot/1.0 (+https://example.com/bot)"))
	robotsext.Apply(c, robotsext.WithLogger(logger), robotsext.WithFailMode(robotsext.FailClosed))
	c.Visit(site.URL + "/x")
	// Output:
	// level=INFO msg="robotsext: fetched robots.txt" outcome=ok status=200 token=FooBot group_lines=[1] group_specific=false
	// level=INFO msg="robotsext: hosts whose robots.txt states no Crawl-delay are paced at the default pace, one request every 1s per host (DefaultDelay; WithDefaultDelay changes it)" default_delay=1s
	// level=DEBUG msg="robotsext: robots.txt states no Crawl-delay: the host is paced at the default pace" delay=1s
	// level=DEBUG msg="robotsext: blocked" method=GET reason="disallowed by rule" line=2 rule=/x shadow=false
}
