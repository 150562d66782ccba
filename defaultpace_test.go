package robotsext

// The crawl-level facts of the default pace, the jitter and the RateLimit
// fields, as a server sees them through a real collector. These tests
// measure real time on purpose: what they check is the spacing of requests
// at the server, which Colly's goroutines, its LimitRule and the HTTP
// transport all take part in and no hand-moved clock can stand for. They
// use short delays (100–300 ms instead of DefaultDelay's 1 s) so that the
// package's tests stay fast, and only lower bounds on the gaps (less
// arrivalSlack), which load cannot break.

import (
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
)

// probe is a loopback site that records, for its pages, when each
// request arrived and how many were in flight at once. Each page takes
// work to answer; answer, when set, may add header fields and choose the
// status of the n-th page request (from 1). Arrivals are read from now,
// time.Now unless a test sets the Extension's hand-moved clock before the
// first request.
type probe struct {
	*httptest.Server
	robots string // the robots.txt body; "" answers 404
	work   time.Duration
	answer func(n int, h http.Header) int
	now    func() time.Time // nil: time.Now

	mu       sync.Mutex
	arrived  []time.Time
	inFlight int
	maxIn    int
}

// newProbe starts a probe site serving robots as its robots.txt.
func newProbe(t *testing.T, robots string, work time.Duration, answer func(n int, h http.Header) int) *probe {
	t.Helper()
	p := &probe{robots: robots, work: work, answer: answer}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.Close)
	return p
}

func (p *probe) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/robots.txt" {
		if p.robots == "" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, p.robots)
		return
	}
	at := time.Now()
	if p.now != nil {
		at = p.now()
	}
	p.mu.Lock()
	p.arrived = append(p.arrived, at)
	n := len(p.arrived)
	p.inFlight++
	p.maxIn = max(p.maxIn, p.inFlight)
	p.mu.Unlock()
	time.Sleep(p.work)
	status := http.StatusOK
	if p.answer != nil {
		status = p.answer(n, w.Header())
	}
	p.mu.Lock()
	p.inFlight--
	p.mu.Unlock()
	w.WriteHeader(status)
	io.WriteString(w, "<html><body>page</body></html>")
}

// gaps returns the gaps between the page arrivals, in order, and the most
// requests that were in flight at once.
func (p *probe) gaps() ([]time.Duration, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var gs []time.Duration
	for i := 1; i < len(p.arrived); i++ {
		gs = append(gs, p.arrived[i].Sub(p.arrived[i-1]))
	}
	return gs, p.maxIn
}

// asyncCrawler returns an Async collector with one LimitRule letting 8
// requests go at once to any host, attached to a new Extension.
func asyncCrawler(t *testing.T, opts ...Option) (*colly.Collector, *Extension) {
	t.Helper()
	c := colly.NewCollector(colly.Async(true), colly.AllowURLRevisit(), colly.StdlibContext(crawlContext(t)),
		colly.UserAgent("PaceBot/1.0 (+https://example.com/bot)"))
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 8}); err != nil {
		t.Fatal(err)
	}
	return c, Apply(c, opts...)
}

