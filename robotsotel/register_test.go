package robotsotel

import (
	"context"
	"errors"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotsext/robotsext"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"
)

// TestCrawl crawls the test site and checks what a collection reports:
// the fetch, the decisions by reason, the cache and both histograms.
func TestCrawl(t *testing.T) {
	site := newSite(t)
	c, ext, fetched := newCrawler()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	if _, err := Register(ext, mp); err != nil {
		t.Fatal(err)
	}
	run(t, c, site)
	slices.Sort(*fetched)
	if want := []string{"/", "/a", "/b"}; !slices.Equal(*fetched, want) {
		t.Fatalf("fetched %q, want %q", *fetched, want)
	}
	got := collect(t, reader)

	counter := func(name string, points ...metricdata.DataPoint[int64]) {
		t.Helper()
		m := metricNamed(t, got, name)
		want := metricdata.Metrics{Name: name, Description: m.Description, Unit: m.Unit,
			Data: metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality, IsMonotonic: true, DataPoints: points}}
		metricdatatest.AssertEqual(t, want, m, metricdatatest.IgnoreTimestamp())
	}
	point := func(v int64, kv ...attribute.KeyValue) metricdata.DataPoint[int64] {
		return metricdata.DataPoint[int64]{Attributes: attribute.NewSet(kv...), Value: v}
	}
	outcome := func(s string) attribute.KeyValue { return attribute.String("robotsext.outcome", s) }
	reason := func(s string) attribute.KeyValue { return attribute.String("robotsext.reason", s) }
	counter("robotsext.robotstxt.fetches",
		point(1, outcome("ok")), point(0, outcome("unavailable")), point(0, outcome("unreachable")), point(0, outcome("unauthorized")))
	counter("robotsext.checks", point(5))
	counter("robotsext.allowed",
		point(3, reason("no_match")), point(0, reason("allow_rule")), point(0, reason("empty_rule")), point(0, reason("robots_txt")),
		point(0, reason("unavailable")), point(0, reason("unreachable")), point(0, reason("override")), point(0, reason("not_applicable")))
	counter("robotsext.blocked",
		point(2, reason("disallow_rule")), point(0, reason("unreachable")), point(0, reason("unauthorized")), point(0, reason("local_error")), point(0, reason("usage")), point(0, reason("backoff")),
		point(0, reason("nofollow")), point(0, reason("rel_nofollow")), point(0, reason("identity")), point(0, reason("closed")))
	counter("robotsext.cache.hits", point(4))
	counter("robotsext.cache.misses", point(1))
	counter("robotsext.hold.ended",
		point(0, attribute.String("robotsext.hold.result", "released")), point(0, attribute.String("robotsext.hold.result", "gave_up")))

	origins := metricNamed(t, got, "robotsext.cache.origins").Data.(metricdata.Sum[int64])
	if origins.IsMonotonic || len(origins.DataPoints) != 1 || origins.DataPoints[0].Value != 1 {
		t.Errorf("robotsext.cache.origins = %+v, want one non-monotonic point at 1", origins)
	}
	fallback := metricNamed(t, got, "robotsext.backend.fallback").Data.(metricdata.Gauge[int64])
	if len(fallback.DataPoints) != 1 || fallback.DataPoints[0].Value != 0 {
		t.Errorf("robotsext.backend.fallback = %+v, want one point at 0", fallback)
	}

	// The histograms are the Extension's: same bounds, counts and sum.
	s := ext.Stats()
	checkHistogram(t, got, "robotsext.pace.wait", s.PaceWaits)
	checkHistogram(t, got, "robotsext.robotstxt.fetch.duration", s.FetchDurations)
	if s.PaceWaits.Count != 3 || s.FetchDurations.Count != 1 {
		t.Errorf("Stats: %d pace waits and %d fetch durations, want 3 and 1", s.PaceWaits.Count, s.FetchDurations.Count)
	}
}

