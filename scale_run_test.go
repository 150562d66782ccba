package robotsext

// This file runs one crawl of simulated hosts (internal/simhost) through
// Colly, with or without the Extension, and measures it from the
// collector's side: pages/s, CPU, peak heap, the slot-time spent at the
// Extension's gate, page latencies. bench_scale_test.go and the pace
// stress test build on it.

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"runtime/metrics"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/simhost"
)

// scaleCrawl is one crawl of a simhost.Server.
type scaleCrawl struct {
	srv   *simhost.Server
	plain bool // plain Colly: no Extension (Colly's own robots.txt check off too)
	// robots, with plain, has plain Colly GET each host's robots.txt once
	// (body read, not parsed) before its first page, with the client the
	// Extension would use: the requests the Extension adds, without it.
	robots bool
	opts   []Option      // the Extension's options, after the robots.txt client
	par    int           // the LimitRule's Parallelism
	follow bool          // visit the links of each page
	limit  time.Duration // the crawl is cancelled after this long
	// feed visits the crawl's URLs: visit(url) hands one to Colly. It
	// returns when all are handed over (it may pace them itself).
	feed func(ctx context.Context, visit func(string))
	// apply, when set, is given the Extension once applied.
	apply func(*Extension)
	// collector, when set, is given the collector after Apply (a retry
	// idiom's callbacks, say).
	collector func(*colly.Collector)
}

// scaleResult is what a scaleCrawl measured.
type scaleResult struct {
	took      time.Duration
	pages     int           // pages answered 2xx
	cpu       time.Duration // the process's CPU time (the server's included)
	peakHeap  uint64        // the most heap bytes in live and unswept objects, sampled
	slot      time.Duration // summed slot-time: from the first OnRequestHeaders to the response's end
	gate      time.Duration // of it, inside the Extension's OnRequestHeaders hook
	gateMax   int64         // the most requests in that hook at once
	dials     int64         // connections opened to the server
	latencies map[string]time.Duration
	done      []time.Duration // when each page was answered, since the crawl began
	server    simhost.Report
}

// gateShare is the share of slot-time spent at the gate.
func (r scaleResult) gateShare() float64 {
	if r.slot <= 0 {
		return 0
	}
	return float64(r.gate) / float64(r.slot)
}

// latency returns the q-quantile (0..1) of the latencies of the pages
// whose URL keep accepts (all when keep is nil).
func (r scaleResult) latency(q float64, keep func(string) bool) time.Duration {
	var ds []time.Duration
	for u, d := range r.latencies {
		if keep == nil || keep(u) {
			ds = append(ds, d)
		}
	}
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	return ds[min(len(ds)-1, int(q*float64(len(ds))))]
}

// to90 is when 90% of the pages were answered, since the crawl began.
func (r scaleResult) to90() time.Duration {
	if len(r.done) == 0 {
		return 0
	}
	ds := slices.Sorted(slices.Values(r.done))
	return ds[(len(ds)-1)*9/10]
}

