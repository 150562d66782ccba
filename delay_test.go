package robotsext

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
)

// paceEpoch is the fake clock's zero; at turns seconds after it into a time.
var paceEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func paceAt(sec float64) time.Time { return paceEpoch.Add(paceSecs(sec)) }

func paceSecs(sec float64) time.Duration { return time.Duration(sec * float64(time.Second)) }

func TestEffectiveDelay(t *testing.T) {
	t.Parallel()
	const maxDelay = 60 * time.Second
	tests := []struct {
		name           string
		delay          time.Duration
		ok             bool
		want           time.Duration
		paced, clamped bool
	}{
		{"none", 0, false, 0, false, false},
		{"not ok ignores value", time.Second, false, 0, false, false},
		{"zero", 0, true, 0, false, false},
		{"negative", -time.Second, true, 0, false, false},
		{"fraction", 300 * time.Millisecond, true, 300 * time.Millisecond, true, false},
		{"one second", time.Second, true, time.Second, true, false},
		{"at the cap", maxDelay, true, maxDelay, true, false},
		{"above the cap", maxDelay + 1, true, maxDelay, true, true},
		{"saturated parse", math.MaxInt64, true, maxDelay, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, paced, clamped := effectiveDelay(tt.delay, tt.ok, maxDelay)
			if d != tt.want || paced != tt.paced || clamped != tt.clamped {
				t.Errorf("effectiveDelay(%v, %v) = %v, %v, %v; want %v, %v, %v",
					tt.delay, tt.ok, d, paced, clamped, tt.want, tt.paced, tt.clamped)
			}
		})
	}
}

// paceStep is one event in a pacer schedule: a robots.txt load (load true) or a
// request arriving at the hook, which must be told to wait exactly wait.
type paceStep struct {
	at    float64 // seconds on the fake clock
	host  string
	load  bool
	delay float64 // load: seconds; ≤ 0 means the file has no delay
	wait  float64 // request: seconds the pacer must ask it to wait
}

func paceLoad(at float64, host string, delay float64) paceStep {
	return paceStep{at: at, host: host, load: true, delay: delay}
}

func paceReq(at float64, host string, wait float64) paceStep {
	return paceStep{at: at, host: host, wait: wait}
}

