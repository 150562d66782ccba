package robotsprom_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/gocolly/colly/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/robotsprom"
)

// ExampleNewCollector registers an Extension's metrics, crawls a site
// whose robots.txt disallows /private/, and reads three of the metrics a
// scrape would report. A real program serves the registry instead:
// http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{})).
func ExampleNewCollector() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
			return
		}
		fmt.Fprint(w, "<html><body>a page</body></html>")
	}))
	defer site.Close()

	c := colly.NewCollector(colly.UserAgent("ExampleBot/1.0"))
	ext := robotsext.Apply(c, robotsext.WithUserAgent("ExampleBot"))
	reg := prometheus.NewRegistry()
	reg.MustRegister(robotsprom.NewCollector(ext))

	for _, path := range []string{"/", "/about", "/private/report"} {
		_ = c.Visit(site.URL + path) // the disallowed one returns an error
	}

	families, err := reg.Gather()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range families {
		switch f.GetName() {
		case "robotsext_robotstxt_fetches_total", "robotsext_blocked_total", "robotsext_checks_total":
			for _, m := range f.GetMetric() {
				if v := m.GetCounter().GetValue(); v > 0 {
					fmt.Print(f.GetName())
					for _, l := range m.GetLabel() { // one at most here
						fmt.Printf("{%s=%q}", l.GetName(), l.GetValue())
					}
					fmt.Println("", v)
				}
			}
		}
	}
	// Output:
	// robotsext_blocked_total{reason="disallow_rule"} 1
	// robotsext_checks_total 3
	// robotsext_robotstxt_fetches_total{outcome="ok"} 1
}
