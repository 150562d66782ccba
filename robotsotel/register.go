// Package robotsotel reports what a robotsext.Extension counts as
// OpenTelemetry metrics.
//
// Register creates the instruments below on a metric.MeterProvider and
// one callback that reads Extension.Stats when a reader collects: nothing
// runs between collections, and the Extension's request hook does no more
// work when instruments are registered than when none are.
//
// It is a module of its own, as go-redis keeps its metrics adapters in
// modules of their own, so that the robotsext module itself depends on
// no metrics library; robotsprom is the Prometheus counterpart, with the
// same measures under Prometheus's names.
//
// Names are dot-separated under the robotsext namespace, units are UCUM
// ("s", "By", and annotations such as "{request}" for counts), there are
// no per-host attributes, so that the number of series stays fixed
// however many sites are crawled, and the attributes are namespaced. The
// instruments are the rows of the core's one table, package
// github.com/robotsext/robotsext/metrics (its OTel names, kinds and
// units), which docs/observability.md lists: robotsext.robotstxt.fetches
// (counter {fetch}; robotsext.outcome), robotsext.checks,
// robotsext.allowed and robotsext.blocked (counters {request};
// robotsext.reason), robotsext.pace.wait (histogram s),
// robotsext.cache.memory.usage (updowncounter By), robotsext.hold.ended
// (robotsext.hold.result), robotsext.backoff.pauses
// (robotsext.backoff.cause), robotsext.responses
// (robotsext.status_class) and so on, 60 in this version. A counter added
// to the table is exported here at once.
//
// Through OpenTelemetry's Prometheus exporter these become
// robotsext_robotstxt_fetches_total, robotsext_pace_wait_seconds and so
// on, mostly robotsprom's names, with namespaced labels; a program that
// only serves Prometheus is better off with robotsprom.
//
// robotsext.reason takes short, stable values: no_match, allow_rule,
// disallow_rule, empty_rule, robots_txt, unavailable, unreachable,
// unauthorized, override, not_applicable, local_error, usage, backoff,
// nofollow, rel_nofollow, identity, closed (one per
// robotsext.Reason, not Reason.String's prose). Each value a counter can
// take is reported from the first collection on, at 0.
//
// # Histograms
//
// The OpenTelemetry API has no observable histogram, and the Extension
// keeps its own (Stats.PaceWaits, Stats.FetchDurations: fixed buckets,
// counts and a sum). robotsotel exports them as real histograms, which is
// what a backend needs for quantiles and heatmaps, rather than as
// counters of bucket counts, which no backend reads as a distribution:
// the callback records each observation the Extension made since the
// previous collection into a synchronous Float64Histogram, which the SDK
// then aggregates as it would any other. The instruments advise the
// Extension's own bucket boundaries (WithExplicitBucketBoundaries), so
// with the SDK's default aggregation the bucket counts are exactly the
// Extension's and the sum is the Extension's (a difference of rounding
// in one collection is carried to the next). The Extension does not keep
// each duration, so the values recorded are placed within their buckets
// to add up to that sum: a View with other boundaries, or an exponential
// histogram, sees them at those places, and the data points' Min and Max
// are within the buckets of the true minimum and maximum, not those
// values themselves. Observations appear at the next collection of any
// reader, each exactly once for the MeterProvider, however many readers
// it has.
package robotsotel

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/metrics"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// ScopeName is the instrumentation scope of the instruments Register
// creates: the name of the Meter it asks the MeterProvider for, which a
// View can select them by.
const ScopeName = "github.com/robotsext/robotsext/robotsotel"

// Register creates the instruments of ext's counters, gauges and
// histograms (one per row of metrics.All) on a Meter of
// mp, and a callback reading ext.Stats that the SDK runs at each
// collection. Register once per Extension, MeterProvider and attrs: a
// second registration, which would report every value twice, is refused
// with ErrAlreadyRegistered; Unregister the
// Registration returned to stop reporting ext (the instruments stay, as
// the API cannot remove them, but get no more measurements).
//
//	reader := sdkmetric.NewPeriodicReader(exporter)
//	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
//	reg, err := robotsotel.Register(ext, mp)
//
// attrs, if any, are added to every data point: to report the Extensions
// of several crawls through one MeterProvider, whose instruments are the
// same, register each with an attribute telling them apart, such as
// attribute.String("crawl", name). Register returns an error if ext or mp
// is nil, or if mp refuses an instrument or the callback.
func Register(ext *robotsext.Extension, mp metric.MeterProvider, attrs ...attribute.KeyValue) (metric.Registration, error) {
	if ext == nil || mp == nil {
		return nil, errors.New("robotsotel: Register needs an Extension and a MeterProvider")
	}
	set := attribute.NewSet(attrs...)
	release, ok := ext.ClaimExport(exportKey{mp, set.Equivalent()})
	if !ok {
		return nil, ErrAlreadyRegistered
	}
	o, err := newObserver(ext, mp.Meter(ScopeName), attrs)
	if err != nil {
		release()
		return nil, err
	}
	reg, err := o.meter.RegisterCallback(o.observe, o.observables...)
	if err != nil {
		release()
		return nil, err
	}
	return registration{reg, release}, nil
}