func TestPacerSchedule(t *testing.T) {
	t.Parallel()
	const a, b = "a.example", "b.example:8080"
	tests := []struct {
		name  string
		max   float64
		steps []paceStep
	}{
		{"unknown host is not paced", 0, []paceStep{
			paceReq(0, a, 0), paceReq(0, a, 0),
		}},
		{"robots.txt request counts toward the pace", 0, []paceStep{
			paceLoad(0, a, 1), paceReq(0.1, a, 0.9),
		}},
		{"first request after the delay goes at once", 0, []paceStep{
			paceLoad(0, a, 1), paceReq(2, a, 0), paceReq(2.5, a, 0.5),
		}},
		{"requests arriving together get consecutive slots", 0, []paceStep{
			paceLoad(0, a, 0.3), paceReq(0, a, 0.3), paceReq(0, a, 0.6), paceReq(0, a, 0.9), paceReq(0.5, a, 0.7),
		}},
		{"Request-rate interval spaces starts, not ends", 0, []paceStep{
			// Request-rate 1/1s as Policy.CrawlDelay reports it: 1 s.
			paceLoad(0, a, 1), paceReq(1, a, 0), paceReq(1.2, a, 0.8), paceReq(2.05, a, 0.95),
		}},
		{"slower user LimitRule: pacer adds nothing (max, not sum)", 0, []paceStep{
			// Colly's rule sleeps 0.5 s after each response (10 ms) before
			// the next request reaches the hook: 0.3+0.01+0.5 = 0.81.
			paceLoad(0, a, 0.3), paceReq(0.3, a, 0), paceReq(0.81, a, 0), paceReq(1.32, a, 0),
		}},
		{"faster user LimitRule: pacer fills up to the delay", 0, []paceStep{
			// Colly's rule sleeps 0.3 s after each 10 ms response.
			paceLoad(0, a, 1), paceReq(1, a, 0), paceReq(1.31, a, 0.69), paceReq(2.31, a, 0.69),
		}},
		{"changed delay on re-fetch takes effect", 0, []paceStep{
			paceLoad(0, a, 1), paceReq(1, a, 0), paceLoad(5, a, 3), paceReq(5.5, a, 2.5), paceReq(8, a, 3),
		}},
		{"shorter delay on re-fetch takes effect", 0, []paceStep{
			paceLoad(0, a, 3), paceReq(3, a, 0), paceLoad(10, a, 1), paceReq(10, a, 1), paceReq(11, a, 1),
		}},
		{"delay removed on re-fetch stops pacing", 0, []paceStep{
			paceLoad(0, a, 1), paceReq(1, a, 0), paceLoad(1.5, a, 0), paceReq(1.5, a, 0), paceReq(1.5, a, 0),
		}},
		{"re-fetch counts toward the pace", 0, []paceStep{
			paceLoad(0, a, 1), paceReq(1, a, 0), paceLoad(1.5, a, 1), paceReq(1.6, a, 0.9),
		}},
		{"re-fetch given a slot by wait is not counted twice", 0, []paceStep{
			paceLoad(0, a, 1), paceReq(1, a, 0), paceReq(1.2, a, 0.8), paceLoad(2, a, 1), paceReq(2, a, 1),
		}},
		{"hosts are paced independently", 0, []paceStep{
			paceLoad(0, a, 1), paceLoad(0, b, 0.2),
			paceReq(0, a, 1), paceReq(0, b, 0.2), paceReq(0, b, 0.4), paceReq(0, a, 2), paceReq(0, b, 0.6),
		}},
		{"ports are different hosts", 0, []paceStep{
			paceLoad(0, "h:8080", 1), paceReq(0, "h:8081", 0), paceReq(0, "h", 0), paceReq(0, "h:8080", 1),
		}},
		{"IPv6 literal with port", 0, []paceStep{
			paceLoad(0, "[::1]:8080", 1), paceReq(0, "[::1]:8080", 1), paceReq(0, "[::1]", 0), paceReq(0, "[::1]:80", 0),
		}},
		{"host names are case-insensitive", 0, []paceStep{
			paceLoad(0, "Example.COM", 1), paceReq(0, "example.com", 1), paceReq(0, "EXAMPLE.com", 2),
		}},
		{"delay above the cap is clamped", 2, []paceStep{
			paceLoad(0, a, 30), paceReq(0, a, 2), paceReq(0, a, 4),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pc := newPacer(paceSecs(tt.max), nil)
			for i, s := range tt.steps {
				if s.load {
					pc.loaded(s.host, paceSecs(s.delay), s.delay > 0, paceAt(s.at))
					continue
				}
				if got, want := pc.reserve(s.host, paceAt(s.at)), paceSecs(s.wait); !nearDuration(got, want) {
					t.Errorf("paceStep %d: request to %s at %vs waits %v, want %v", i, s.host, s.at, got, want)
				}
			}
		})
	}
}

// near reports whether two durations built from float seconds agree to a
// microsecond (float arithmetic in the table may be off by a nanosecond).
func nearDuration(a, b time.Duration) bool { return (a - b).Abs() < time.Microsecond }

// paceClock is a pacer clock that never sleeps: sleep advances it.
type paceClock struct {
	mu     sync.Mutex
	t      time.Time
	sleeps []time.Duration
}

func (c *paceClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *paceClock) sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
	c.sleeps = append(c.sleeps, d)
	return nil
}

func (c *paceClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newFakePacer(maxDelay time.Duration, logger *slog.Logger) (*pacer, *paceClock) {
	clk := &paceClock{t: paceEpoch}
	pc := newPacer(maxDelay, logger)
	pc.now, pc.sleep = clk.now, clk.sleep
	return pc, clk
}

func TestPacerWaitSleepsUntilSlot(t *testing.T) {
	t.Parallel()
	pc, clk := newFakePacer(0, nil)
	pc.loaded("a.example", 300*time.Millisecond, true, paceEpoch)
	for range 3 {
		if err := pc.wait(context.Background(), "a.example"); err != nil {
			t.Fatal(err)
		}
	}
	want := []time.Duration{300 * time.Millisecond, 300 * time.Millisecond, 300 * time.Millisecond}
	if !slices.Equal(clk.sleeps, want) {
		t.Errorf("sleeps = %v, want %v", clk.sleeps, want)
	}
	if got := clk.now(); !got.Equal(paceAt(0.9)) {
		t.Errorf("clock after three requests = %v, want 0.9 s after the robots.txt request", got.Sub(paceEpoch))
	}
}

func TestPacerWaitCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		load bool
	}{{"paced host", true}, {"unpaced host", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The real clock: with a cancelled context wait must return
			// at once instead of sleeping the hour.
			pc := newPacer(2*time.Hour, nil)
			if tc.load {
				pc.loaded("a.example", time.Hour, true, time.Now())
			}
			if err := pc.wait(ctx, "a.example"); !errors.Is(err, context.Canceled) {
				t.Errorf("wait = %v, want context.Canceled", err)
			}
		})
	}
}

