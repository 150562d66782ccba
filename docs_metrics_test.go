package robotsext_test

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/robotsext/robotsext/metrics"
)

// TestDocsMetricNames holds docs/observability.md to the one table of
// measures (package metrics) that robotsprom and robotsotel export: the
// Prometheus table lists every row's name and no other, and every
// OpenTelemetry name or attribute the page cites is the table's.
func TestDocsMetricNames(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("docs/observability.md")
	if err != nil {
		t.Fatal(err)
	}
	var prom, otel []string
	for _, m := range metrics.All() {
		prom = append(prom, m.Name())
		otel = append(otel, m.OTel)
		if m.Label != nil {
			otel = append(otel, m.Label.OTel)
		}
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("`(robotsext_[a-z_]+)").FindAllSubmatch(doc, -1) {
		documented[string(m[1])] = true
	}
	for _, n := range prom {
		if !documented[n] {
			t.Errorf("docs/observability.md does not list %s", n)
		}
	}
	for n := range documented {
		if !slices.Contains(prom, n) {
			t.Errorf("docs/observability.md lists %s, which the table (package metrics) does not hold", n)
		}
	}
	for _, m := range regexp.MustCompile("`(robotsext\\.[a-z_.]+)`").FindAllSubmatch(doc, -1) {
		if !slices.Contains(otel, string(m[1])) {
			t.Errorf("docs/observability.md cites %s, which the table (package metrics) does not hold", m[1])
		}
	}
}

// TestDocsOTelInstruments holds the OpenTelemetry list of
// docs/observability.md to the table: one row per instrument, in the
// table's order, with its kind, unit and attribute.
func TestDocsOTelInstruments(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("docs/observability.md")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[metrics.Kind]string{metrics.Counter: "counter", metrics.UpDown: "updowncounter", metrics.Gauge: "gauge", metrics.Histogram: "histogram"}
	var want []string
	for _, m := range metrics.All() {
		attr := ""
		if m.Label != nil {
			attr = "`" + m.Label.OTel + "`"
		}
		want = append(want, "| `"+m.OTel+"` | "+kinds[m.Kind]+" `"+m.Unit+"` | "+attr+" |")
	}
	var got []string
	for _, line := range regexp.MustCompile("(?m)^\\| `robotsext\\.[^\n]*$").FindAll(doc, -1) {
		got = append(got, string(line))
	}
	if !slices.Equal(got, want) {
		t.Errorf("docs/observability.md's instruments:\n%s\nwant (from package metrics):\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