// ErrAlreadyRegistered is returned by Register for an Extension already
// registered with the same MeterProvider and attributes (and not
// unregistered since): a second registration would report every value
// twice. robotsprom refuses the same mistake through Prometheus's registry.
var ErrAlreadyRegistered = errors.New("robotsotel: this Extension is already registered with this MeterProvider and attributes")

// exportKey is what Register claims on the Extension (ClaimExport).
type exportKey struct {
	mp    metric.MeterProvider
	attrs attribute.Distinct
}

// registration is a metric.Registration that frees the Extension's claim
// when unregistered, so that ext can be registered again.
type registration struct {
	metric.Registration
	release func()
}

// Unregister stops reporting the Extension.
func (r registration) Unregister() error {
	err := r.Registration.Unregister()
	if err == nil {
		r.release()
	}
	return err
}

// observer holds the instruments of one Extension and the attribute
// options of their data points, all made by newObserver and only read
// afterwards; the histograms' feeds have locks of their own.
type observer struct {
	ext         *robotsext.Extension
	meter       metric.Meter
	attrs       []attribute.KeyValue   // added to every data point
	base        []metric.ObserveOption // attrs alone
	scalars     []scalar               // the instruments without attributes
	labelled    []labelled             // the instruments with one attribute
	feeds       []histogram            // the histograms
	observables []metric.Observable    // every observable instrument, for RegisterCallback
}

// scalar is an observable instrument without attributes read from one
// field of Stats.
type scalar struct {
	inst  metric.Int64Observable
	value func(*robotsext.Stats) int64
}

// labelled is a counter reported per value of its attribute, and the
// options of each value's data point, made once.
type labelled struct {
	inst  metric.Int64ObservableCounter
	label *metrics.Label
	opts  map[string][]metric.ObserveOption
}

// histogram is one of the Extension's histograms and the feed recording
// it.
type histogram struct {
	feed *feed
	read func(*robotsext.Stats) robotsext.Histogram
}