func TestSleepCtx(t *testing.T) {
	t.Parallel()
	if err := sleepCtx(context.Background(), 0); err != nil {
		t.Errorf("sleepCtx(0) = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sleepCtx(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("sleepCtx(cancelled, 1h) = %v, want context.Canceled", err)
	}
}

func TestPacerClampCountedAndLoggedOncePerHost(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(paceLog{&mu, &buf}, nil))
	pc, _ := newFakePacer(2*time.Second, logger)

	pc.loaded("a.example", time.Hour, true, paceEpoch)
	pc.loaded("a.example", time.Hour, true, paceAt(10)) // re-fetch: counted, not logged again
	pc.loaded("b.example", 3*time.Second, true, paceEpoch)
	pc.loaded("c.example", time.Second, true, paceEpoch) // under the cap
	pc.loaded("d.example", 0, false, paceEpoch)

	if got := pc.clamped(); got != 3 {
		t.Errorf("clamped() = %d, want 3", got)
	}
	mu.Lock()
	out := buf.String()
	mu.Unlock()
	if n := strings.Count(out, "clamped"); n != 2 {
		t.Errorf("logged %d clamp warnings, want 2 (one per host):\n%s", n, out)
	}
	for _, host := range []string{"host=a.example", "host=b.example"} {
		if !strings.Contains(out, host) {
			t.Errorf("log lacks %s:\n%s", host, out)
		}
	}
}

type paceLog struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w paceLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func TestNewPacerDefaultMax(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{0, -time.Second} {
		if got := newPacer(d, nil).max; got != defaultMaxCrawlDelay {
			t.Errorf("newPacer(%v).max = %v, want %v", d, got, defaultMaxCrawlDelay)
		}
	}
}

func TestPacerForget(t *testing.T) {
	t.Parallel()
	const a, b, c = "a.example", "b.example", "c.example"
	tests := []struct {
		name string
		run  func(pc *pacer, clk *paceClock)
		kept []string // hosts still paced at the end
	}{
		{"hosts without a delay take no memory", func(pc *pacer, clk *paceClock) {
			pc.loaded(a, time.Second, true, paceEpoch)
			pc.loaded(b, 0, false, paceEpoch)
		}, []string{a}},
		{"idle entry is dropped at once", func(pc *pacer, clk *paceClock) {
			pc.loaded(a, time.Second, true, paceEpoch)
			clk.advance(2 * forgetGrace)
			pc.forget("A.example")
		}, nil},
		{"fresh entry is spared, then swept", func(pc *pacer, clk *paceClock) {
			pc.loaded(a, time.Second, true, paceEpoch)
			pc.forget(a)
			if d := pc.reserve(a, clk.now()); d != time.Second {
				t.Errorf("spared host waits %v, want 1s", d)
			}
			clk.advance(forgetGrace)
			pc.loaded(b, time.Second, true, clk.now()) // sweeps
		}, []string{b}},
		{"spared entry loaded again (twin origin) survives the sweep", func(pc *pacer, clk *paceClock) {
			pc.loaded(a, time.Second, true, paceEpoch)
			pc.forget(a)
			pc.loaded(a, time.Second, true, paceEpoch) // https://a loaded as http://a was evicted
			clk.advance(2 * forgetGrace)
			pc.loaded(b, time.Second, true, clk.now())
		}, []string{a, b}},
		{"spared entry whose delay is removed", func(pc *pacer, clk *paceClock) {
			pc.loaded(a, time.Second, true, paceEpoch)
			pc.forget(a)
			pc.forget(a)
			pc.loaded(a, 0, false, paceEpoch)
			clk.advance(2 * forgetGrace)
			pc.loaded(c, time.Second, true, clk.now())
		}, []string{c}},
		{"unknown host", func(pc *pacer, clk *paceClock) {
			pc.forget(a)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pc, clk := newFakePacer(0, nil)
			tt.run(pc, clk)
			var kept []string
			for _, r := range pc.rules() {
				kept = append(kept, strings.TrimSuffix(strings.TrimPrefix(r.DomainRegexp, `(?i)^`), `$`))
			}
			var want []string
			for _, h := range tt.kept {
				want = append(want, regexp.QuoteMeta(h))
			}
			if !slices.Equal(kept, want) {
				t.Errorf("paced hosts = %q, want %q", kept, want)
			}
			pc.mu.Lock()
			doomed := 0
			for _, h := range pc.hosts {
				if h.forgotten {
					doomed++
				}
			}
			if doomed != pc.doomed {
				t.Errorf("doomed = %d, but %d entries are marked", pc.doomed, doomed)
			}
			pc.mu.Unlock()
			for _, h := range []string{a, b, c} {
				if !slices.Contains(tt.kept, h) {
					if d := pc.reserve(h, clk.now()); d != 0 {
						t.Errorf("dropped host %s waits %v, want 0", h, d)
					}
				}
			}
		})
	}
}

