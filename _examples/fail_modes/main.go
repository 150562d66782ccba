// Command fail_modes crawls a demo host whose robots.txt answers 503, first
// fail-closed (the default, as RFC 9309 §2.3.1.4 requires: an unreachable
// robots.txt means "disallow everything") and then fail-open.
//
//	go run ./_examples/fail_modes
package main

import (
	"fmt"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

const userAgent = "DemoBot/1.0 (+https://example.com/bot)"

func main() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Retry-After", "120")
			http.Error(w, "maintenance", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintf(w, "<html><body>%s</body></html>", r.URL.Path)
	}))
	defer site.Close()

	fmt.Printf("Crawling %s as %q.\n", site.URL, userAgent)
	fmt.Println("Its robots.txt answers 503 Service Unavailable with Retry-After: 120.")
	fmt.Println()
	for _, mode := range []robotsext.FailMode{robotsext.FailClosed, robotsext.FailOpen} {
		fmt.Printf("== WithFailMode(%s)\n", mode)
		c := colly.NewCollector(colly.UserAgent(userAgent))
		// The Extension logs the failed fetch at Warn; this report prints
		// the same facts from the Verdict instead. A real crawler keeps the
		// default logger (or passes its own).
		// robots.txt states no delay while it answers 503: the default pace
		// applies (1 s between requests), shortened to keep the demo short.
		ext := robotsext.Apply(c, robotsext.WithFailMode(mode), robotsext.WithDefaultDelay(50*time.Millisecond),
			robotsext.WithLogger(slog.New(slog.DiscardHandler)))
		var cause error
		var retryAt time.Time
		ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
			fmt.Printf("BLOCKED  %-12s %s\n", r.URL.Path, v.Reason)
			cause, retryAt = v.Err, v.RetryAt
		})
		c.OnResponse(func(r *colly.Response) {
			fmt.Printf("FETCHED  %-12s %d\n", r.Request.URL.Path, r.StatusCode)
		})
		start := time.Now()
		for _, p := range []string{"/", "/news", "/contact"} {
			if err := c.Visit(site.URL + p); err != nil {
				log.Printf("visit: %v", err)
			}
		}
		c.Wait()
		st := ext.Stats()
		fmt.Printf("robots.txt requests: %d (answered unreachable; asked again after the backoff or Retry-After, not per page)\n",
			st.Fetches[robotsext.OutcomeUnreachable])
		if cause != nil {
			fmt.Printf("why blocked: %v\n", cause)
			fmt.Printf("next robots.txt attempt: in %v (Verdict.RetryAt, from Retry-After)\n", retryAt.Sub(start).Round(time.Second))
		} else {
			fmt.Println("why fetched: fail-open treats an unreachable robots.txt as \"allow everything\"")
		}
		fmt.Println()
	}
}
