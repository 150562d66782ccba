package robotsext_test

import (
	"log"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

// The README's first snippet. It is compiled, not run: it crawls a real site.
func ExampleApply_quickstart() {
	c := colly.NewCollector(colly.UserAgent("FooBot/1.0 (+https://example.com/bot)"))
	ext := robotsext.Apply(c) // robots.txt is now fetched, cached and obeyed

	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		log.Printf("skipped %s: %s (line %d: %q)", r.URL, v.Reason, v.Line, v.Rule)
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	c.Visit("https://example.com/")
	c.Wait()
}
