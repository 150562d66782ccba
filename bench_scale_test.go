package robotsext

// The scale benchmark: a crawl of N simulated hosts (internal/simhost) on
// one loopback server, host names routed to it by a DialContext, in the
// issue's realistic mix (80% of robots.txt silent on Crawl-delay, 10%
// stating 1–5 s, 404s, 5xx, 2.5% slow or hanging, 1.5% of ~400 KB; 3
// pages of 5–20 KB per host linking within and across hosts), an Async
// collector with a LimitRule of Parallelism 64, with plain Colly on the
// same crawl in the same run. It stops by itself (each crawl is
// cancelled after 2 minutes) and touches loopback only.
//
//	go test -run '^$' -bench 'BenchmarkScale$/hosts=1000$' -benchtime 1x -count 3 .
//	go test -run '^$' -bench 'BenchmarkScale$/hosts=10000$' -benchtime 1x .
//	go test -run '^$' -bench 'BenchmarkScale(SlowPaced|Hanging|Queued)' -benchtime 1x .
//
// Metrics: pages/s (over the whole crawl, its tail of 5 s hosts
// included); to90%-s (when 90% of the pages were answered); cpu-s/kpage (the process's CPU seconds per 1,000
// pages, the loopback server's included, the same for both); heap-MB
// (peak, sampled every 20 ms); conns/page (connections the server
// accepted per page; robots.txt goes out on the pages' transport, the
// Extension's default, and plain Colly's through a client on it);
// gate-% (the share of Colly slot-time,
// from the first OnRequestHeaders callback to the response's end, spent
// inside the Extension's OnRequestHeaders hook); robots/host (robots.txt
// requests per host asked); gap/delay (the smallest gap between two page
// arrivals of one paced host at the server over its delay, 1 = exactly
// the delay) and gaps-below (how many were shorter than the delay).
// docs/benchmarks.md has the figures.

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/robotsext/robotsext/internal/simhost"
)

// scaleLimit bounds each crawl of the scale benchmark.
const scaleLimit = 2 * time.Minute

// BenchmarkScale crawls the mix at 1,000 and 10,000 hosts, with plain
// Colly and with Apply. colly+robots is plain Colly fetching each host's
// robots.txt once (read, not parsed) before its pages: the HTTP requests
// the Extension adds, so that what they cost and what the Extension's own
// work costs can be told apart.
func BenchmarkScale(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		for _, kind := range []string{"colly", "colly+robots", "robotsext"} {
			plain, robots := kind != "robotsext", kind == "colly+robots"
			b.Run(fmt.Sprintf("hosts=%d/%s", n, kind), func(b *testing.B) {
				var res scaleResult
				for range b.N {
					srv := simhost.New(n, simhost.Mix)
					res = scaleCrawl{srv: srv, plain: plain, robots: robots, par: 64, follow: true, limit: scaleLimit, feed: seedAll(srv)}.run()
					srv.Close()
				}
				reportScale(b, res)
			})
		}
	}
}

// BenchmarkScaleQueued is BenchmarkScale at 10,000 hosts with every page
// of every host queued up front instead of found by following links:
// 30,000 URLs wait at once, most of them for robots.txt or their host's
// pace, so that a cache of fewer origins than hosts would evict origins
// whose URLs are still queued (issue 49's item 3). robots/host says
// whether each host's robots.txt was fetched once.
func BenchmarkScaleQueued(b *testing.B) {
	const n = 10000
	for _, plain := range []bool{true, false} {
		name := "hosts=10000/robotsext"
		if plain {
			name = "hosts=10000/colly"
		}
		b.Run(name, func(b *testing.B) {
			var res scaleResult
			for range b.N {
				srv := simhost.New(n, simhost.Mix)
				res = scaleCrawl{srv: srv, plain: plain, par: 64, limit: scaleLimit, feed: seedPages(srv)}.run()
				srv.Close()
			}
			reportScale(b, res)
		})
	}
}