// newObserver creates ext's instruments on meter, one per row of
// metrics.All; attrs are added to every data point.
func newObserver(ext *robotsext.Extension, meter metric.Meter, attrs []attribute.KeyValue) (*observer, error) {
	o := &observer{ext: ext, meter: meter, attrs: slices.Clone(attrs)}
	baseSet := metric.WithAttributeSet(attribute.NewSet(attrs...))
	o.base = []metric.ObserveOption{baseSet}
	// The Extension's bounds, the same for both histograms, as the
	// instruments' advised boundaries.
	var bounds []float64
	for _, b := range ext.Stats().PaceWaits.Bounds {
		bounds = append(bounds, b.Seconds())
	}
	var errs []error
	for _, m := range metrics.All() {
		unit, desc := metric.WithUnit(m.Unit), metric.WithDescription(m.Help)
		switch m.Kind {
		case metrics.Histogram:
			h, err := meter.Float64Histogram(m.OTel, unit, desc, metric.WithExplicitBucketBoundaries(bounds...))
			errs = append(errs, err)
			o.feeds = append(o.feeds, histogram{&feed{hist: h, opts: []metric.RecordOption{baseSet}}, m.Histogram})
		case metrics.Counter:
			inst, err := meter.Int64ObservableCounter(m.OTel, unit, desc)
			errs = append(errs, err)
			o.observables = append(o.observables, inst)
			if m.Label == nil {
				o.scalars = append(o.scalars, scalar{inst, m.Value})
				continue
			}
			l := labelled{inst: inst, label: m.Label, opts: map[string][]metric.ObserveOption{}}
			for _, v := range m.Label.Values {
				l.opts[v] = []metric.ObserveOption{o.with(attribute.String(m.Label.OTel, v))}
			}
			o.labelled = append(o.labelled, l)
		case metrics.UpDown:
			inst, err := meter.Int64ObservableUpDownCounter(m.OTel, unit, desc)
			errs = append(errs, err)
			o.observables = append(o.observables, inst)
			o.scalars = append(o.scalars, scalar{inst, m.Value})
		case metrics.Gauge:
			inst, err := meter.Int64ObservableGauge(m.OTel, unit, desc)
			errs = append(errs, err)
			o.observables = append(o.observables, inst)
			o.scalars = append(o.scalars, scalar{inst, m.Value})
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return o, nil
}

// observe is the callback: it observes one Extension.Stats snapshot and
// feeds the histograms with what was observed since the last collection.
func (o *observer) observe(ctx context.Context, obs metric.Observer) error {
	s := o.ext.Stats()
	for _, sc := range o.scalars {
		obs.ObserveInt64(sc.inst, sc.value(&s), o.base...)
	}
	for _, l := range o.labelled {
		l.label.Points(&s, func(value string, n uint64) {
			opts, ok := l.opts[value]
			if !ok { // a value Values does not list: none in this version
				opts = []metric.ObserveOption{o.with(attribute.String(l.label.OTel, value))}
			}
			obs.ObserveInt64(l.inst, int64(n), opts...)
		})
	}
	for _, h := range o.feeds {
		h.feed.record(ctx, h.read(&s))
	}
	return nil
}

// with returns the option of the attributes kv and o.attrs.
func (o *observer) with(kv attribute.KeyValue) metric.MeasurementOption {
	return metric.WithAttributeSet(attribute.NewSet(append(o.attrs, kv)...))
}

// feed records the observations of one of the Extension's histograms
// into a synchronous histogram, each once: it remembers how many of each
// bucket it recorded, and the sum of the values it recorded.
type feed struct {
	hist metric.Float64Histogram
	opts []metric.RecordOption // the attributes of every value, made once

	mu   sync.Mutex // serializes collections by different readers
	seen []uint64   // observations recorded so far, per bucket
	sum  float64    // sum of the values recorded so far, in seconds
}

// record records the observations h has that f has not recorded yet.
func (f *feed) record(ctx context.Context, h robotsext.Histogram) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.seen) != len(h.Counts) {
		if f.seen != nil {
			return // the Extension's buckets changed: they never do
		}
		f.seen = make([]uint64, len(h.Counts))
	}
	fresh := make([]uint64, len(h.Counts))
	news := false
	for i, n := range h.Counts {
		if n > f.seen[i] {
			fresh[i] = n - f.seen[i]
			news = true
		}
	}
	if !news {
		return
	}
	values := spread(h.Bounds, fresh, h.Sum.Seconds()-f.sum)
	for i, n := range fresh {
		for range n {
			f.hist.Record(ctx, values[i], f.opts...)
			f.sum += values[i]
		}
	}
	copy(f.seen, h.Counts)
}

// spread returns, for each bucket i that n has observations in, one value
// in it (above bounds[i-1] and at most bounds[i], in seconds; the bucket
// past the last bound has no upper bound) such that n[i] times value i,
// summed over the buckets, is sum, or as near as the buckets allow. Each
// value is at the same fraction of its bucket's width; what the finite
// buckets cannot hold goes to the last one.
func spread(bounds []time.Duration, n []uint64, sum float64) []float64 {
	lower := func(i int) float64 {
		if i == 0 {
			return 0
		}
		return bounds[i-1].Seconds()
	}
	var base, room float64 // the least sum the buckets allow, and what more the finite ones can hold
	for i, k := range n {
		if k == 0 {
			continue
		}
		base += float64(k) * lower(i)
		if i < len(bounds) {
			room += float64(k) * (bounds[i].Seconds() - lower(i))
		}
	}
	extra := max(sum-base, 0)
	t := 1.0 // the fraction of each finite bucket's width
	if room > 0 {
		t = min(extra/room, 1)
	}
	values := make([]float64, len(n))
	for i, k := range n {
		if k == 0 {
			continue
		}
		lo := lower(i)
		var v float64
		if i < len(bounds) {
			hi := bounds[i].Seconds()
			v = min(lo+t*(hi-lo), hi)
		} else {
			v = lo + max(extra-t*room, 0)/float64(k)
		}
		if i > 0 && v <= lo { // a value at the lower bound belongs to the bucket below
			v = math.Nextafter(lo, math.Inf(1))
		}
		values[i] = v
	}
	return values
}
