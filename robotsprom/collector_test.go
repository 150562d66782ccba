package robotsprom

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/robotsext/robotsext"
)

// TestCrawl crawls the test site and checks what a scrape reports: the
// fetch, the decisions by reason, the cache and both histograms.
func TestCrawl(t *testing.T) {
	site := newSite(t)
	ext, fetched := crawl(t, site)
	slices.Sort(fetched)
	if want := []string{"/", "/a", "/b"}; !slices.Equal(fetched, want) {
		t.Fatalf("fetched %q, want %q", fetched, want)
	}
	coll := NewCollector(ext)

	const want = `
# HELP robotsext_robotstxt_fetches_total robots.txt fetches by outcome (ok, unavailable, unreachable, unauthorized), revalidations included.
# TYPE robotsext_robotstxt_fetches_total counter
robotsext_robotstxt_fetches_total{outcome="ok"} 1
robotsext_robotstxt_fetches_total{outcome="unavailable"} 0
robotsext_robotstxt_fetches_total{outcome="unauthorized"} 0
robotsext_robotstxt_fetches_total{outcome="unreachable"} 0
# HELP robotsext_checks_total Requests and redirect hops robots.txt decided: those allowed plus those blocked.
# TYPE robotsext_checks_total counter
robotsext_checks_total 5
# HELP robotsext_allowed_total Requests and redirect hops robots.txt let through, by reason.
# TYPE robotsext_allowed_total counter
robotsext_allowed_total{reason="allow_rule"} 0
robotsext_allowed_total{reason="empty_rule"} 0
robotsext_allowed_total{reason="no_match"} 3
robotsext_allowed_total{reason="not_applicable"} 0
robotsext_allowed_total{reason="override"} 0
robotsext_allowed_total{reason="robots_txt"} 0
robotsext_allowed_total{reason="unavailable"} 0
robotsext_allowed_total{reason="unreachable"} 0
# HELP robotsext_blocked_total Requests and redirect hops robots.txt refused, by reason; in shadow mode they went out all the same.
# TYPE robotsext_blocked_total counter
robotsext_blocked_total{reason="backoff"} 0
robotsext_blocked_total{reason="closed"} 0
robotsext_blocked_total{reason="disallow_rule"} 2
robotsext_blocked_total{reason="identity"} 0
robotsext_blocked_total{reason="local_error"} 0
robotsext_blocked_total{reason="nofollow"} 0
robotsext_blocked_total{reason="rel_nofollow"} 0
robotsext_blocked_total{reason="unauthorized"} 0
robotsext_blocked_total{reason="unreachable"} 0
robotsext_blocked_total{reason="usage"} 0
# HELP robotsext_cache_origins Origins whose robots.txt is cached now.
# TYPE robotsext_cache_origins gauge
robotsext_cache_origins 1
# HELP robotsext_cache_misses_total Decisions that fetched robots.txt or waited for its fetch.
# TYPE robotsext_cache_misses_total counter
robotsext_cache_misses_total 1
# HELP robotsext_cache_hits_total Decisions made from a fresh cached robots.txt.
# TYPE robotsext_cache_hits_total counter
robotsext_cache_hits_total 4
# HELP robotsext_held_requests Requests held now because robots.txt could not be had (WithDeferUnreachable).
# TYPE robotsext_held_requests gauge
robotsext_held_requests 0
# HELP robotsext_held_ended_total How held requests ended: released (decided by a robots.txt that came in time) or gave_up (refused when the bound was reached).
# TYPE robotsext_held_ended_total counter
robotsext_held_ended_total{result="gave_up"} 0
robotsext_held_ended_total{result="released"} 0
# HELP robotsext_backend_fallback 1 while a Backend call failed recently and the Extension fetches and paces locally, else 0.
# TYPE robotsext_backend_fallback gauge
robotsext_backend_fallback 0
# HELP robotsext_backoff_pauses_total Hosts paused because they asked for less, by cause: 429, 503, 5xx_run (a run of other 5xx), probe_failed or ratelimit (a RateLimit field with no quota left); a pause doubled after a failed probe counts again.
# TYPE robotsext_backoff_pauses_total counter
robotsext_backoff_pauses_total{cause="429"} 0
robotsext_backoff_pauses_total{cause="503"} 0
robotsext_backoff_pauses_total{cause="5xx_run"} 0
robotsext_backoff_pauses_total{cause="probe_failed"} 0
robotsext_backoff_pauses_total{cause="ratelimit"} 0
# HELP robotsext_responses_total What the page requests got back, by status class: none (no response: a network error or timeout), 1xx, 2xx, 3xx (redirects followed or refused included), 4xx or 5xx.
# TYPE robotsext_responses_total counter
robotsext_responses_total{class="1xx"} 0
robotsext_responses_total{class="2xx"} 3
robotsext_responses_total{class="3xx"} 0
robotsext_responses_total{class="4xx"} 0
robotsext_responses_total{class="5xx"} 0
robotsext_responses_total{class="none"} 0
`
	names := []string{
		"robotsext_robotstxt_fetches_total", "robotsext_checks_total",
		"robotsext_allowed_total", "robotsext_blocked_total",
		"robotsext_cache_origins", "robotsext_cache_misses_total", "robotsext_cache_hits_total",
		"robotsext_held_requests", "robotsext_held_ended_total", "robotsext_backend_fallback",
		"robotsext_backoff_pauses_total", "robotsext_responses_total",
	}
	if err := testutil.CollectAndCompare(coll, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
	if n := testutil.ToFloat64(only(coll, "robotsext_cache_bytes")); n <= 0 {
		t.Errorf("robotsext_cache_bytes = %v, want > 0 (one policy cached)", n)
	}

	// The three requests that went out were paced by the 50 ms Crawl-delay
	// (the first one after the robots.txt request): each waited at most
	// the delay and its jitter (a tenth of it at most), so all fall at or
	// below the 0.1 bucket.
	pace := histogramOf(t, coll, "robotsext_pace_wait_seconds")
	if pace.GetSampleCount() != 3 {
		t.Errorf("pace waits observed: %d, want 3", pace.GetSampleCount())
	}
	if got := bucket(t, pace, 0.1); got != 3 {
		t.Errorf("pace waits <= 0.1 s: %d, want 3", got)
	}
	if s := pace.GetSampleSum(); s <= 0 || s > 3*0.055 {
		t.Errorf("pace waits' sum = %v s, want in (0, 0.165]", s)
	}
	fetch := histogramOf(t, coll, "robotsext_robotstxt_fetch_duration_seconds")
	if fetch.GetSampleCount() != 1 {
		t.Errorf("robots.txt fetches observed: %d, want 1", fetch.GetSampleCount())
	}
}

// TestLint checks the metrics against Prometheus's naming and help rules,
// before and after a crawl, and that a pedantic registry (which checks
// that Collect sends only what Describe announced, and no duplicate
// series) accepts them.
func TestLint(t *testing.T) {
	site := newSite(t)
	crawled, _ := crawl(t, site)
	tests := []struct {
		name string
		ext  *robotsext.Extension
	}{
		{"fresh Extension", robotsext.Apply(nil)},
		{"after a crawl", crawled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			coll := NewCollector(tt.ext)
			problems, err := testutil.CollectAndLint(coll)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range problems {
				t.Errorf("lint: %s: %s", p.Metric, p.Text)
			}
			reg := prometheus.NewPedanticRegistry()
			if err := reg.Register(coll); err != nil {
				t.Fatal(err)
			}
			families, err := reg.Gather()
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range families {
				if !strings.HasPrefix(f.GetName(), namespace+"_") {
					t.Errorf("metric %s lacks the %s_ prefix", f.GetName(), namespace)
				}
			}
			if len(families) != 61 {
				t.Errorf("%d metric families, want 61", len(families))
			}
			names := make([]string, len(families))
			for i, f := range families {
				names[i] = f.GetName() + " (" + strings.ToLower(f.GetType().String()) + ")"
			}
			t.Logf("%d metric families: %s", len(names), strings.Join(names, ", "))
		})
	}
}