// TestDefaultPaceCrawl: a host whose robots.txt states no delay is paced
// by WithDefaultDelay, one request at a time; a stated Crawl-delay wins,
// lower or higher, and a stated "Crawl-delay: 0" leaves the host unpaced.
// The subject is which delay applies, so the crawl runs on a hand-moved
// clock that only the pacer's waits move (each to its end, as overlapping
// sleeps move a real clock once), and the probe reads it: the gaps are
// the pacer's, without their real seconds (TestCrawlDelayEndToEnd keeps
// the pace at the wire in real time).
func TestDefaultPaceCrawl(t *testing.T) {
	t.Parallel()
	const pages = 4
	tests := []struct {
		name       string
		robots     string
		opts       []Option
		minGap     time.Duration // every gap at least this (less arrivalSlack); 0: unpaced
		maxGap     time.Duration // and the median below this; 0: no bound
		wantInMost int           // at most this many in flight; with minGap 0, at least 2
	}{
		{"silent host: the default", "User-agent: *\nAllow: /\n", []Option{WithDefaultDelay(200 * time.Millisecond)}, 200 * time.Millisecond, 0, 1},
		{"no robots.txt (404): the default", "", []Option{WithDefaultDelay(100 * time.Millisecond)}, 100 * time.Millisecond, 0, 1},
		{"a delay for other crawlers only: the default", "User-agent: OtherBot\nCrawl-delay: 5\n\nUser-agent: *\nAllow: /\n", []Option{WithDefaultDelay(100 * time.Millisecond)}, 100 * time.Millisecond, 0, 1},
		{"lower Crawl-delay wins", "User-agent: *\nCrawl-delay: 0.1\n", []Option{WithDefaultDelay(5 * time.Second)}, 100 * time.Millisecond, time.Second, 1},
		{"higher Crawl-delay wins", "User-agent: *\nCrawl-delay: 0.3\n", []Option{WithDefaultDelay(100 * time.Millisecond)}, 300 * time.Millisecond, 0, 1},
		{"Crawl-delay: 0 is no pace", "User-agent: *\nCrawl-delay: 0\n", nil, 0, 0, pages},
		{"WithDefaultDelay(0): no pace", "User-agent: *\nAllow: /\n", []Option{WithDefaultDelay(0), quiet()}, 0, 0, pages},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newProbe(t, tt.robots, 30*time.Millisecond, nil)
			clk := &stillClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), moves: make(chan struct{})}
			close(clk.moves) // moved by the waits alone
			p.now = clk.now
			c, _ := asyncCrawler(t, append(slices.Clone(tt.opts), WithClock(clk.now), withSleep(clk.sleep))...)
			for i := range pages {
				if err := c.Visit(fmt.Sprintf("%s/p%d", p.URL, i)); err != nil {
					t.Fatal(err)
				}
			}
			c.Wait()
			gaps, inMost := p.gaps()
			if len(gaps) != pages-1 {
				t.Fatalf("%d pages arrived, want %d", len(gaps)+1, pages)
			}
			if inMost > tt.wantInMost {
				t.Errorf("%d requests in flight at once, want at most %d", inMost, tt.wantInMost)
			}
			if tt.minGap == 0 {
				if inMost < 2 {
					t.Errorf("unpaced host: %d request in flight at most, want several (gaps %v)", inMost, gaps)
				}
				return
			}
			for i, g := range gaps {
				if g < tt.minGap-arrivalSlack {
					t.Errorf("gap %d = %v, want at least %v", i, g, tt.minGap)
				}
			}
			if med := median(gaps); tt.maxGap > 0 && med > tt.maxGap {
				t.Errorf("median gap %v, want below %v (the stated delay, not the default)", med, tt.maxGap)
			}
			t.Logf("gaps %v, %d in flight at most", gaps, inMost)
		})
	}
}

