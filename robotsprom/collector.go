// Package robotsprom exports what a robotsext.Extension counts to
// Prometheus.
//
// NewCollector returns a prometheus.Collector that reads
// Extension.Stats at each scrape and reports it as constant metrics:
// nothing runs between scrapes, and the Extension's request hook does no
// more work when a collector is registered than when none is.
//
// It is a module of its own, as go-redis keeps its metrics adapters in
// modules of their own, so that the robotsext module itself depends on
// no metrics library; robotsotel is the OpenTelemetry counterpart, with
// the same measures under OpenTelemetry's names.
//
// The metrics follow Prometheus's naming: the application prefix
// robotsext_, _total on counters, base units (_seconds, _bytes), and no
// per-host labels, so that their number stays fixed however many sites
// are crawled (Extension.Origin tells about one host). What is counted
// follows Scrapy's robots.txt statistics: the robots.txt fetches by
// outcome (its request and response counts), the requests robots.txt
// forbade, and the fetches that failed. The metrics are the rows of the
// core's one table, package github.com/robotsext/robotsext/metrics (its
// Prom names), which docs/observability.md lists: robotsext_checks_total,
// robotsext_allowed_total{reason}, robotsext_blocked_total{reason},
// robotsext_robotstxt_fetches_total{outcome},
// robotsext_pace_wait_seconds, robotsext_cache_origins and so on, 60 in
// this version. A counter added to the table is exported here at once.
//
// The reason label is short and stable: no_match, allow_rule,
// disallow_rule, empty_rule, robots_txt, unavailable, unreachable,
// unauthorized, override, not_applicable, local_error, usage, backoff, nofollow,
// rel_nofollow, identity, closed (one per
// robotsext.Reason, not Reason.String's prose). Each label value a
// counter can take is reported from the start, at 0, so that rate() and
// increase() see its first increment.
package robotsprom

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/metrics"
)

// namespace is the application prefix of every metric name.
const namespace = "robotsext"

// collector is the prometheus.Collector NewCollector returns. Its fields
// are set once by NewCollector and only read afterwards, so concurrent
// scrapes need no lock.
type collector struct {
	ext     *robotsext.Extension
	metrics []metric // one per row of metrics.All
}

// metric is one row of the table and its descriptor.
type metric struct {
	metrics.Metric
	desc *prometheus.Desc
	kind prometheus.ValueType
}

// NewCollector returns a prometheus.Collector of ext's counters, gauges and
// histograms (one per row of metrics.All). Register it
// once per Extension:
//
//	reg.MustRegister(robotsprom.NewCollector(ext))
//
// Each scrape takes one Extension.Stats snapshot and turns it into
// constant metrics, so the collector starts no goroutine, holds no state
// of its own and costs nothing between scrapes. To export the Extensions
// of several crawls from one registry, tell them apart with a constant
// label, prometheus.WrapRegistererWith(prometheus.Labels{"crawl": name},
// reg), since their metric names are the same. NewCollector panics if ext
// is nil, when the mistake is made rather than at the first scrape.
func NewCollector(ext *robotsext.Extension) prometheus.Collector {
	if ext == nil {
		panic("robotsprom: NewCollector(nil): an Extension is needed")
	}
	c := &collector{ext: ext}
	for _, m := range metrics.All() {
		var labels []string
		if m.Label != nil {
			labels = []string{m.Label.Prom}
		}
		kind := prometheus.CounterValue
		if m.Kind == metrics.UpDown || m.Kind == metrics.Gauge {
			kind = prometheus.GaugeValue
		}
		c.metrics = append(c.metrics, metric{m, prometheus.NewDesc(namespace+"_"+m.Prom, m.Help, labels, nil), kind})
	}
	return c
}

// Describe sends the descriptors of every metric Collect sends.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range c.metrics {
		ch <- m.desc
	}
}

// Collect sends the metrics of one Extension.Stats snapshot.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	s := c.ext.Stats()
	for _, m := range c.metrics {
		switch {
		case m.Histogram != nil:
			ch <- constHistogram(m.desc, m.Histogram(&s))
		case m.Label != nil:
			m.Label.Points(&s, func(value string, n uint64) {
				ch <- constMetric(m.desc, m.kind, float64(n), value)
			})
		default:
			ch <- constMetric(m.desc, m.kind, float64(m.Value(&s)))
		}
	}
}

// constMetric returns a constant metric, or an invalid one saying what
// went wrong, which the registry reports for this scrape instead of the
// process panicking.
func constMetric(desc *prometheus.Desc, kind prometheus.ValueType, v float64, labels ...string) prometheus.Metric {
	m, err := prometheus.NewConstMetric(desc, kind, v, labels...)
	if err != nil {
		return prometheus.NewInvalidMetric(desc, err)
	}
	return m
}

// constHistogram returns h as a constant Prometheus histogram: bounds in
// seconds and cumulative bucket counts, where h's are durations and
// counts per bucket; the bucket past the last bound is the +Inf bucket,
// whose count is h.Count.
func constHistogram(desc *prometheus.Desc, h robotsext.Histogram) prometheus.Metric {
	buckets := make(map[float64]uint64, len(h.Bounds))
	var cumulative uint64
	for i, bound := range h.Bounds {
		if i < len(h.Counts) {
			cumulative += h.Counts[i]
		}
		buckets[bound.Seconds()] = cumulative
	}
	m, err := prometheus.NewConstHistogram(desc, h.Count, h.Sum.Seconds(), buckets)
	if err != nil {
		return prometheus.NewInvalidMetric(desc, err)
	}
	return m
}