// TestConstHistogram checks the conversion of a robotsext.Histogram:
// bounds from durations to seconds, counts from per bucket to cumulative.
func TestConstHistogram(t *testing.T) {
	bounds := []time.Duration{5 * time.Millisecond, 50 * time.Millisecond, time.Second}
	tests := []struct {
		name    string
		h       robotsext.Histogram
		buckets map[float64]uint64
		count   uint64
		sum     float64
	}{
		{"zero", robotsext.Histogram{}, map[float64]uint64{}, 0, 0},
		{"no observation", robotsext.Histogram{Bounds: bounds, Counts: make([]uint64, 4)},
			map[float64]uint64{0.005: 0, 0.05: 0, 1: 0}, 0, 0},
		{"every bucket", robotsext.Histogram{Bounds: bounds, Counts: []uint64{1, 2, 3, 4}, Count: 10, Sum: 70 * time.Second},
			map[float64]uint64{0.005: 1, 0.05: 3, 1: 6}, 10, 70},
		{"past the last bound only", robotsext.Histogram{Bounds: bounds, Counts: []uint64{0, 0, 0, 2}, Count: 2, Sum: 3 * time.Second},
			map[float64]uint64{0.005: 0, 0.05: 0, 1: 0}, 2, 3},
	}
	desc := prometheus.NewDesc("robotsext_test_seconds", "A test histogram.", nil, nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m dto.Metric
			if err := constHistogram(desc, tt.h).Write(&m); err != nil {
				t.Fatal(err)
			}
			h := m.GetHistogram()
			got := map[float64]uint64{}
			for _, b := range h.GetBucket() {
				got[b.GetUpperBound()] = b.GetCumulativeCount()
			}
			if len(got) != len(tt.buckets) {
				t.Errorf("buckets %v, want %v", got, tt.buckets)
			}
			for le, n := range tt.buckets {
				if got[le] != n {
					t.Errorf("bucket le=%v: %d, want %d", le, got[le], n)
				}
			}
			if h.GetSampleCount() != tt.count || h.GetSampleSum() != tt.sum {
				t.Errorf("count %d sum %v, want %d %v", h.GetSampleCount(), h.GetSampleSum(), tt.count, tt.sum)
			}
		})
	}
}

