package robotsext_test

import (
	"fmt"

	"github.com/robotsext/robotsext"
)

const exampleRobots = `User-agent: *
Disallow: /private/
Disallow: /*.pdf$
Allow: /private/public-page.html
Crawl-delay: 2

User-agent: FooBot
Disallow: /drafts/

Sitemap: https://example.com/sitemap.xml
`

func ExampleParsePolicy() {
	p := robotsext.ParsePolicy([]byte(exampleRobots))
	v := p.Check("OtherBot", "https://example.com/private/secrets")
	fmt.Println(v.Allowed, v.Line, v.Rule)
	// Output: false 2 /private/
}

func ExamplePolicy_Check() {
	p := robotsext.ParsePolicy([]byte(exampleRobots))
	for _, u := range []string{
		"/about",
		"/private/public-page.html",
		"/docs/manual.pdf",
		"/docs/manual.pdf?download=1",
	} {
		v := p.Check("OtherBot", u)
		fmt.Printf("%-28s allowed=%-5v line=%d (%s)\n", u, v.Allowed, v.Line, v.Reason)
	}
	// FooBot has its own group, which replaces the "*" group entirely.
	v := p.Check("FooBot", "/private/secrets")
	fmt.Println("FooBot /private/secrets:", v.Allowed, v.Reason)
	// Output:
	// /about                       allowed=true  line=0 (no rule matched)
	// /private/public-page.html    allowed=true  line=4 (allowed by rule)
	// /docs/manual.pdf             allowed=false line=3 (disallowed by rule)
	// /docs/manual.pdf?download=1  allowed=true  line=0 (no rule matched)
	// FooBot /private/secrets: true no rule matched
}

func ExamplePolicy_Sitemaps() {
	p := robotsext.ParsePolicy([]byte(exampleRobots))
	fmt.Println(p.Sitemaps())
	// Output: [https://example.com/sitemap.xml]
}

func ExamplePolicy_CrawlDelay() {
	p := robotsext.ParsePolicy([]byte(exampleRobots))
	d, ok := p.CrawlDelay("OtherBot")
	fmt.Println(d, ok)
	d, ok = p.CrawlDelay("FooBot")
	fmt.Println(d, ok)
	// Output:
	// 2s true
	// 0s false
}

func ExamplePolicy_Groups() {
	p := robotsext.ParsePolicy([]byte(exampleRobots))
	fmt.Println(p.Groups("FooBot"))
	fmt.Println(p.Groups("OtherBot"))
	// Output:
	// [7] true
	// [1] false
}

func ExampleReason() {
	v := robotsext.ParsePolicy([]byte("User-agent: *\nDisallow: /\n")).Check("FooBot", "/robots.txt")
	fmt.Println(v.Allowed, v.Reason)
	// Output: true /robots.txt is always allowed
}

// Empty tells a robots.txt from a file that only looks like one: an HTML
// error page served at /robots.txt parses as empty and allows everything.
func ExamplePolicy_Empty() {
	for _, body := range []string{
		"User-agent: *\nDisallow: /private\n",
		"<html><body>Not found</body></html>\n",
	} {
		fmt.Println(robotsext.ParsePolicy([]byte(body)).Empty())
	}
	// Output:
	// false
	// true
}