// TestInstruments checks each instrument's name, unit and kind, and that
// every one has a description.
func TestInstruments(t *testing.T) {
	site := newSite(t)
	c, ext, _ := newCrawler()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	if _, err := Register(ext, mp); err != nil {
		t.Fatal(err)
	}
	run(t, c, site)
	got := collect(t, reader)

	tests := []struct {
		name, unit, kind string
	}{
		{"robotsext.robotstxt.fetches", "{fetch}", "counter"},
		{"robotsext.robotstxt.not_modified", "{fetch}", "counter"},
		{"robotsext.robotstxt.local_errors", "{fetch}", "counter"},
		{"robotsext.robotstxt.fetch.duration", "s", "histogram"},
		{"robotsext.checks", "{request}", "counter"},
		{"robotsext.allowed", "{request}", "counter"},
		{"robotsext.blocked", "{request}", "counter"},
		{"robotsext.shadowed", "{request}", "counter"},
		{"robotsext.redirects.blocked", "{redirect}", "counter"},
		{"robotsext.redirects.deferred", "{redirect}", "counter"},
		{"robotsext.retries.dropped", "{request}", "counter"},
		{"robotsext.cancelled", "{request}", "counter"},
		{"robotsext.crawl_delays.clamped", "{crawl_delay}", "counter"},
		{"robotsext.pace.wait", "s", "histogram"},
		{"robotsext.cache.hits", "{request}", "counter"},
		{"robotsext.cache.misses", "{request}", "counter"},
		{"robotsext.cache.stale_served", "{request}", "counter"},
		{"robotsext.cache.evictions", "{origin}", "counter"},
		{"robotsext.cache.origins", "{origin}", "updowncounter"},
		{"robotsext.cache.memory.usage", "By", "updowncounter"},
		{"robotsext.backend.errors", "{error}", "counter"},
		{"robotsext.backend.anomalies", "{anomaly}", "counter"},
		{"robotsext.backend.fallback", "1", "gauge"},
		{"robotsext.hold.requests", "{request}", "updowncounter"},
		{"robotsext.hold.entered", "{request}", "counter"},
		{"robotsext.hold.ended", "{request}", "counter"},
		{"robotsext.hold.full", "{request}", "counter"},
		{"robotsext.usage.refused", "{request}", "counter"},
		{"robotsext.usage.withheld", "{page}", "counter"},
		{"robotsext.usage.meta_refused", "{page}", "counter"},
		{"robotsext.tdmrep.fetches", "{request}", "counter"},
		{"robotsext.tdmrep.files", "{request}", "counter"},
		{"robotsext.tdmrep.malformed", "{request}", "counter"},
		{"robotsext.backoff.pauses", "{pause}", "counter"},
		{"robotsext.backoff.pauses.capped", "{pause}", "counter"},
		{"robotsext.backoff.probes", "{request}", "counter"},
		{"robotsext.backoff.waited", "{request}", "counter"},
		{"robotsext.backoff.refused", "{request}", "counter"},
		{"robotsext.backoff.requeued", "{request}", "counter"},
		{"robotsext.pace.turn_requeued", "{request}", "counter"},
		{"robotsext.backoff.requests", "{request}", "updowncounter"},
		{"robotsext.backoff.hosts", "{host}", "updowncounter"},
		{"robotsext.directive.pages", "{page}", "counter"},
		{"robotsext.links.refused", "{request}", "counter"},
		{"robotsext.responses", "{response}", "counter"},
		{"robotsext.page_cache.hits", "{page}", "counter"},
		{"robotsext.page_cache.revalidated", "{page}", "counter"},
		{"robotsext.page_cache.misses", "{page}", "counter"},
		{"robotsext.page_cache.stale", "{page}", "counter"},
		{"robotsext.page_cache.saved", "By", "counter"},
		{"robotsext.page_cache.corrupt", "{entry}", "counter"},
		{"robotsext.page_cache.store_errors", "{error}", "counter"},
		{"robotsext.sitemaps.fetched", "{sitemap}", "counter"},
		{"robotsext.sitemaps.failed", "{sitemap}", "counter"},
		{"robotsext.sitemap.entries", "{entry}", "counter"},
		{"robotsext.sitemap.entries.outside", "{entry}", "counter"},
		{"robotsext.sitemap.entries.skipped", "{entry}", "counter"},
		{"robotsext.sitemap.entries.unchanged", "{entry}", "counter"},
		{"robotsext.sitemap.loops", "{sitemap}", "counter"},
		{"robotsext.sitemap.duplicates", "{sitemap}", "counter"},
		{"robotsext.sitemap.limits", "{limit}", "counter"},
	}
	if n := len(got.ScopeMetrics[0].Metrics); n != len(tests) {
		t.Errorf("%d instruments reported, want %d", n, len(tests))
	}
	var names []string
	for _, m := range got.ScopeMetrics[0].Metrics {
		names = append(names, m.Name+" ("+m.Unit+")")
	}
	t.Logf("%d instruments: %s", len(names), strings.Join(names, ", "))
	name := regexp.MustCompile(`^robotsext(\.[a-z][a-z0-9]*(_[a-z0-9]+)*)+$`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := metricNamed(t, got, tt.name)
			if !name.MatchString(m.Name) {
				t.Errorf("name %q is not dot-separated snake_case under robotsext", m.Name)
			}
			if m.Unit != tt.unit {
				t.Errorf("unit %q, want %q", m.Unit, tt.unit)
			}
			if m.Description == "" || !strings.HasSuffix(m.Description, ".") {
				t.Errorf("description %q: want a sentence", m.Description)
			}
			kind := ""
			switch d := m.Data.(type) {
			case metricdata.Sum[int64]:
				kind = "updowncounter"
				if d.IsMonotonic {
					kind = "counter"
				}
			case metricdata.Gauge[int64]:
				kind = "gauge"
			case metricdata.Histogram[float64]:
				kind = "histogram"
			}
			if kind != tt.kind {
				t.Errorf("kind %s (%T), want %s", kind, m.Data, tt.kind)
			}
		})
	}
	if s := got.ScopeMetrics[0].Scope.Name; s != ScopeName {
		t.Errorf("scope %q, want %q", s, ScopeName)
	}
}

