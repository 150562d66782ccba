// Command fail_modes crawls a demo host whose robots.txt answers 503, first
// fail-closed (the default, as RFC 9309 §2.3.1.4 requires: an unreachable
// robots.txt means "disallow everything") and then fail-open.
//
//	go run ./_examples/fail_modes
package main

import (
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

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

	for _, mode := range []robotsext.FailMode{robotsext.FailClosed, robotsext.FailOpen} {
		fmt.Printf("== %s: robots.txt answers 503\n", mode)
		c := colly.NewCollector()
		ext := robotsext.Apply(c, robotsext.WithFailMode(mode))
		ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
			fmt.Printf("BLOCKED  %-12s %s\n", r.URL.Path, v.Reason)
		})
		c.OnResponse(func(r *colly.Response) {
			fmt.Printf("FETCHED  %-12s %d\n", r.Request.URL.Path, r.StatusCode)
		})
		for _, p := range []string{"/", "/news", "/contact"} {
			if err := c.Visit(site.URL + p); err != nil {
				log.Printf("visit: %v", err)
			}
		}
		c.Wait()
		st := ext.Stats()
		fmt.Printf("robots.txt fetches: %d unreachable (retried after a backoff, not per request)\n\n",
			st.Fetches[robotsext.OutcomeUnreachable])
	}
}
