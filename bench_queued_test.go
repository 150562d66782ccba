package robotsext

// BenchmarkQueuedMemory measures what a URL queued on a paced host costs
// in memory while it waits: N URLs handed to an Async collector whose
// hosts each have one page in flight that never answers, so that every
// other URL waits — in the Extension's OnRequest hook (the host's pace)
// with Apply, on Colly's LimitRule with plain Colly. The heap is read
// with runtime.ReadMemStats after a GC before and after the N Visits;
// plain Colly's figure is what Colly itself keeps per waiting request
// (its goroutine's request, context and headers), and the difference is
// the Extension's.
//
//	go test -run '^$' -bench BenchmarkQueuedMemory -benchtime 1x -count 3 .

import (
	"context"
	"log/slog"
	"net/http"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/simhost"
)

// BenchmarkQueuedMemory reports heap bytes and objects per queued URL,
// with plain Colly and with Apply.
func BenchmarkQueuedMemory(b *testing.B) {
	const hosts, queued = 20, 10000
	for _, plain := range []bool{true, false} {
		name := "robotsext"
		if plain {
			name = "colly"
		}
		b.Run(name, func(b *testing.B) {
			var bytes, objects float64
			for range b.N {
				bytes, objects = queuedMemory(b, plain, hosts, queued)
			}
			b.ReportMetric(bytes, "B/queued")
			b.ReportMetric(objects, "objects/queued")
		})
	}
}

// queuedMemory queues n URLs over hosts paced hosts and returns the heap
// bytes and objects each one added while it waits.
func queuedMemory(b *testing.B, plain bool, hosts, n int) (bytes, objects float64) {
	srv := simhost.New(hosts, func(int) simhost.Spec {
		return simhost.Spec{Robots: simhost.Delay, Delay: time.Second, Pages: n + 1, PageLatency: time.Hour}
	})
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := colly.NewCollector(colly.Async(true), colly.StdlibContext(ctx))
	c.WithTransport(srv.Transport())
	// hosts slots: the first page of each host holds one, and every other
	// URL waits, for the pace (Apply) or for a slot (plain Colly).
	_ = c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: hosts})
	var entered atomic.Int64
	c.OnRequest(func(*colly.Request) { entered.Add(1) }) // before the Extension's hook
	if plain {
		c.IgnoreRobotsTxt = true
	} else {
		Apply(c, WithLogger(slog.New(slog.DiscardHandler)),
			WithHTTPClient(&http.Client{Transport: srv.Transport(), Timeout: 10 * time.Second}))
	}
	for i := range hosts {
		_ = c.Visit(simhost.URL(i, 0))
	}
	settle(b, func() bool { return srv.InFlight() == hosts })
	before := heap()
	for k := range n {
		_ = c.Visit(simhost.URL(k%hosts, 1+k/hosts))
	}
	settle(b, func() bool { return entered.Load() == int64(hosts+n) })
	// The last requests entered the hook (or Colly's wait) just now: give
	// their goroutines real time to reach the wait and allocate what it
	// keeps. A benchmark, so a bounded real wait is the measurement.
	time.Sleep(200 * time.Millisecond)
	after := heap()
	if got := srv.InFlight(); got != hosts {
		b.Fatalf("%d pages in flight, want %d: URLs did not wait", got, hosts)
	}
	cancel()
	srv.Close()
	c.Wait()
	return float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n),
		float64(int64(after.HeapObjects)-int64(before.HeapObjects)) / float64(n)
}

// heap returns the memory statistics after a full GC.
func heap() runtime.MemStats {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m
}

// settle polls ok until it holds, failing b after 30 s.
func settle(b *testing.B, ok func() bool) {
	for deadline := time.Now().Add(30 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatal("not settled in 30 s")
		}
	}
}