// TestScrapeWhileCrawling scrapes concurrently with a crawl, for the race
// detector, and checks that counters never go down between scrapes.
func TestScrapeWhileCrawling(t *testing.T) {
	site := newSite(t)
	c, ext, _ := newCrawler()
	coll := only(NewCollector(ext), "robotsext_checks_total")
	done := make(chan struct{})
	var wg sync.WaitGroup
	scrapes := 0
	wg.Go(func() {
		prev := 0.0
		for {
			n := testutil.ToFloat64(coll)
			scrapes++
			if n < prev {
				t.Errorf("robotsext_checks_total went down: %v after %v", n, prev)
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
	if n := testutil.ToFloat64(coll); n != 5 {
		t.Errorf("robotsext_checks_total = %v after the crawl, want 5", n)
	}
	t.Logf("%d scrapes during the crawl", scrapes)
}

// TestNewCollectorNil checks that a nil Extension is refused at once.
func TestNewCollectorNil(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("NewCollector(nil) did not panic")
		}
	}()
	NewCollector(nil)
}

// only is c restricted to the metrics of the family name, for
// testutil.ToFloat64, which wants a collector of one metric.
func only(c prometheus.Collector, name string) prometheus.Collector {
	return filtered{c, name}
}

// filtered is the collector only returns.
type filtered struct {
	prometheus.Collector
	name string
}

// Collect sends the metrics of f.Collector whose name is f.name.
func (f filtered) Collect(ch chan<- prometheus.Metric) {
	all := make(chan prometheus.Metric)
	go func() {
		f.Collector.Collect(all)
		close(all)
	}()
	for m := range all {
		if strings.Contains(m.Desc().String(), `fqName: "`+f.name+`"`) {
			ch <- m
		}
	}
}

// histogramOf gathers coll and returns the histogram named name.
func histogramOf(t *testing.T, coll prometheus.Collector, name string) *dto.Histogram {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(coll)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0].GetHistogram()
		}
	}
	t.Fatalf("no metric %s", name)
	return nil
}

// bucket returns h's cumulative count at the bound le.
func bucket(t *testing.T, h *dto.Histogram, le float64) uint64 {
	t.Helper()
	for _, b := range h.GetBucket() {
		if b.GetUpperBound() == le {
			return b.GetCumulativeCount()
		}
	}
	t.Fatalf("no bucket le=%v", le)
	return 0
}
