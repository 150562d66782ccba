package redisbackend

// Round trips through the core: an Extension with this Backend, driven by
// a Colly collector, on a real redis-server, with every command counted
// by a go-redis hook.

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext"
)

// countingHook counts the commands a client sends, one round trip each,
// but those naming a key of skip (a pipeline: its first command).
type countingHook struct {
	n    atomic.Int64
	skip []string
}

// skips reports whether cmd names a key of h.skip.
func (h *countingHook) skips(cmd redis.Cmder) bool {
	for _, k := range h.skip {
		if slices.Contains(cmd.Args(), any(k)) {
			return true
		}
	}
	return false
}

func (h *countingHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *countingHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !h.skips(cmd) {
			h.n.Add(1)
		}
		return next(ctx, cmd)
	}
}

func (h *countingHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if len(cmds) == 0 || !h.skips(cmds[0]) {
			h.n.Add(1)
		}
		return next(ctx, cmds)
	}
}

// robotsSite serves robots.txt with body and a tiny page elsewhere.
func robotsSite(t testing.TB, body string) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, body)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(s.Close)
	return s
}

// TestRoundTrips: once an origin's robots.txt is cached, a request to a
// host that states "Crawl-delay: 0" costs no Redis round trip, and one to
// a paced host, by its Crawl-delay or by the default pace of a robots.txt
// that states none, costs exactly three (Queue when the request is made,
// ClaimTurn with its token right before the wire, Unclaim when its
// response headers came). The delays are a microsecond, so that no call
// is told to wait and asked again. With a delay that makes each request
// wait, the worker first waits out its own claim and delay in the
// process (the fleet's wait before Colly's slot), so the Queue that
// follows is mostly granted at once: at least the same three, and now
// and then one Queue more that says "not yet" (logged, not counted
// exactly: the Queue may come a hair early by the server's clock).
func TestRoundTrips(t *testing.T) {
	srv := startRedisServer(t)
	c := newClient(t, "unix", srv.Sock)
	b := New(c, WithHeartbeat(-1))
	// The Extension reads the purge log every 2 s, and the pauses begun
	// every 0.5 to 5 s, whatever the traffic: not a cost per request.
	hook := &countingHook{skip: []string{b.keys.purges(), b.keys.pauses(), b.keys.pauseLog()}}
	c.AddHook(hook)
	// Read the maxmemory-policy now, not in the background within the
	// counted requests.
	if _, err := b.CheckEviction(t.Context()); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		robots   string
		delay    time.Duration // WithDefaultDelay
		want     int64         // round trips per request; 0 with atLeast: at least that many
		atLeast  int64
		requests int
	}{
		{"Crawl-delay: 0", "User-agent: *\nDisallow: /private/\nCrawl-delay: 0\n", time.Microsecond, 0, 0, 20},
		{"Crawl-delay", "User-agent: *\nDisallow: /private/\nCrawl-delay: 0.000001\n", time.Microsecond, 3, 0, 20},
		{"robots.txt states no delay: the default pace", "User-agent: *\nDisallow: /private/\n", time.Microsecond, 3, 0, 20},
		{"the default pace, each request waiting", "User-agent: *\nDisallow: /private/\n", 50 * time.Millisecond, 0, 3, 5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			site := robotsSite(t, tc.robots)
			col := colly.NewCollector(colly.AllowURLRevisit())
			robotsext.Apply(col, robotsext.WithBackend(b), robotsext.WithDefaultDelay(tc.delay))
			if err := col.Visit(site.URL + "/warm-up"); err != nil {
				t.Fatal(err)
			}
			t.Logf("first request (load, lease, fetch, store): %d round trips", hook.n.Load())
			n := tc.requests
			before := hook.n.Load()
			for i := range n {
				if err := col.Visit(fmt.Sprintf("%s/page%d", site.URL, i)); err != nil {
					t.Fatal(err)
				}
			}
			got := hook.n.Load() - before
			t.Logf("%s: %d round trips for %d cached requests", tc.name, got, n)
			switch {
			case tc.atLeast > 0 && got < tc.atLeast*int64(n):
				t.Errorf("%d round trips for %d requests; want at least %d each", got, n, tc.atLeast)
			case tc.atLeast == 0 && got != tc.want*int64(n):
				t.Errorf("%d round trips for %d requests; want %d each", got, n, tc.want)
			}
			hook.n.Store(0)
		})
	}
}

// BenchmarkHookRoundTrip: the time a paced request spends on its Redis
// round trips, over loopback TCP, measured as the Start, Claim and Unclaim
// calls its hooks make (timed by a hook on the client: the rest of
// a Colly request, HTTP included, is not the backend's cost).
func BenchmarkHookRoundTrip(b *testing.B) {
	srv := startRedisServerTCP(b)
	c := newClient(b, "tcp", srv.Addr)
	lat := &latencyHook{}
	c.AddHook(lat)
	be := New(c, WithHeartbeat(-1))
	site := robotsSite(b, "User-agent: *\nCrawl-delay: 0.000001\n")
	col := colly.NewCollector(colly.AllowURLRevisit())
	robotsext.Apply(col, robotsext.WithBackend(be))
	if err := col.Visit(site.URL + "/warm-up"); err != nil {
		b.Fatal(err)
	}
	lat.reset()
	for i := 0; b.Loop(); i++ {
		if err := col.Visit(fmt.Sprintf("%s/page%d", site.URL, i)); err != nil {
			b.Fatal(err)
		}
	}
	p50, n := lat.p50()
	b.ReportMetric(float64(n)/float64(b.N), "roundtrips/op")
	b.ReportMetric(float64(p50), "redis-p50-ns/op")
}

// latencyHook times each command.
type latencyHook struct {
	mu  sync.Mutex
	lat []time.Duration
}

func (h *latencyHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *latencyHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		start := time.Now()
		err := next(ctx, cmd)
		h.mu.Lock()
		h.lat = append(h.lat, time.Since(start))
		h.mu.Unlock()
		return err
	}
}

func (h *latencyHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func (h *latencyHook) reset() {
	h.mu.Lock()
	h.lat = h.lat[:0]
	h.mu.Unlock()
}

// p50 returns the median latency and the number of commands timed.
func (h *latencyHook) p50() (time.Duration, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.lat) == 0 {
		return 0, 0
	}
	s := slices.Clone(h.lat)
	slices.Sort(s)
	return s[len(s)/2], len(s)
}
