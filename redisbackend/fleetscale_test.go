package redisbackend

// The fleet at scale: one worker against two on one redis-server over
// loopback TCP, each worker an Async collector with Parallelism 64 and a
// go-redis client of its own, crawling many paced hosts whose URLs are
// all enqueued at once, as a crawl seeded with thousands of URLs does.
// Every request then asks the Backend for its turn at the same moment,
// far more calls at once than a client's pool has connections.

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext"
)

// scaleSetting is an integer setting of BenchmarkFleetScale, read from
// the environment variable name, def when unset or not a number.
func scaleSetting(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n >= 0 {
		return n
	}
	return def
}

// scaleSite is one loopback server answering for every host name: each
// host's robots.txt asks for delay, and its pages are small HTML.
type scaleSite struct {
	*httptest.Server
	robots atomic.Int64 // robots.txt requests, all hosts
	pages  atomic.Int64 // page requests, all hosts
}

func newScaleSite(t testing.TB, delay time.Duration) *scaleSite {
	s := &scaleSite{}
	robots := fmt.Sprintf("User-agent: *\nCrawl-delay: %g\n", delay.Seconds())
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			s.robots.Add(1)
			fmt.Fprint(w, robots)
			return
		}
		s.pages.Add(1)
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, "<html><body><p>%s%s</p></body></html>", r.Host, r.URL.Path)
	}))
	t.Cleanup(s.Close)
	return s
}

// transport routes every host name to the site, as a crawl of many
// hosts would reach many servers.
func (s *scaleSite) transport() *http.Transport {
	addr := s.Listener.Addr().String()
	var d net.Dialer
	return &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
		// One idle connection per host, few in all: thousands of hosts
		// would otherwise keep thousands of sockets open at both ends.
		MaxIdleConns:        128,
		MaxIdleConnsPerHost: 1,
		IdleConnTimeout:     time.Second,
	}
}

// scaleRun is what one crawl of BenchmarkFleetScale measured.
type scaleRun struct {
	pages    int // answered
	elapsed  time.Duration
	calls    int            // Redis calls the workers' clients sent
	by       map[string]int // of them, by op
	extErrs  uint64         // Stats.BackendErrors, all workers
	redis    Stats          // the Backends' counters, summed
	poolSize int            // each client's pool
}

// crawlScale crawls hosts × perHost pages of s with workers workers, each
// with a client made by newClient, the Backend's defaults but the prefix
// and WithFleetSize, and an Async collector with Parallelism 64 that has
// every URL of its share enqueued at once. The fleet's k-th page goes to
// host k mod hosts and to worker (k / hosts) mod workers: every host's
// pages are shared by the workers, round robin.
func crawlScale(t testing.TB, s *scaleSite, workers, hosts, perHost int, prefix string, newClient func() *redis.Client) scaleRun {
	t.Helper()
	log := &callLog{}
	type worker struct {
		c   *colly.Collector
		ext *robotsext.Extension
		b   *Backend
	}
	var run scaleRun
	ws := make([]worker, workers)
	for i := range ws {
		client := newClient()
		t.Cleanup(func() { _ = client.Close() })
		client.AddHook(log)
		run.poolSize = client.Options().PoolSize
		b := New(client, WithPrefix(prefix), WithWorkerID(fmt.Sprintf("w%d", i)), WithFleetSize(workers))
		t.Cleanup(func() { _ = b.Close(context.Background()) })
		c := colly.NewCollector(colly.UserAgent(fmt.Sprintf("scalebot/1.0 (worker w%d)", i)), colly.Async(true), colly.AllowURLRevisit())
		tr := s.transport()
		c.WithTransport(tr)
		if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 64}); err != nil {
			t.Fatal(err)
		}
		logs := slog.DiscardHandler
		if os.Getenv("FLEETSCALE_LOG") != "" {
			logs = slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}).WithAttrs([]slog.Attr{slog.Int("worker", i)})
		}
		ext := robotsext.Apply(c, robotsext.WithBackend(b), robotsext.WithHTTPClient(&http.Client{Transport: tr}),
			robotsext.WithLogger(slog.New(logs)))
		ws[i] = worker{c, ext, b}
	}
	var got atomic.Int64
	for _, w := range ws {
		w.c.OnResponse(func(*colly.Response) { got.Add(1) })
	}
	var wg sync.WaitGroup
	started := time.Now()
	for i, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range hosts * perHost {
				if (k/hosts)%workers == i {
					_ = w.c.Visit(fmt.Sprintf("http://h%05d.test/w%d/page%d", k%hosts, i, k))
				}
			}
			w.c.Wait()
		}()
	}
	wg.Wait()
	run.elapsed = time.Since(started)
	run.pages = int(got.Load())
	run.by, run.calls = log.between(started, time.Now().Add(time.Second))
	for _, w := range ws {
		run.extErrs += w.ext.Stats().BackendErrors
		st := w.b.Stats()
		run.redis.Calls += st.Calls
		run.redis.Errors += st.Errors
		run.redis.Rejected += st.Rejected
		run.redis.Trips += st.Trips
	}
	return run
}