// median returns the median of ds.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestDefaultPaceHostsIndependent: forty silent hosts with two pages each
// are paced apart, not one after the other: the crawl takes about two
// delays (the robots.txt request counts as each host's first, so each
// host's pages come one and two delays after it), not forty.
func TestDefaultPaceHostsIndependent(t *testing.T) {
	t.Parallel()
	const (
		hosts = 40
		delay = 200 * time.Millisecond
	)
	var probes []*probe
	for range hosts {
		probes = append(probes, newProbe(t, "User-agent: *\nAllow: /\n", 5*time.Millisecond, nil))
	}
	c, _ := asyncCrawler(t, WithDefaultDelay(delay))
	start := time.Now()
	for _, p := range probes {
		for i := range 2 {
			if err := c.Visit(fmt.Sprintf("%s/p%d", p.URL, i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	c.Wait()
	took := time.Since(start)
	for i, p := range probes {
		gaps, inMost := p.gaps()
		if len(gaps) != 1 || gaps[0] < delay-arrivalSlack || inMost != 1 {
			t.Errorf("host %d: gaps %v, %d in flight at most; want one gap of at least %v, 1 in flight", i, gaps, inMost, delay)
		}
	}
	// Forty hosts one after the other would take 40 delays and more; hosts
	// paced independently take about 2. The bound is half the serial time,
	// not a few delays, so that a loaded machine (the race detector beside
	// other test binaries on 2 CPUs took 1.3 s) cannot fail it while a
	// serial pace still does.
	if took >= hosts*delay/2 {
		t.Errorf("the crawl took %v, want about 2 × %v: hosts wait for each other", took, delay)
	}
	t.Logf("%d hosts × 2 pages in %v (delay %v)", hosts, took, delay)
}

// TestRateLimitPausesHost: a response whose RateLimit field says a quota
// is spent pauses its host for the field's window (its own cause in
// Stats), before any 429; quota left or a malformed field changes
// nothing; on a 429 the longer of Retry-After and the window counts
// (the other way round, several policies and the older X-RateLimit
// fields are internal/pacing's and internal/ratelimit's unit tests), and
// a spent quota without a window pauses for the back-off base. The host states
// "Crawl-delay: 0", so that any gap is the pause's. The subject is which
// pause the fields ask for, not how long a real second is: the pauses
// are waited on a hand-moved clock that the probe reads, moved on by each
// wait at once.
func TestRateLimitPausesHost(t *testing.T) {
	t.Parallel()
	const pages = 4
	tests := []struct {
		name      string
		status    int
		fields    map[string]string // set on the 2nd page's response
		minGap    time.Duration     // the gap after the 2nd page; 0: none expected
		wantCause PauseCause        // 0: no pause
	}{
		{"quota spent: paused for its window", 200, map[string]string{"RateLimit-Policy": `"default";q=3;w=1`, "RateLimit": `"default";r=0;t=1`}, time.Second, PauseRateLimit},
		{"spent without a window: the base", 200, map[string]string{"RateLimit": `"default";r=0`}, 300 * time.Millisecond, PauseRateLimit},
		{"quota left: nothing", 200, map[string]string{"RateLimit": `"default";r=1;t=1`}, 0, 0},
		{"malformed: nothing", 200, map[string]string{"RateLimit": `"default";t=1`}, 0, 0},
		{"429: the window longer than Retry-After", 429, map[string]string{"Retry-After": "1", "RateLimit": `"default";r=0;t=2`}, 2 * time.Second, PauseTooManyRequests},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := newProbe(t, "User-agent: *\nCrawl-delay: 0\n", 0, func(n int, h http.Header) int {
				if n != 2 {
					return http.StatusOK
				}
				for k, v := range tt.fields {
					h.Set(k, v)
				}
				return tt.status
			})
			clk := &shiftedClock{}
			p.now = clk.now
			c := colly.NewCollector(colly.AllowURLRevisit(), colly.StdlibContext(crawlContext(t)),
				colly.UserAgent("PaceBot/1.0 (+https://example.com/bot)"))
			ext := Apply(c, WithBackoffBase(300*time.Millisecond), WithClock(clk.now), withSleep(clk.sleep))
			for i := range pages {
				_ = c.Visit(fmt.Sprintf("%s/p%d", p.URL, i)) // the 429 fails its Visit
			}
			gaps, _ := p.gaps()
			if len(gaps) != pages-1 {
				t.Fatalf("%d pages arrived, want %d", len(gaps)+1, pages)
			}
			pauses := ext.Stats().Pauses
			if tt.wantCause == 0 {
				if len(pauses) != 0 || gaps[1] > 250*time.Millisecond {
					t.Errorf("pauses %v, gap after the 2nd page %v; want none", pauses, gaps[1])
				}
				return
			}
			if gaps[1] < tt.minGap-arrivalSlack {
				t.Errorf("gap after the 2nd page %v, want at least %v", gaps[1], tt.minGap)
			}
			if pauses[tt.wantCause] != 1 || len(pauses) != 1 {
				t.Errorf("pauses %v, want one of cause %v", pauses, tt.wantCause)
			}
			t.Logf("gaps %v, pauses %v", gaps, pauses)
		})
	}
}

// TestResponsesCounted: what the page requests got back is counted by
// status class, for the crawl and per host: each response, each redirect
// followed (3xx, which the collector never sees), and a request that got
// no response. robots.txt fetches are not counted here.
func TestResponsesCounted(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "User-agent: *\nCrawl-delay: 0\n") // the subject is the count, not the pace
	})
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "gone", http.StatusGone) })
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "oops", http.StatusInternalServerError) })
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/ok", http.StatusFound) })
	mux.HandleFunc("/hangup", func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	other := newProbe(t, "User-agent: *\nCrawl-delay: 0\n", 0, nil)

	c := colly.NewCollector(colly.AllowURLRevisit(), colly.UserAgent("PaceBot/1.0 (+https://example.com/bot)"))
	ext := Apply(c, WithoutBackoff())
	for _, p := range []string{"/ok", "/ok", "/gone", "/broken", "/moved", "/hangup"} {
		_ = c.Visit(srv.URL + p)
	}
	_ = c.Visit(other.URL + "/x")

	want := map[StatusClass]uint64{Status2xx: 4, Status3xx: 1, Status4xx: 1, Status5xx: 1, NoResponse: 1}
	if got := ext.Stats().Responses; !maps.Equal(got, want) {
		t.Errorf("Stats().Responses = %v, want %v", got, want)
	}
	info, ok := ext.Origin(srv.URL)
	wantHost := map[StatusClass]uint64{Status2xx: 3, Status3xx: 1, Status4xx: 1, Status5xx: 1, NoResponse: 1}
	if !ok || !maps.Equal(info.Responses, wantHost) {
		t.Errorf("Origin(%s).Responses = %v, want %v", srv.URL, info.Responses, wantHost)
	}
	if info, _ := ext.Origin(other.URL); !maps.Equal(info.Responses, map[StatusClass]uint64{Status2xx: 1}) {
		t.Errorf("Origin(other).Responses = %v, want one 2xx", info.Responses)
	}
	var names []string
	for _, c := range StatusClasses() {
		names = append(names, c.String())
	}
	if got := fmt.Sprint(names); got != "[none 1xx 2xx 3xx 4xx 5xx]" {
		t.Errorf("StatusClasses() = %s", got)
	}
}

