package robotsotel

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/robotsext/robotsext"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// BenchmarkCollect measures a collection by the SDK's ManualReader of an
// Extension registered with Register, after a crawl of the test site:
// the callback (one Extension.Stats snapshot, about 50 observations)
// and the SDK's aggregation, with no new histogram observation to record.
func BenchmarkCollect(b *testing.B) {
	site := newSite(b)
	c, ext, _ := newCrawler()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	if _, err := Register(ext, mp); err != nil {
		b.Fatal(err)
	}
	run(b, c, site)
	var rm metricdata.ResourceMetrics
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := reader.Collect(ctx, &rm); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFeed measures what recording the histogram observations made
// since the previous collection costs: each is one Record on the SDK's
// histogram, so the cost grows with their number (ns/observation).
func BenchmarkFeed(b *testing.B) {
	for _, fresh := range []uint64{1, 1000} {
		b.Run(fmt.Sprintf("new=%d", fresh), func(b *testing.B) {
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
			h, err := mp.Meter("bench").Float64Histogram("bench.duration")
			if err != nil {
				b.Fatal(err)
			}
			f := &feed{hist: h, opts: []metric.RecordOption{metric.WithAttributeSet(attribute.NewSet())}}
			bounds := []time.Duration{10 * time.Millisecond, 100 * time.Millisecond, time.Second}
			snap := robotsext.Histogram{Bounds: bounds, Counts: make([]uint64, len(bounds)+1)}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				snap.Counts[1] += fresh // observations of 50 ms
				snap.Count += fresh
				snap.Sum += time.Duration(fresh) * 50 * time.Millisecond
				f.record(ctx, snap)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(uint64(b.N)*fresh), "ns/observation")
		})
	}
}
