package robotsext_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

// WithDefaultDelay paces a host whose robots.txt states no delay: one
// request at a time, starts at least the delay apart (DefaultDelay, 1 s,
// without the option). A site that states a Crawl-delay is paced by it
// instead, lower or higher, and "Crawl-delay: 0" is not paced at all.
func ExampleWithDefaultDelay() {
	var mu sync.Mutex
	var starts []time.Time
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n") // no Crawl-delay
			return
		}
		mu.Lock()
		starts = append(starts, time.Now())
		mu.Unlock()
	}))
	defer site.Close()

	c := colly.NewCollector(colly.UserAgent("FooBot/1.0 (+https://example.com/bot)"))
	// A tenth of the default keeps the example fast.
	ext := robotsext.Apply(c, robotsext.WithDefaultDelay(100*time.Millisecond))
	for _, p := range []string{"/a", "/b", "/c"} {
		c.Visit(site.URL + p)
	}

	info, _ := ext.Origin(site.URL)
	fmt.Println("pace:", info.CrawlDelay, "by default:", info.DefaultPace)
	apart := len(starts) == 3
	for i := 1; i < len(starts); i++ {
		apart = apart && starts[i].Sub(starts[i-1]) >= 90*time.Millisecond // loopback timing slack
	}
	fmt.Println("pages 100 ms apart:", apart)
	// Output:
	// pace: 100ms by default: true
	// pages 100 ms apart: true
}