// TestReaders checks that with two readers on one MeterProvider, each
// collecting in turn, each sees every histogram observation once.
func TestReaders(t *testing.T) {
	site := newSite(t)
	c, ext, _ := newCrawler()
	a, b := sdkmetric.NewManualReader(), sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(a), sdkmetric.WithReader(b))
	if _, err := Register(ext, mp); err != nil {
		t.Fatal(err)
	}
	collect(t, a) // before the crawl
	run(t, c, site)
	collect(t, a)
	collect(t, b)
	gotA, gotB := collect(t, a), collect(t, b)
	s := ext.Stats()
	for _, got := range []metricdata.ResourceMetrics{gotA, gotB} {
		checkHistogram(t, got, "robotsext.pace.wait", s.PaceWaits)
		checkHistogram(t, got, "robotsext.robotstxt.fetch.duration", s.FetchDurations)
	}
}

// TestAttributes registers two Extensions on one MeterProvider, told apart
// by an attribute, and crawls with one.
func TestAttributes(t *testing.T) {
	site := newSite(t)
	c, crawling, _ := newCrawler()
	idle := robotsext.Apply(nil)
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	for name, ext := range map[string]*robotsext.Extension{"crawling": crawling, "idle": idle} {
		if _, err := Register(ext, mp, attribute.String("crawl", name)); err != nil {
			t.Fatal(err)
		}
	}
	run(t, c, site)
	got := collect(t, reader)

	checks := metricNamed(t, got, "robotsext.checks").Data.(metricdata.Sum[int64])
	want := map[string]int64{"crawling": 5, "idle": 0}
	if len(checks.DataPoints) != len(want) {
		t.Errorf("robotsext.checks: %d points, want %d", len(checks.DataPoints), len(want))
	}
	for _, p := range checks.DataPoints {
		crawl, _ := p.Attributes.Value("crawl")
		if p.Value != want[crawl.AsString()] {
			t.Errorf("robotsext.checks{crawl=%s} = %d, want %d", crawl.AsString(), p.Value, want[crawl.AsString()])
		}
	}
	blocked := metricNamed(t, got, "robotsext.blocked").Data.(metricdata.Sum[int64])
	disallowed := attribute.NewSet(attribute.String("crawl", "crawling"), attribute.String("robotsext.reason", "disallow_rule"))
	found := false
	for _, p := range blocked.DataPoints {
		if p.Attributes.Equals(&disallowed) {
			found = true
			if p.Value != 2 {
				t.Errorf("robotsext.blocked{crawling, disallow_rule} = %d, want 2", p.Value)
			}
		}
	}
	if !found {
		t.Errorf("no robotsext.blocked{crawling, disallow_rule} in %+v", blocked.DataPoints)
	}
	pace := metricNamed(t, got, "robotsext.pace.wait").Data.(metricdata.Histogram[float64])
	if len(pace.DataPoints) != 1 || pace.DataPoints[0].Count != 3 {
		t.Fatalf("robotsext.pace.wait: %+v, want one point of 3", pace.DataPoints)
	}
	if v, _ := pace.DataPoints[0].Attributes.Value("crawl"); v.AsString() != "crawling" {
		t.Errorf("robotsext.pace.wait's crawl = %q, want crawling", v.AsString())
	}
}