// run crawls; the crawl ends by itself at sc.limit at the latest.
func (sc scaleCrawl) run() scaleResult {
	ctx, cancel := context.WithTimeout(context.Background(), sc.limit)
	defer cancel()
	c := colly.NewCollector(colly.Async(true), colly.UserAgent("ScaleBot/1.0"), colly.StdlibContext(ctx))
	// robots.txt goes out on the pages' transport: the Extension's by
	// default (no WithHTTPClient), plain Colly's through a client on it.
	tr := sc.srv.Transport()
	c.WithTransport(tr)
	robotsClient := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	_ = c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: sc.par})
	var (
		mu      sync.Mutex
		visited = map[string]time.Time{} // when each URL was handed to Colly
		entered = map[*colly.Request]time.Time{}
		res     = scaleResult{latencies: map[string]time.Duration{}}
		atGate  atomic.Int64
	)
	start := time.Now()
	c.OnRequestHeaders(func(r *colly.Request) { // before the Extension's: the slot is held
		mu.Lock()
		entered[r] = time.Now()
		mu.Unlock()
		n := atGate.Add(1)
		for m := atomic.LoadInt64(&res.gateMax); n > m && !atomic.CompareAndSwapInt64(&res.gateMax, m, n); m = atomic.LoadInt64(&res.gateMax) {
		}
	})
	if sc.plain {
		c.IgnoreRobotsTxt = true
		if sc.robots {
			c.OnRequest(fetchRobotsOnce(robotsClient))
		}
	} else {
		opts := append([]Option{WithLogger(slog.New(slog.DiscardHandler))}, sc.opts...)
		ext := Apply(c, opts...)
		if sc.apply != nil {
			sc.apply(ext)
		}
	}
	if sc.collector != nil {
		sc.collector(c)
	}
	c.OnRequestHeaders(func(r *colly.Request) { // after the Extension's gate
		atGate.Add(-1)
		now := time.Now()
		mu.Lock()
		res.gate += now.Sub(entered[r])
		mu.Unlock()
	})
	end := func(r *colly.Request, ok bool) {
		now := time.Now()
		mu.Lock()
		defer mu.Unlock()
		if t0, in := entered[r]; in {
			res.slot += now.Sub(t0)
			delete(entered, r)
		}
		if ok && r.URL != nil && strings.HasPrefix(r.URL.Path, "/p/") {
			res.pages++
			u := r.URL.String()
			res.latencies[u] = now.Sub(visited[u])
			res.done = append(res.done, now.Sub(start))
		}
	}
	visit := func(u string) {
		mu.Lock()
		if _, seen := visited[u]; !seen {
			visited[u] = time.Now()
		}
		mu.Unlock()
		_ = c.Visit(u)
	}
	c.OnResponse(func(r *colly.Response) { end(r.Request, true) })
	c.OnError(func(r *colly.Response, _ error) { end(r.Request, false) })
	if sc.follow {
		c.OnHTML("a[href]", func(e *colly.HTMLElement) { visit(e.Request.AbsoluteURL(e.Attr("href"))) })
	}
	stopHeap := sampleHeap(&res.peakHeap)
	cpu0 := processCPU()
	sc.feed(ctx, visit)
	c.Wait()
	res.took = time.Since(start)
	res.cpu = processCPU() - cpu0
	res.dials = sc.srv.Dials()
	stopHeap()
	res.server = sc.srv.Report(func(i int) time.Duration { return scaleDelay(sc.srv.Spec(i)) })
	return res
}

// scaleDelay is the pace the Extension keeps for a simulated host: its
// stated delay, DefaultDelay when it states none, 0 when its pages are
// not fetched or it states 0.
func scaleDelay(s simhost.Spec) time.Duration {
	switch {
	case !s.Crawlable():
		return 0
	case s.Robots == simhost.Delay:
		return s.Delay
	}
	return DefaultDelay
}

// sampleHeap records in peak the most heap bytes in objects seen every
// 20 ms until the returned func is called.
func sampleHeap(peak *uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if s[0].Value.Kind() == metrics.KindUint64 {
				*peak = max(*peak, s[0].Value.Uint64())
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// seedAll is a feed that visits page 0 of every host at once.
func seedAll(srv *simhost.Server) func(context.Context, func(string)) {
	return func(_ context.Context, visit func(string)) {
		for i := range srv.Hosts() {
			visit(simhost.URL(i, 0))
		}
	}
}

// seedPages is a feed that visits every page of every host at once, page
// 0 of every host first.
func seedPages(srv *simhost.Server) func(context.Context, func(string)) {
	return func(_ context.Context, visit func(string)) {
		most := 0
		for i := range srv.Hosts() {
			most = max(most, srv.Spec(i).Pages)
		}
		for p := range most {
			for i := range srv.Hosts() {
				if p < srv.Spec(i).Pages {
					visit(simhost.URL(i, p))
				}
			}
		}
	}
}

// fetchRobotsOnce is an OnRequest callback that GETs the robots.txt of
// each host once, before its first request goes on, and reads its body.
func fetchRobotsOnce(cl *http.Client) colly.RequestCallback {
	var hosts sync.Map // host → *sync.Once
	return func(r *colly.Request) {
		o, _ := hosts.LoadOrStore(r.URL.Host, new(sync.Once))
		o.(*sync.Once).Do(func() {
			resp, err := cl.Get("http://" + r.URL.Host + "/robots.txt")
			if err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}