// TestPacerConcurrentSlots has many goroutines ask for slots at the same
// instant: every slot must be distinct and spaced by the delay.
func TestPacerConcurrentSlots(t *testing.T) {
	t.Parallel()
	const n, d = 50, 200 * time.Millisecond
	pc := newPacer(0, nil)
	pc.loaded("a.example", d, true, paceEpoch)
	waits := make(chan time.Duration, n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { waits <- pc.reserve("a.example", paceEpoch) })
	}
	wg.Wait()
	close(waits)
	seen := make(map[time.Duration]bool)
	for w := range waits {
		if w <= 0 || w%d != 0 || w > n*d || seen[w] {
			t.Errorf("slot %v: not a distinct multiple of %v in (0, %v]", w, d, n*d)
		}
		seen[w] = true
	}
}

func TestPacerRules(t *testing.T) {
	t.Parallel()
	pc := newPacer(2*time.Second, nil)
	pc.loaded("[::1]:8080", 500*time.Millisecond, true, paceEpoch)
	pc.loaded("a.b.example", time.Hour, true, paceEpoch)
	pc.loaded("none.example", 0, false, paceEpoch)

	rs := pc.rules()
	if len(rs) != 2 {
		t.Fatalf("rules() = %d rules, want 2: %+v", len(rs), rs)
	}
	tests := []struct {
		rule    int
		delay   time.Duration
		match   []string
		noMatch []string
	}{
		{0, 500 * time.Millisecond,
			[]string{"[::1]:8080"},
			[]string{"[::1]:80800", "x[::1]:8080", "[::1]", "::1:8080", "[::2]:8080"}},
		{1, 2 * time.Second, // clamped
			[]string{"a.b.example", "A.B.EXAMPLE"},
			[]string{"aXb.example", "a.b.example:8080", "x.a.b.example", "a.b.examples"}},
	}
	for _, tt := range tests {
		r := rs[tt.rule]
		if r.Delay != tt.delay || r.Parallelism != 1 || r.DomainGlob != "" {
			t.Errorf("rule %d = %+v, want Delay %v, Parallelism 1, no glob", tt.rule, r, tt.delay)
		}
		if err := r.Init(); err != nil {
			t.Fatalf("rule %d (%q) does not initialise: %v", tt.rule, r.DomainRegexp, err)
		}
		for _, h := range tt.match {
			if !r.Match(h) {
				t.Errorf("rule %q does not match %q", r.DomainRegexp, h)
			}
		}
		for _, h := range tt.noMatch {
			if r.Match(h) {
				t.Errorf("rule %q matches %q", r.DomainRegexp, h)
			}
		}
	}
}

// arrivalSlack is how much earlier than the pacer's slot a request may be
// seen to arrive: the pacer spaces the moments requests leave the client,
// the servers record when they arrive, and loopback latency (a fresh dial
// for one request, a reused connection for the next) differs by up to a
// few milliseconds under -race. It keeps the bounds below lower bounds.
const arrivalSlack = 25 * time.Millisecond

// arrivals records when each request reached a test server, and its path.
type arrivals struct {
	mu    sync.Mutex
	times []time.Time
	paths []string
}

func (a *arrivals) snapshot() ([]time.Time, []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.times), slices.Clone(a.paths)
}

