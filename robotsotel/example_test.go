package robotsotel_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/robotsotel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// ExampleRegister registers an Extension's instruments, crawls a site
// whose robots.txt disallows /private/ and paces requests by 10 ms, and
// reads what a collection reports. A real program gives the
// MeterProvider a periodic reader with an exporter instead of the manual
// reader used here.
func ExampleRegister() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\nCrawl-delay: 0.01\n")
			return
		}
		fmt.Fprint(w, "<html><body>a page</body></html>")
	}))
	defer site.Close()

	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	defer func() { _ = mp.Shutdown(context.Background()) }()

	c := colly.NewCollector(colly.UserAgent("ExampleBot/1.0"))
	ext := robotsext.Apply(c, robotsext.WithUserAgent("ExampleBot"))
	reg, err := robotsotel.Register(ext, mp)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() { _ = reg.Unregister() }()

	for _, path := range []string{"/", "/about", "/private/report"} {
		_ = c.Visit(site.URL + path) // the disallowed one returns an error
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range rm.ScopeMetrics[0].Metrics {
		switch data := m.Data.(type) {
		case metricdata.Sum[int64]:
			if m.Name != "robotsext.checks" && m.Name != "robotsext.blocked" {
				continue
			}
			for _, p := range data.DataPoints {
				if p.Value > 0 {
					fmt.Printf("%s{%s} %d %s\n", m.Name, p.Attributes.Encoded(attribute.DefaultEncoder()), p.Value, m.Unit)
				}
			}
		case metricdata.Histogram[float64]:
			if m.Name == "robotsext.pace.wait" {
				fmt.Printf("%s: %d waits, in %s\n", m.Name, data.DataPoints[0].Count, m.Unit)
			}
		}
	}
	// Output:
	// robotsext.checks{} 3 {request}
	// robotsext.blocked{robotsext.reason=disallow_rule} 1 {request}
	// robotsext.pace.wait: 2 waits, in s
}
