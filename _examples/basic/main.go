// Command basic crawls a small demo site that robots.txt partly forbids and
// prints, for every URL, whether it was fetched or blocked and which line of
// robots.txt decided. It runs offline: the demo site is served on loopback.
//
// The demo robots.txt keeps every crawler out except DemoBot, which has a
// group of its own. The collector's User-Agent is
// "DemoBot/1.0 (+https://example.com/bot)"; robotsext finds the product
// token DemoBot in it without being told, so DemoBot's group decides and
// most pages are fetched.
//
//	go run ./_examples/basic
//	go run ./_examples/basic -url https://example.com/   # a real site instead
package main

import (
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

// demoRobots is the demo site's robots.txt; %s is the site's address.
const demoRobots = `# Demo site for robotsext
User-agent: DemoBot
Disallow: /private/
Allow: /private/public-page.html
Disallow: /*.pdf$
Disallow: /search
Crawl-delay: 0.2

User-agent: *
Disallow: /

Sitemap: %s/sitemap.xml
`

// demoPages are the pages the demo site's home page links to.
var demoPages = []string{
	"/about",
	"/blog/",
	"/blog/first-post",
	"/private/secrets.html",
	"/private/public-page.html",
	"/docs/manual.pdf",
	"/docs/manual.pdf?download=1",
	"/search?q=robots",
}

func main() {
	target := flag.String("url", "", "crawl this site instead of the demo site (network)")
	maxPages := flag.Int("max", 30, "with -url: stop after this many requests")
	flag.Parse()

	start := *target
	if start == "" {
		site := demoSite()
		defer site.Close()
		start = site.URL + "/"
		fmt.Println("Demo site on", site.URL, "- robots.txt, with the line numbers verdicts cite:")
		fmt.Println(numbered(fmt.Sprintf(demoRobots, site.URL)))
	}
	u, err := url.Parse(start)
	if err != nil || u.Host == "" {
		log.Fatalf("bad -url %q", start)
	}

	c := colly.NewCollector(
		colly.UserAgent("DemoBot/1.0 (+https://example.com/bot)"),
		colly.AllowedDomains(u.Hostname()),
		colly.MaxDepth(2),
	)
	if *target != "" {
		c.MaxRequests = uint32(*maxPages)
	} else {
		fmt.Printf("Crawling as %q.\n", c.UserAgent)
		fmt.Println("No WithUserAgent is given: robotsext takes the product token DemoBot from")
		fmt.Println("that User-Agent, so lines 2-7 decide; any other crawler would be kept out")
		fmt.Println("by line 10.")
		fmt.Println()
	}
	// No WithUserAgent: the token DemoBot is found in the User-Agent.
	ext := robotsext.Apply(c)

	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		fmt.Printf("BLOCKED  %-32s %s\n", r.URL.RequestURI(), why(v))
	})
	c.OnResponse(func(r *colly.Response) {
		fmt.Printf("FETCHED  %-32s %d\n", r.Request.URL.RequestURI(), r.StatusCode)
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		_ = e.Request.Visit(e.Attr("href"))
	})

	if err := c.Visit(start); err != nil {
		log.Printf("visit %s: %v", start, err)
	}
	c.Wait()

	st := ext.Stats()
	fmt.Println()
	fmt.Println("Stats:")
	fmt.Printf("  robots.txt fetches: %s\n", counts(st.Fetches))
	fmt.Printf("  allowed:            %s\n", counts(st.Allowed))
	fmt.Printf("  blocked:            %s\n", counts(st.Blocked))
	fmt.Printf("  cache hits/misses:  %d/%d\n", st.CacheHits, st.CacheMisses)
}

// why explains a verdict in one line: the reason, and the deciding rule.
func why(v robotsext.Verdict) string {
	if v.Line == 0 {
		return v.Reason.String()
	}
	return fmt.Sprintf("%s (line %d: %q)", v.Reason, v.Line, v.Rule)
}

// demoSite serves robots.txt and a few linked HTML pages.
func demoSite() *httptest.Server {
	mux := http.NewServeMux()
	var base string
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, demoRobots, base)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body><h1>%s</h1>\n", r.URL.Path)
		if r.URL.Path == "/" {
			for _, p := range demoPages {
				fmt.Fprintf(w, "<a href=%q>%s</a>\n", p, p)
			}
		}
		fmt.Fprintln(w, "</body></html>")
	})
	srv := httptest.NewServer(mux)
	base = srv.URL
	return srv
}

// counts formats a Stats map as "key: n" pairs, zero counts left out.
func counts[K interface {
	comparable
	fmt.Stringer
}](m map[K]uint64) string {
	var parts []string
	for k, n := range m {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%s: %d", k, n))
		}
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// numbered returns the lines of s indented and numbered from 1, as
// robots.txt lines are numbered in verdicts ("line 3").
func numbered(s string) string {
	var b strings.Builder
	for i, line := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString(strings.TrimRight(fmt.Sprintf("  %3d | %s", i+1, line), " "))
		b.WriteByte('\n')
	}
	return b.String()
}