// pacedSite starts a loopback server (on ::1 when ipv6) that answers
// /robots.txt with robots and any other path with a tiny page, recording
// arrivals. It reports false when the address family is unavailable.
func pacedSite(t *testing.T, robots string, ipv6 bool) (*httptest.Server, *arrivals, bool) {
	t.Helper()
	a := &arrivals{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		now := time.Now()
		a.mu.Lock()
		a.times, a.paths = append(a.times, now), append(a.paths, r.URL.Path)
		a.mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, robots)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<html><body>page</body></html>")
	}))
	if ipv6 {
		l, err := net.Listen("tcp", "[::1]:0")
		if err != nil {
			return nil, nil, false
		}
		srv.Listener.Close()
		srv.Listener = l
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, a, true
}

// checkPace asserts that a saw robots.txt first, then pages pages, the
// first page at least first after robots.txt and each next page at least
// gap after the previous one.
func checkPace(t *testing.T, host string, a *arrivals, pages int, first, gap time.Duration) {
	t.Helper()
	times, paths := a.snapshot()
	if len(times) != pages+1 || paths[0] != "/robots.txt" {
		t.Fatalf("%s: requests %q, want /robots.txt then %d pages", host, paths, pages)
	}
	for i := 1; i < len(times); i++ {
		want := gap
		if i == 1 {
			want = first
		}
		if got := times[i].Sub(times[i-1]); got < want-arrivalSlack {
			t.Errorf("%s: %s arrived %v after %s, want at least %v", host, paths[i], got, paths[i-1], want)
		}
	}
}

// visitAll visits srv's /p1 … /pN and waits for the collector.
func visitAll(t *testing.T, c *colly.Collector, srv *httptest.Server, pages int) {
	t.Helper()
	for i := 1; i <= pages; i++ {
		if err := c.Visit(fmt.Sprintf("%s/p%d", srv.URL, i)); err != nil {
			t.Errorf("Visit: %v", err)
		}
	}
	c.Wait()
}

// crawlContext bounds a crawl, so that a pacing bug fails the test with
// missing requests instead of hanging it.
func crawlContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestCrawlDelayEndToEnd crawls a loopback site through a real collector
// and checks the gaps between arrivals: robots.txt then the pages, each at
// least the effective delay apart, whatever LimitRules the user registered
// before or after Apply.
func TestCrawlDelayEndToEnd(t *testing.T) {
	t.Parallel()
	// Real time: Colly's LimitRule sleeps on the wall clock, and the
	// subject is how its waits and the Extension's add up. The delays are
	// kept short (yet far above the arrival slack) for the suite's sake.
	const cd = 150 * time.Millisecond
	catchAll := func() *colly.LimitRule { return &colly.LimitRule{DomainGlob: "*", Parallelism: 4} }
	slowCatchAll := func() *colly.LimitRule { return &colly.LimitRule{DomainGlob: "*", Delay: 250 * time.Millisecond} }
	tests := []struct {
		name          string
		robots        string
		async, ipv6   bool
		before, after func() *colly.LimitRule // the user's rule, registered before / after Apply
		opts          func(host string) []Option
		pages         int
		first, gap    time.Duration // robots.txt → first page (the capped robots.txt delay); page → page
		clamped       uint64
	}{
		{name: "Crawl-delay, sync", robots: "User-agent: *\nCrawl-delay: 0.15\n",
			pages: 3, first: cd, gap: cd},
		{name: "Crawl-delay, async", robots: "User-agent: *\nCrawl-delay: 0.15\n", async: true,
			pages: 3, first: cd, gap: cd},
		{name: "Request-rate 5/1s, async", robots: "User-agent: colly\nRequest-rate: 5/1s\n", async: true,
			pages: 2, first: 200 * time.Millisecond, gap: 200 * time.Millisecond},
		{name: "user catch-all registered before Apply", robots: "User-agent: *\nCrawl-delay: 0.15\n", async: true,
			before: catchAll, pages: 3, first: cd, gap: cd},
		{name: "user catch-all registered after Apply", robots: "User-agent: *\nCrawl-delay: 0.15\n", async: true,
			after: catchAll, pages: 3, first: cd, gap: cd},
		{name: "slower user rule before Apply wins, sync", robots: "User-agent: *\nCrawl-delay: 0.1\n",
			before: slowCatchAll, pages: 3, first: 100 * time.Millisecond, gap: 250 * time.Millisecond},
		{name: "slower user rule after Apply wins, async", robots: "User-agent: *\nCrawl-delay: 0.1\n", async: true,
			after: slowCatchAll, pages: 3, first: 100 * time.Millisecond, gap: 250 * time.Millisecond},
		{name: "delay above the cap is clamped", robots: "User-agent: *\nCrawl-delay: 3600\n", async: true,
			opts:  func(string) []Option { return []Option{WithMaxCrawlDelay(cd)} },
			pages: 3, first: cd, gap: cd, clamped: 1},
		{name: "override host keeps its Crawl-delay", robots: "User-agent: *\nDisallow: /\nCrawl-delay: 0.15\n", async: true,
			opts:  func(host string) []Option { return []Option{WithOverride(host)} },
			pages: 3, first: cd, gap: cd},
		{name: "IPv6 literal with port", robots: "User-agent: *\nCrawl-delay: 0.15\n", async: true, ipv6: true,
			pages: 2, first: cd, gap: cd},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, arr, ok := pacedSite(t, tt.robots, tt.ipv6)
			if !ok {
				t.Skip("no IPv6 loopback")
			}
			host := strings.TrimPrefix(srv.URL, "http://")
			c := colly.NewCollector(colly.Async(tt.async), colly.StdlibContext(crawlContext(t)))
			if tt.before != nil {
				if err := c.Limit(tt.before()); err != nil {
					t.Fatal(err)
				}
			}
			var opts []Option
			if tt.opts != nil {
				opts = tt.opts(host)
			}
			ext := Apply(c, opts...)
			if tt.after != nil {
				if err := c.Limit(tt.after()); err != nil {
					t.Fatal(err)
				}
			}
			visitAll(t, c, srv, tt.pages)
			checkPace(t, host, arr, tt.pages, tt.first, tt.gap)
			if got := ext.Stats().CrawlDelaysClamped; got != tt.clamped {
				t.Errorf("CrawlDelaysClamped = %d, want %d", got, tt.clamped)
			}
			// The pace reads back as one exact LimitRule for the host.
			rs := ext.LimitRules()
			if len(rs) != 1 || rs[0].Delay != tt.first || rs[0].Parallelism != 1 {
				t.Fatalf("LimitRules() = %+v, want one rule with Delay %v, Parallelism 1", rs, tt.first)
			}
			if err := rs[0].Init(); err != nil || !rs[0].Match(host) || rs[0].Match(host+"0") {
				t.Errorf("rule %q (Init: %v) does not match exactly %q", rs[0].DomainRegexp, err, host)
			}
		})
	}
}