// reportScale reports res's metrics on b.
func reportScale(b *testing.B, res scaleResult) {
	b.ReportMetric(float64(res.pages)/res.took.Seconds(), "pages/s")
	if res.pages > 0 {
		b.ReportMetric(res.cpu.Seconds()*1000/float64(res.pages), "cpu-s/kpage")
	}
	b.ReportMetric(float64(res.peakHeap)/(1<<20), "heap-MB")
	if res.pages > 0 {
		b.ReportMetric(float64(res.dials)/float64(res.pages), "conns/page")
	}
	b.ReportMetric(100*res.gateShare(), "gate-%")
	b.ReportMetric(res.server.RobotsPerHost, "robots/host")
	b.ReportMetric(res.server.MinGapRatio, "gap/delay")
	b.ReportMetric(float64(res.server.GapsBelow), "gaps-below")
	b.ReportMetric(float64(res.pages), "pages")
	b.ReportMetric(res.to90().Seconds(), "to90%-s")
}

// BenchmarkScaleSlowPaced is the first case: 40 hosts at
// Crawl-delay 5 answering in 2–3 s, 30 URLs queued each, beside 50 fast
// hosts (Crawl-delay 0) fed 200 URLs/s for 40 s. It reports the fast
// hosts' page latency (from the Visit to the response) p50, p90 and p99
// and the most requests at the gate at once (slots the gate held); the
// crawl is cancelled 2 s after the feed ends (the slow hosts' queues
// take minutes).
func BenchmarkScaleSlowPaced(b *testing.B) {
	const slow, fast = 40, 50
	spec := func(i int) simhost.Spec {
		if i < slow {
			return simhost.Spec{Robots: simhost.Delay, Delay: 5 * time.Second, Pages: 30,
				PageLatency: 2*time.Second + time.Duration(i%11)*100*time.Millisecond}
		}
		return simhost.Spec{Robots: simhost.Delay, Pages: 1000}
	}
	var res scaleResult
	for range b.N {
		srv := simhost.New(slow+fast, spec)
		feed := func(ctx context.Context, visit func(string)) {
			for i := range slow {
				for p := range 30 {
					visit(simhost.URL(i, p))
				}
			}
			t := time.NewTicker(5 * time.Millisecond) // 200 URLs/s
			defer t.Stop()
			for k := range 8000 {
				select {
				case <-ctx.Done():
					return
				case <-t.C:
				}
				visit(simhost.URL(slow+k%fast, k/fast))
			}
		}
		res = scaleCrawl{srv: srv, par: 64, limit: 42 * time.Second, feed: feed}.run()
		srv.Close()
	}
	isFast := func(u string) bool { return u >= "http://"+simhost.Name(slow) }
	b.ReportMetric(res.latency(0.5, isFast).Seconds()*1000, "fast-p50-ms")
	b.ReportMetric(res.latency(0.9, isFast).Seconds()*1000, "fast-p90-ms")
	b.ReportMetric(res.latency(0.99, isFast).Seconds()*1000, "fast-p99-ms")
	b.ReportMetric(float64(res.gateMax), "gate-slots")
	b.ReportMetric(100*res.gateShare(), "gate-%")
	b.ReportMetric(res.server.MinGapRatio, "gap/delay")
}

// BenchmarkScaleHanging is the second case: 40 hosts whose
// robots.txt never answers among 2,000 (the others silent, 3 pages
// each), the hanging ones seeded first, as a crawl meets them when its
// first hosts are the slow ones: more hangs than the 32 fetches
// WithFetchConcurrency allows at once, all begun before any other host's
// robots.txt. It reports the robots.txt answers the server wrote in the
// first 9 s and the crawl's page latency (from the Visit) p50 and p99.
func BenchmarkScaleHanging(b *testing.B) {
	const n, hang = 2000, 40
	spec := func(i int) simhost.Spec {
		if i < hang {
			return simhost.Spec{Robots: simhost.Hang, Pages: 3}
		}
		return simhost.Spec{Robots: simhost.Silent, Pages: 3}
	}
	var res scaleResult
	var in9s int
	for range b.N {
		srv := simhost.New(n, spec)
		res = scaleCrawl{srv: srv, par: 64, follow: true, limit: time.Minute, feed: seedAll(srv)}.run()
		in9s = srv.RobotsDoneBy(9 * time.Second)
		srv.Close()
	}
	b.ReportMetric(float64(in9s), "robots-in-9s")
	b.ReportMetric(res.latency(0.5, nil).Seconds(), "page-p50-s")
	b.ReportMetric(res.latency(0.99, nil).Seconds(), "page-p99-s")
	b.ReportMetric(res.took.Seconds(), "crawl-s")
	b.ReportMetric(float64(res.pages)/res.took.Seconds(), "pages/s")
}
