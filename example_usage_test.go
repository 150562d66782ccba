package robotsext_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

// A crawler collecting training data declares its purpose: pages the site
// keeps out of AI training are refused before fetching, and OnBlocked says
// which line decided.
func ExampleWithPurpose() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nAllow: /\nContent-Usage: /members/ train-ai=n\nCrawl-delay: 0.05\n")
			return
		}
		fmt.Fprint(w, "<html><body>hello</body></html>")
	}))
	defer srv.Close()

	c := colly.NewCollector(colly.UserAgent("TrainBot/1.0"))
	ext := robotsext.Apply(c, robotsext.WithPurpose(robotsext.PurposeTrainAI))
	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		fmt.Printf("refused %s: %s, line %d (%s)\n", r.URL.Path, v.Reason, v.Line, v.Rule)
	})
	c.OnResponse(func(r *colly.Response) { fmt.Println("fetched", r.Request.URL.Path) })
	_ = c.Visit(srv.URL + "/members/page")
	_ = c.Visit(srv.URL + "/blog/post")
	// Output:
	// refused /members/page: usage preferences refuse every declared purpose, line 3 (/members/ train-ai=n)
	// fetched /blog/post
}

// Policy.Usage reads the preferences robots.txt states for a URL: the
// attach draft's own example.
func ExamplePolicy_Usage() {
	p := robotsext.ParsePolicy([]byte(`User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: / train-ai=n
Content-Usage: /ai-ok/ train-ai=y
`))
	for _, path := range []string{"/test", "/never/test", "/ai-ok/test"} {
		u := p.Usage("ExampleBot", path)
		fmt.Printf("%-12s crawl=%v train-ai=%v  (%v)\n", path, p.Check("ExampleBot", path).Allowed, u.For(robotsext.PurposeTrainAI), u)
	}
	// Output:
	// /test        crawl=true train-ai=n  (train-ai=n (Content-Usage line 4))
	// /never/test  crawl=false train-ai=no statement  (no statement)
	// /ai-ok/test  crawl=true train-ai=y  (train-ai=y (Content-Usage line 5))
}

// Usage.Lookup says where a preference came from, so that a crawler with
// several purposes can fetch once and sort the content afterwards.
func ExampleUsage_Lookup() {
	p := robotsext.ParsePolicy([]byte("User-agent: *\nContent-Signal: search=yes, ai-train=no\n"))
	u := p.Usage("AnyBot", "/article")
	for _, key := range []robotsext.Purpose{robotsext.PurposeSearch, robotsext.PurposeTrainAI, robotsext.PurposeAIInput} {
		s := u.Lookup(string(key))
		fmt.Printf("%s: %v from %v line %d\n", key, s.Preference, s.Source, s.Line)
	}
	// Output:
	// search: y from Content-Signal line line 2
	// train-ai: n from Content-Signal line line 2
	// ai-input: no statement from none line 0
}

// A page that reserves itself in a meta tag has to be read before the tag
// is seen: the Extension reports it, refuses its links, and the
// collector's own callbacks still see it. Page(resp).Refused tells them
// to skip it.
func ExampleExtension_Page_refused() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt": // a short delay keeps the example fast
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 0.05\n")
		case "/.well-known/tdmrep.json":
			http.NotFound(w, r)
		case "/essay":
			fmt.Fprint(w, `<html><head><meta name="tdm-reservation" content="1"></head><body><a href="/next">next</a></body></html>`)
		default:
			fmt.Fprint(w, "<html><body>hello</body></html>")
		}
	}))
	defer srv.Close()

	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; TrainBot/1.0; +https://example.com/bot)"))
	ext := robotsext.Apply(c, robotsext.WithPurpose(robotsext.PurposeTrainAI))
	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		fmt.Printf("refused %s: %s\n", r.URL.Path, v.Rule)
	})
	c.OnHTML("html", func(e *colly.HTMLElement) {
		if ext.Page(e.Response).Refused {
			return // reserved against the declared purpose: not kept
		}
		fmt.Println("kept", e.Request.URL.Path)
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { _ = e.Request.Visit(e.Attr("href")) })
	_ = c.Visit(srv.URL + "/")
	_ = c.Visit(srv.URL + "/essay")
	// Output:
	// kept /
	// refused /essay: meta tdm-reservation: 1
	// refused /next: meta tdm-reservation: 1
}