// BenchmarkFleetScale: one worker, then two, each an Async collector with
// Parallelism 64 and a go-redis client of its own (the client options of
// the docs: 250 ms timeouts, ContextTimeoutEnabled, MaxRetries 1, and
// go-redis's default pool unless FLEETSCALE_POOL sets one), crawl
// FLEETSCALE_HOSTS hosts (5,000) × FLEETSCALE_PAGES pages (4) on one
// loopback server, each host's robots.txt asking for Crawl-delay
// FLEETSCALE_DELAY_MS (250 ms): a cap of hosts/delay pages a second for
// the fleet, above what one worker does. Every worker enqueues its share
// of the URLs at once. It reports pages/s, Redis calls per page counted
// at the clients (robots.txt, heartbeats and connections included), the
// Backend calls that failed as the Extension saw them and as Redis calls
// (Stats.Errors, and Rejected by an open breaker), and the breaker's
// openings. Run it -benchtime=1x: each iteration is a whole crawl;
// FLEETSCALE_LOG=1 prints the Extensions' warnings (a fallback and its
// cause) on stderr.
func BenchmarkFleetScale(b *testing.B) {
	hosts := scaleSetting("FLEETSCALE_HOSTS", 5000)
	perHost := scaleSetting("FLEETSCALE_PAGES", 4)
	delay := time.Duration(scaleSetting("FLEETSCALE_DELAY_MS", 250)) * time.Millisecond
	pool := scaleSetting("FLEETSCALE_POOL", 0)
	srv := startRedisServerTCP(b)
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				site := newScaleSite(b, delay)
				run := crawlScale(b, site, workers, hosts, perHost, fmt.Sprintf("scale%d-%d:", workers, i), func() *redis.Client {
					o := clientOptions("tcp", srv.Addr)
					o.PoolSize = pool // 0: go-redis's default, 10 per GOMAXPROCS
					return redis.NewClient(o)
				})
				pages := hosts * perHost
				if run.pages != pages {
					b.Errorf("%d pages answered; want %d", run.pages, pages)
				}
				b.ReportMetric(float64(run.pages)/run.elapsed.Seconds(), "pages/s")
				b.ReportMetric(float64(run.calls)/float64(pages), "calls/page")
				b.ReportMetric(float64(run.extErrs), "backend-errors")
				b.ReportMetric(float64(run.redis.Errors), "redis-errors")
				b.ReportMetric(float64(run.redis.Rejected), "rejected")
				b.ReportMetric(float64(run.redis.Trips), "breaker-trips")
				b.Logf("%d workers (pool %d), %d hosts × %d pages in %v: %.0f pages/s, %.2f calls/page (%s); "+
					"Extension backend errors %d, Redis errors %d, rejected %d, breaker openings %d; robots.txt %d",
					workers, run.poolSize, hosts, perHost, run.elapsed.Round(time.Millisecond),
					float64(run.pages)/run.elapsed.Seconds(), float64(run.calls)/float64(pages), perPage(run.by, pages),
					run.extErrs, run.redis.Errors, run.redis.Rejected, run.redis.Trips, site.robots.Load())
			}
		})
	}
}
