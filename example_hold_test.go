package robotsext_test

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

// WithDeferUnreachable keeps the URLs of a site whose robots.txt is
// briefly unreachable: here it answers 503 (Retry-After: 1) once, and the
// request waits for the next attempt instead of being lost.
func ExampleWithDeferUnreachable() {
	var tries atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			if tries.Add(1) == 1 {
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\nCrawl-delay: 0.05\n")
			return
		}
		fmt.Fprint(w, "<html><body>hello</body></html>")
	}))
	defer site.Close()

	c := colly.NewCollector(colly.UserAgent("FooBot/1.0"))
	ext := robotsext.Apply(c, robotsext.WithDeferUnreachable(30*time.Second),
		robotsext.WithLogger(slog.New(slog.DiscardHandler)))
	c.OnResponse(func(r *colly.Response) { fmt.Println("fetched", r.Request.URL.Path) })
	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		fmt.Printf("blocked %s: %s\n", r.URL.Path, v.Reason)
	})

	c.Visit(site.URL + "/news")
	c.Visit(site.URL + "/private/x")
	s := ext.Stats()
	fmt.Printf("robots.txt attempts %d; held %d, released %d\n", tries.Load(), s.Held, s.Released)
	// Output:
	// fetched /news
	// blocked /private/x: disallowed by rule
	// robots.txt attempts 2; held 1, released 1
}

// Verdict.RetryAt tells a crawler with a queue of its own when to try a
// URL again that was refused because robots.txt was unreachable, instead
// of losing it. Here robots.txt answers 503 with Retry-After: 120.
func ExampleVerdict_retryAt() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "120")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer site.Close()

	c := colly.NewCollector(colly.UserAgent("FooBot/1.0"))
	ext := robotsext.Apply(c, robotsext.WithLogger(slog.New(slog.DiscardHandler)))
	type retry struct {
		url string
		at  time.Time
	}
	var requeue []retry // a real crawler re-enqueues in its frontier
	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		if !v.RetryAt.IsZero() {
			requeue = append(requeue, retry{r.URL.Path, v.RetryAt})
		}
	})

	c.Visit(site.URL + "/a")
	c.Visit(site.URL + "/b")
	for _, q := range requeue {
		fmt.Printf("retry %s in about %v\n", q.url, time.Until(q.at).Round(time.Minute))
	}
	// Output:
	// retry /a in about 2m0s
	// retry /b in about 2m0s
}
