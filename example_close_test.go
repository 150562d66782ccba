package robotsext_test

import (
	"errors"
	"fmt"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

// A service that runs a crawl per job builds an Extension per job and
// closes it when the job is done, so that nothing of it outlives the job:
// its robots.txt client's connections go at once. A request that still
// reaches it is refused with ErrClosed.
func ExampleExtension_Close() {
	site := exampleSite("User-agent: *\nCrawl-delay: 0.05\n")
	defer site.Close()

	job := func(url string) {
		c := colly.NewCollector(colly.UserAgent("FooBot/1.0"))
		ext := robotsext.Apply(c)
		defer ext.Close()
		c.OnResponse(func(r *colly.Response) { fmt.Println("fetched", r.Request.URL.Path) })
		c.Visit(url)
	}
	job(site.URL + "/one")
	job(site.URL + "/two")

	c := colly.NewCollector(colly.UserAgent("FooBot/1.0"))
	ext := robotsext.Apply(c)
	ext.Close()
	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		fmt.Println("refused", r.URL.Path, errors.Is(v.Err, robotsext.ErrClosed))
	})
	c.Visit(site.URL + "/three")
	// Output:
	// fetched /one
	// fetched /two
	// refused /three true
}