// TestCrawlDelayHostsIndependent crawls a fast and a slow host at once:
// each keeps its own pace, and the slow host's wait does not hold up the
// fast one, whose pages arrive while the slow host is still waiting.
func TestCrawlDelayHostsIndependent(t *testing.T) {
	t.Parallel()
	const fastDelay, slowDelay, pages = 200 * time.Millisecond, 600 * time.Millisecond, 3
	fast, fastArr, _ := pacedSite(t, "User-agent: *\nCrawl-delay: 0.2\n", false)
	slow, slowArr, _ := pacedSite(t, "User-agent: *\nCrawl-delay: 0.6\n", false)

	c := colly.NewCollector(colly.Async(true), colly.StdlibContext(crawlContext(t)))
	Apply(c)
	for i := 1; i <= pages; i++ {
		for _, srv := range []*httptest.Server{slow, fast} {
			if err := c.Visit(fmt.Sprintf("%s/p%d", srv.URL, i)); err != nil {
				t.Errorf("Visit: %v", err)
			}
		}
	}
	c.Wait()

	checkPace(t, "fast", fastArr, pages, fastDelay, fastDelay)
	checkPace(t, "slow", slowArr, pages, slowDelay, slowDelay)
	fastTimes, _ := fastArr.snapshot()
	slowTimes, _ := slowArr.snapshot()
	// slowTimes[1] is the slow host's first page, 0.6 s after its
	// robots.txt; by then the fast host has had time for robots.txt and
	// two pages (at 0, 0.2 and 0.4 s).
	if n := countBefore(fastTimes, slowTimes[1]); n < 2 {
		t.Errorf("only %d fast-host requests arrived before the slow host's first page; want at least 2 (hosts paced together?)", n)
	}
}

func countBefore(ts []time.Time, limit time.Time) int {
	n := 0
	for _, t := range ts {
		if t.Before(limit) {
			n++
		}
	}
	return n
}
