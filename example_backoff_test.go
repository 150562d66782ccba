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

// The back-off is on by default: a page answered 429 pauses its host for
// the Retry-After, and the retry idiom most Colly users write waits in
// the OnRequest hook instead of hammering the host. Here the host answers
// its first page 429 (Retry-After: 1), then 200.
func ExampleWithBackoffBase() {
	var pages atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nAllow: /\nCrawl-delay: 0.05\n")
			return
		}
		if pages.Add(1) == 1 {
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	defer site.Close()

	c := colly.NewCollector(colly.UserAgent("FooBot/1.0"))
	ext := robotsext.Apply(c, robotsext.WithBackoffBase(10*time.Second), // without a Retry-After
		robotsext.WithLogger(slog.New(slog.DiscardHandler)))
	c.OnError(func(r *colly.Response, err error) {
		if r.StatusCode == http.StatusTooManyRequests || r.StatusCode == http.StatusServiceUnavailable {
			r.Request.Retry() // waits in the hook until the host may be asked again
		}
	})
	c.OnResponse(func(r *colly.Response) { fmt.Println("fetched", r.Request.URL.Path, r.StatusCode) })
	c.Visit(site.URL + "/news")
	s := ext.Stats()
	fmt.Printf("requests %d; pauses %v; probes %d\n", pages.Load(), s.Pauses, s.Probes)
	// Output:
	// fetched /news 200
	// requests 2; pauses map[429:1]; probes 1
}

// WithBackoffWait bounds how long a request waits for its paused host: a
// host asking for two minutes refuses the rest of the crawl's requests at
// once, each reported to OnBlocked with the time to try again.
func ExampleWithBackoffWait() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nAllow: /\nCrawl-delay: 0.05\n")
			return
		}
		w.Header().Set("Retry-After", "120")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer site.Close()

	c := colly.NewCollector(colly.UserAgent("FooBot/1.0"))
	ext := robotsext.Apply(c, robotsext.WithBackoffWait(time.Minute), robotsext.WithMaxBackoff(time.Hour),
		robotsext.WithLogger(slog.New(slog.DiscardHandler)))
	start := time.Now()
	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		fmt.Printf("refused %s: %s; retry in about %v\n", r.URL.Path, v.Reason, v.RetryAt.Sub(start).Round(time.Minute))
	})
	c.Visit(site.URL + "/a")
	c.Visit(site.URL + "/b")
	info, _ := ext.Origin(site.URL)
	fmt.Println("host", info.Pause, "by", info.PauseCause)
	// Output:
	// refused /b: host paused (it asked for less): request refused; retry in about 2m0s
	// host paused by 503
}

// WithoutBackoff turns the back-off off, for hosts you run yourself.
func ExampleWithoutBackoff() {
	c := colly.NewCollector(colly.UserAgent("FooBot/1.0"))
	ext := robotsext.Apply(c, robotsext.WithoutBackoff())
	fmt.Println(ext.Stats().PausedHosts)
	// Output: 0
}

// WithMaxBackoff caps a pause, Retry-After included; PauseCauses lists
// the causes Stats.Pauses counts by.
func ExampleWithMaxBackoff() {
	c := colly.NewCollector(colly.UserAgent("FooBot/1.0"))
	robotsext.Apply(c, robotsext.WithMaxBackoff(2*time.Minute))
	for _, cause := range robotsext.PauseCauses() {
		fmt.Print(cause, " ")
	}
	fmt.Println()
	// Output: 429 503 5xx_run probe_failed ratelimit
}

// WithAdaptivePace makes the delay between requests to a host follow its
// response time, as Scrapy's AutoThrottle does; Origin reports it.
func ExampleWithAdaptivePace() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 0.05\n")
			return
		}
		fmt.Fprint(w, "ok")
	}))
	defer site.Close()

	c := colly.NewCollector(colly.UserAgent("FooBot/1.0"))
	ext := robotsext.Apply(c, robotsext.WithAdaptivePace(2), robotsext.WithLogger(slog.New(slog.DiscardHandler)))
	c.Visit(site.URL + "/a")
	c.Visit(site.URL + "/b")
	info, _ := ext.Origin(site.URL)
	// A loopback server answers in well under the Crawl-delay, which is the floor.
	fmt.Println(info.AdaptiveDelay >= 50*time.Millisecond)
	// Output: true
}