// TestUnregister checks that a Registration unregistered reports no more.
func TestUnregister(t *testing.T) {
	site := newSite(t)
	c, ext, _ := newCrawler()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	reg, err := Register(ext, mp)
	if err != nil {
		t.Fatal(err)
	}
	collect(t, reader)
	if err := reg.Unregister(); err != nil {
		t.Fatal(err)
	}
	run(t, c, site)
	got := collect(t, reader)
	for _, sm := range got.ScopeMetrics {
		for _, m := range sm.Metrics {
			if sum, ok := m.Data.(metricdata.Sum[int64]); ok {
				for _, p := range sum.DataPoints {
					if p.Value != 0 {
						t.Errorf("%s = %d after Unregister, want nothing new", m.Name, p.Value)
					}
				}
			}
			if h, ok := m.Data.(metricdata.Histogram[float64]); ok && len(h.DataPoints) > 0 && h.DataPoints[0].Count > 0 {
				t.Errorf("%s: %d observations after Unregister", m.Name, h.DataPoints[0].Count)
			}
		}
	}
}

// TestRegisterErrors checks that nil arguments are refused.
func TestRegisterErrors(t *testing.T) {
	mp := sdkmetric.NewMeterProvider()
	tests := []struct {
		name string
		ext  *robotsext.Extension
		mp   *sdkmetric.MeterProvider
	}{
		{"nil Extension", nil, mp},
		{"nil MeterProvider", robotsext.Apply(nil), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.mp == nil {
				_, err = Register(tt.ext, nil)
			} else {
				_, err = Register(tt.ext, tt.mp)
			}
			if err == nil {
				t.Error("no error")
			}
		})
	}
}