// TestWithDefaultDelaySettled: WithDefaultDelay is settled against
// WithMaxCrawlDelay whatever their order; a negative value is refused and
// a value above the cap capped, each with a warning; 0 turns the default
// off with one warning per Extension.
func TestWithDefaultDelaySettled(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		opts  []Option
		want  time.Duration
		warns []string // substrings of the warnings, in order
	}{
		{"unset", nil, DefaultDelay, nil},
		{"set", []Option{WithDefaultDelay(3 * time.Second)}, 3 * time.Second, nil},
		{"0: off, said once", []Option{WithDefaultDelay(0)}, 0, []string{"WithDefaultDelay(0)"}},
		{"negative: refused", []Option{WithDefaultDelay(-time.Second)}, DefaultDelay, []string{"is negative"}},
		{"above the cap: capped", []Option{WithDefaultDelay(time.Minute), WithMaxCrawlDelay(10 * time.Second)}, 10 * time.Second, []string{"above WithMaxCrawlDelay"}},
		{"the cap given first", []Option{WithMaxCrawlDelay(10 * time.Second), WithDefaultDelay(time.Minute)}, 10 * time.Second, []string{"above WithMaxCrawlDelay"}},
		{"a cap below DefaultDelay", []Option{WithMaxCrawlDelay(500 * time.Millisecond)}, 500 * time.Millisecond, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			logs := &warnLog{}
			e := Apply(nil, append(tt.opts, WithLogger(slog.New(logs)))...)
			if got := e.pacer.Default(); got != tt.want {
				t.Errorf("default pace %v, want %v", got, tt.want)
			}
			logs.mu.Lock()
			got := slices.Clone(logs.msgs)
			logs.mu.Unlock()
			if len(got) != len(tt.warns) {
				t.Fatalf("warnings %q, want %d", got, len(tt.warns))
			}
			for i, w := range tt.warns {
				if !strings.Contains(got[i], w) {
					t.Errorf("warning %q, want it to say %q", got[i], w)
				}
			}
		})
	}
}
