// Command metrics crawls two small demo sites with a Colly collector that
// obeys robots.txt through robotsext, exports the Extension's counters
// to Prometheus with robotsprom, serves them on /metrics, scrapes that
// page once and prints its robotsext_ lines.
//
// Offline and self-contained: the demo sites and the /metrics server
// listen on loopback. One site (the shop) has a robots.txt with
// Disallow and Allow rules and a Crawl-delay; the other (the blog) has
// none, which RFC 9309 reads as "everything allowed" and robotsext paces
// by its default pace (one request per second). The lines printed
// are sorted and keep only what does not depend on timing: the
// histograms' buckets and sums are left out, their counts kept.
//
//	cd _examples/metrics && go run .
//
// In a crawler of your own, register the collector on the registry your
// /metrics handler serves:
//
//	reg.MustRegister(robotsprom.NewCollector(ext))
//	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
package main

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"

	"github.com/gocolly/colly/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/robotsprom"
)

// shopRobots is the shop's robots.txt: two of its pages are disallowed,
// one page under a disallowed directory is allowed again, and requests
// are paced 50 ms apart.
const shopRobots = `User-agent: *
Disallow: /cart
Disallow: /account/
Allow: /account/help
Crawl-delay: 0.05
`

// shopHome is the shop's home page; %s is the blog's address.
const shopHome = `<html><body><h1>Shop</h1>
<a href="/products/1">a product</a> <a href="/products/2">another</a>
<a href="/cart">cart</a> <a href="/account/orders">orders</a> <a href="/account/help">help</a>
<a href="%s/">our blog</a>
</body></html>`

// blogHome is the blog's home page.
const blogHome = `<html><body><h1>Blog</h1>
<a href="/posts/1">first post</a> <a href="/posts/2">second post</a>
</body></html>`

func main() {
	log.SetFlags(0)
	if err := run(os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run crawls the demo sites, scrapes /metrics once and writes the
// robotsext_ lines to w.
func run(w io.Writer) error {
	blog := httptest.NewServer(site("", blogHome))
	defer blog.Close()
	shop := httptest.NewServer(site(shopRobots, fmt.Sprintf(shopHome, blog.URL)))
	defer shop.Close()

	c := colly.NewCollector(colly.UserAgent("MetricsDemoBot/1.0 (+https://example.com/bot)"), colly.MaxDepth(3))
	ext := robotsext.Apply(c, robotsext.WithUserAgent("MetricsDemoBot"))
	reg := prometheus.NewRegistry()
	reg.MustRegister(robotsprom.NewCollector(ext))
	metrics := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer metrics.Close()

	c.OnHTML("a[href]", func(e *colly.HTMLElement) {
		_ = e.Request.Visit(e.Attr("href")) // a disallowed URL returns an error
	})
	if err := c.Visit(shop.URL + "/"); err != nil {
		return err
	}
	c.Wait()

	lines, err := scrape(metrics.URL + "/metrics")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "GET /metrics after crawling the shop and the blog (%d robotsext_ lines; timings left out):\n", len(lines))
	for _, line := range lines {
		fmt.Fprintln(w, line)
	}
	return nil
}

// site returns the handler of a demo site: robots.txt answers robots, or
// 404 when it is empty; / answers home; every other path a page without
// links.
func site(robots, home string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, _ *http.Request) {
		if robots == "" {
			http.NotFound(w, nil)
			return
		}
		fmt.Fprint(w, robots)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/" {
			fmt.Fprint(w, home)
			return
		}
		fmt.Fprintf(w, "<html><body><h1>%s</h1></body></html>", r.URL.Path)
	})
	return mux
}

// scrape fetches url, a Prometheus text exposition, and returns its
// robotsext_ sample lines, sorted, without those that vary with timing:
// the histograms' buckets and sums (their counts are kept).
func scrape(url string) ([]string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	var lines []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		name, _, _ := strings.Cut(line, " ")
		name, _, _ = strings.Cut(name, "{")
		if !strings.HasPrefix(name, "robotsext_") || strings.HasSuffix(name, "_bucket") || strings.HasSuffix(name, "_seconds_sum") {
			continue
		}
		lines = append(lines, line)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	slices.Sort(lines)
	return lines, nil
}