// TestCollectWhileCrawling collects concurrently with a crawl, for the
// race detector, and checks that robotsext.checks never goes down.
func TestCollectWhileCrawling(t *testing.T) {
	site := newSite(t)
	c, ext, _ := newCrawler()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	if _, err := Register(ext, mp); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		prev := int64(0)
		for {
			got := collect(t, reader)
			n := metricNamed(t, got, "robotsext.checks").Data.(metricdata.Sum[int64]).DataPoints[0].Value
			if n < prev {
				t.Errorf("robotsext.checks went down: %d after %d", n, prev)
			}
			prev = n
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	run(t, c, site)
	close(done)
	wg.Wait()
	checkHistogram(t, collect(t, reader), "robotsext.pace.wait", ext.Stats().PaceWaits)
}

// TestFeed feeds a histogram snapshots that grow, as an Extension's do,
// and checks after each collection that the SDK's histogram has the
// snapshot's bucket counts and sum.
func TestFeed(t *testing.T) {
	bounds := []time.Duration{10 * time.Millisecond, 100 * time.Millisecond, time.Second}
	tests := []struct {
		name   string
		counts []uint64
		sum    time.Duration
	}{
		{"nothing yet", []uint64{0, 0, 0, 0}, 0},
		{"one fast", []uint64{1, 0, 0, 0}, 3 * time.Millisecond},
		{"more in each bucket", []uint64{2, 3, 1, 0}, 3*time.Millisecond + 7*time.Millisecond + 3*50*time.Millisecond + 400*time.Millisecond},
		{"nothing new", []uint64{2, 3, 1, 0}, 3*time.Millisecond + 7*time.Millisecond + 3*50*time.Millisecond + 400*time.Millisecond},
		{"past the last bound", []uint64{2, 3, 1, 2}, 560*time.Millisecond + 5*time.Second + 90*time.Second},
		// The snapshot's sum ran ahead of its counts (they are read one
		// after the other): the value is carried to the next collection.
		{"sum ahead", []uint64{2, 3, 2, 2}, 95560*time.Millisecond + 900*time.Millisecond + 800*time.Millisecond},
		{"counts catch up", []uint64{2, 3, 3, 2}, 95560*time.Millisecond + 900*time.Millisecond + 800*time.Millisecond},
	}
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	var fbounds []float64
	for _, b := range bounds {
		fbounds = append(fbounds, b.Seconds())
	}
	h, err := mp.Meter("test").Float64Histogram("test.duration", metric.WithExplicitBucketBoundaries(fbounds...))
	if err != nil {
		t.Fatal(err)
	}
	f := &feed{hist: h, opts: []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet())}}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var count uint64
			for _, n := range tt.counts {
				count += n
			}
			snap := robotsext.Histogram{Bounds: bounds, Counts: tt.counts, Count: count, Sum: tt.sum}
			f.record(context.Background(), snap)
			got := collect(t, reader)
			if count == 0 {
				if len(got.ScopeMetrics) != 0 {
					t.Errorf("reported %+v before any observation", got.ScopeMetrics)
				}
				return
			}
			p := metricNamed(t, got, "test.duration").Data.(metricdata.Histogram[float64]).DataPoints[0]
			if !slices.Equal(p.BucketCounts, tt.counts) || p.Count != count {
				t.Errorf("buckets %v (count %d), want %v (%d)", p.BucketCounts, p.Count, tt.counts, count)
			}
			want := tt.sum.Seconds()
			if i == 5 { // sum ahead: the one new value is at most a second
				want = (95560*time.Millisecond + time.Second).Seconds()
			}
			if math.Abs(p.Sum-want) > 1e-9 {
				t.Errorf("sum %v s, want %v s", p.Sum, want)
			}
		})
	}
}

// TestSpread checks the values spread gives: each in its bucket, and
// adding up to the sum asked for when the buckets allow it.
func TestSpread(t *testing.T) {
	bounds := []time.Duration{10 * time.Millisecond, 100 * time.Millisecond, time.Second}
	tests := []struct {
		name string
		n    []uint64
		sum  float64 // seconds
		want float64 // the sum the values make
	}{
		{"first bucket, zero", []uint64{3, 0, 0, 0}, 0, 0},
		{"first bucket", []uint64{3, 0, 0, 0}, 0.015, 0.015},
		{"first bucket, full", []uint64{3, 0, 0, 0}, 0.030, 0.030},
		{"first bucket, too much", []uint64{3, 0, 0, 0}, 1, 0.030},
		{"middle bucket, too little", []uint64{0, 2, 0, 0}, 0.001, 0.020},
		{"middle buckets", []uint64{0, 2, 1, 0}, 0.5, 0.5},
		{"every bucket", []uint64{1, 1, 1, 1}, 2.2, 2.2},
		{"last bucket only", []uint64{0, 0, 0, 2}, 7, 7},
		{"last bucket, too little", []uint64{0, 0, 0, 2}, 0.5, 2},
		{"finite buckets full, the rest in the last", []uint64{1, 1, 0, 1}, 10, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			values := spread(bounds, tt.n, tt.sum)
			total := 0.0
			for i, k := range tt.n {
				if k == 0 {
					continue
				}
				v := values[i]
				lo, hi := 0.0, math.Inf(1)
				if i > 0 {
					lo = bounds[i-1].Seconds()
				}
				if i < len(bounds) {
					hi = bounds[i].Seconds()
				}
				inBucket := v <= hi && (v > lo || (i == 0 && v == 0))
				if !inBucket {
					t.Errorf("bucket %d: value %v outside (%v, %v]", i, v, lo, hi)
				}
				total += float64(k) * v
			}
			if math.Abs(total-tt.want) > 1e-9 {
				t.Errorf("values %v add up to %v, want %v", values, total, tt.want)
			}
		})
	}
}

