package robotsext_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/backend"
)

// Attach a Clone: list pages on c, detail pages on the clone, one
// robots.txt fetch and one pace per host for both, one Stats.
func ExampleExtension_Attach() {
	var robotsFetches atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			robotsFetches.Add(1)
			fmt.Fprint(w, "User-agent: *\nDisallow: /drafts/\nCrawl-delay: 0.05\n")
		case "/list":
			fmt.Fprint(w, `<a href="/item/1">1</a> <a href="/drafts/2">2</a>`)
		default:
			fmt.Fprint(w, "<p>item</p>")
		}
	}))
	defer site.Close()

	c := colly.NewCollector()
	detail := c.Clone()
	ext := robotsext.Apply(c)
	ext.Attach(detail)
	ext.OnBlocked(func(r *colly.Request, v robotsext.Verdict) {
		fmt.Println("blocked", r.URL.Path, "line", v.Line)
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { detail.Visit(e.Request.AbsoluteURL(e.Attr("href"))) })
	detail.OnResponse(func(r *colly.Response) { fmt.Println("detail", r.Request.URL.Path) })

	c.Visit(site.URL + "/list")
	s := ext.Stats()
	fmt.Println("robots.txt fetches:", robotsFetches.Load(), "allowed:", s.Allowed[robotsext.ReasonNoMatch])
	// Output:
	// detail /item/1
	// blocked /drafts/2 line 2
	// robots.txt fetches: 1 allowed: 2
}

// Two Extensions sharing a backend.Memory fetch robots.txt once between
// them. Worker processes share a Redis backend (the redisbackend module)
// the same way.
func ExampleWithBackend() {
	var robotsFetches atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			robotsFetches.Add(1)
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
		}
	}))
	defer site.Close()

	shared := backend.NewMemory()
	a := robotsext.Apply(colly.NewCollector(), robotsext.WithBackend(shared))
	b := robotsext.Apply(colly.NewCollector(), robotsext.WithBackend(shared))
	va, _ := a.Check(site.URL + "/private/x")
	vb, _ := b.Check(site.URL + "/public")
	fmt.Println(va.Allowed, vb.Allowed, "fetches:", robotsFetches.Load())
	// Output: false true fetches: 1
}

// WithCacheMemory and WithCacheSize bound the cache; Stats reports what
// it holds.
func ExampleWithCacheMemory() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
	}))
	defer site.Close()

	ext := robotsext.Apply(nil, robotsext.WithCacheMemory(64<<20), robotsext.WithCacheSize(10_000))
	ext.Check(site.URL + "/")
	s := ext.Stats()
	fmt.Println(s.Origins, s.CacheBytes > 0, s.CacheBytes < 64<<20)
	// Output: 1 true true
}

// WithFetchConcurrency bounds the robots.txt fetches in flight, however
// many hosts the crawl fans out to.
func ExampleWithFetchConcurrency() {
	var inFlight, peak, fetches atomic.Int32
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/robots.txt" {
			return
		}
		fetches.Add(1)
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(10 * time.Millisecond)
		fmt.Fprint(w, "User-agent: *\nAllow: /\nCrawl-delay: 0.05\n")
	}))
	defer site.Close()
	// Every host name reaches the one test server.
	dial := func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, site.Listener.Addr().String())
	}
	transport := &http.Transport{DialContext: dial}

	c := colly.NewCollector(colly.Async(true))
	c.WithTransport(transport)
	c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 16})
	robotsext.Apply(c, robotsext.WithFetchConcurrency(2), robotsext.WithHTTPClient(&http.Client{Transport: transport}))
	for i := range 20 {
		c.Visit(fmt.Sprintf("http://host%d.test/", i))
	}
	c.Wait()
	fmt.Println("fetches:", fetches.Load(), "at most 2 at once:", peak.Load() <= 2)
	// Output: fetches: 20 at most 2 at once: true
}

// A redirect hop to a host whose Crawl-delay does not fit the request's
// timeout is re-issued as a request of its own; OnError sees the original
// request once with a *DeferredRedirectError, which wraps
// ErrRedirectDeferred. A handler that retries every error needs no test
// for it: the retry of the original request is dropped (counted in
// Stats.RetriesDropped) and the hop is fetched once.
func ExampleDeferredRedirectError() {
	c := colly.NewCollector()
	robotsext.Apply(c)
	c.OnError(func(r *colly.Response, err error) {
		var d *robotsext.DeferredRedirectError
		if errors.As(err, &d) {
			fmt.Println("follows as its own request:", d.URL)
			return
		}
		fmt.Println("failed:", r.Request.URL, err)
	})

	var err error = &robotsext.DeferredRedirectError{URL: "https://example.com/dir/", Method: http.MethodGet, Wait: 11 * time.Second}
	fmt.Println(errors.Is(err, robotsext.ErrRedirectDeferred))
	fmt.Println(err)
	// Output:
	// true
	// robotsext: redirect to https://example.com/dir/ re-issued as its own request (it must wait 11s for the host's Crawl-delay)
}

// Verdict.Err says why a site is blocked when its robots.txt is
// unreachable.
func ExampleVerdict_err() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer site.Close()

	ext := robotsext.Apply(nil, robotsext.WithLogger(slog.New(slog.DiscardHandler)))
	v, _ := ext.Check(site.URL + "/page")
	var se *robotsext.StatusError
	fmt.Println(v.Allowed, v.Reason, errors.As(v.Err, &se) && se.StatusCode == 503, errors.Is(v.Err, robotsext.ErrUnreachable))
	// Output: false robots.txt unreachable true true
}