// collect collects reader's metrics.
func collect(t *testing.T, reader *sdkmetric.ManualReader) metricdata.ResourceMetrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	return rm
}

// metricNamed returns the metric called name in rm.
func metricNamed(t *testing.T, rm metricdata.ResourceMetrics, name string) metricdata.Metrics {
	t.Helper()
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m
			}
		}
	}
	t.Fatalf("no metric %s", name)
	return metricdata.Metrics{}
}

// checkHistogram checks that the histogram called name in rm has h's
// bounds, bucket counts, count and sum.
func checkHistogram(t *testing.T, rm metricdata.ResourceMetrics, name string, h robotsext.Histogram) {
	t.Helper()
	data := metricNamed(t, rm, name).Data.(metricdata.Histogram[float64])
	if data.Temporality != metricdata.CumulativeTemporality || len(data.DataPoints) != 1 {
		t.Fatalf("%s: %+v, want one cumulative point", name, data)
	}
	p := data.DataPoints[0]
	var bounds []float64
	for _, b := range h.Bounds {
		bounds = append(bounds, b.Seconds())
	}
	if !slices.Equal(p.Bounds, bounds) {
		t.Errorf("%s: bounds %v, want %v", name, p.Bounds, bounds)
	}
	if !slices.Equal(p.BucketCounts, h.Counts) || p.Count != h.Count {
		t.Errorf("%s: buckets %v (count %d), want %v (%d)", name, p.BucketCounts, p.Count, h.Counts, h.Count)
	}
	if math.Abs(p.Sum-h.Sum.Seconds()) > 1e-9 {
		t.Errorf("%s: sum %v s, want %v s", name, p.Sum, h.Sum.Seconds())
	}
}

// TestRegisterTwice: a second Register of one Extension with the same
// MeterProvider and attributes is refused with ErrAlreadyRegistered and
// values are reported once; other attributes, another MeterProvider, or
// the same after Unregister are accepted.
func TestRegisterTwice(t *testing.T) {
	site := newSite(t)
	c, ext, _ := newCrawler()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	reg, err := Register(ext, mp, attribute.String("crawl", "a"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Register(ext, mp, attribute.String("crawl", "a")); !errors.Is(err, ErrAlreadyRegistered) {
		t.Fatalf("second Register: %v, want ErrAlreadyRegistered", err)
	}
	run(t, c, site)
	got := collect(t, reader)
	checks := metricNamed(t, got, "robotsext.checks").Data.(metricdata.Sum[int64])
	st := ext.Stats()
	var want int64
	for _, n := range st.Allowed {
		want += int64(n)
	}
	for _, n := range st.Blocked {
		want += int64(n)
	}
	if want == 0 || len(checks.DataPoints) != 1 || checks.DataPoints[0].Value != want {
		t.Errorf("robotsext.checks = %+v, want one point at %d", checks.DataPoints, want)
	}
	if r2, err := Register(ext, mp, attribute.String("crawl", "b")); err != nil {
		t.Errorf("Register with other attributes: %v", err)
	} else {
		r2.Unregister()
	}
	if r3, err := Register(ext, sdkmetric.NewMeterProvider()); err != nil {
		t.Errorf("Register with another MeterProvider: %v", err)
	} else {
		r3.Unregister()
	}
	if err := reg.Unregister(); err != nil {
		t.Fatal(err)
	}
	if r4, err := Register(ext, mp, attribute.String("crawl", "a")); err != nil {
		t.Errorf("Register after Unregister: %v", err)
	} else {
		r4.Unregister()
	}
}
