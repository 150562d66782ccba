package redisbackend

// What a fleet costs Redis: workers in this process, each with a go-redis
// client, a Backend and an Extension of its own (an Async collector with
// Parallelism 2 and the retry idiom), crawl one loopback site through one
// real redis-server. A hook on each client stamps every call it sends,
// named by what it does (the script's name for EVALSHA), so that calls per
// page and calls in a window of time can be read afterwards; the site
// stamps each request's arrival and the requests on the wire at once.

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext"
)

// scriptNames names each script of the package by its SHA-1, for the
// call log.
var scriptNames = func() map[string]string {
	m := map[string]string{}
	for name, s := range map[string]*redis.Script{
		"lease": leaseScript, "store": storeScript, "reserve": reserveScript, "start": startScript,
		"claim": claimScript, "unclaim": unclaimScript, "renew": renewScript, "heartbeat": heartbeatScript,
		"purge": purgeScript, "purge cursor": purgeCursorScript, "pause": pauseSignalScript, "ask": pauseAskScript,
		"answered": pauseAnsweredScript, "paused": pausedScript, "queue": queueScript, "claim turn": claimTurnScript,
	} {
		m[s.Hash()] = name
	}
	return m
}()

// call is one command a worker's client sent.
type call struct {
	at time.Time
	op string
}

// callLog records the calls of every worker's client (one ProcessHook
// each, so a pipeline counts once).
type callLog struct {
	mu    sync.Mutex
	calls []call // guarded by mu
}

func (l *callLog) DialHook(next redis.DialHook) redis.DialHook { return next }

func (l *callLog) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		l.add(opOf(cmd))
		return next(ctx, cmd)
	}
}

func (l *callLog) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		op := "pipeline"
		if len(cmds) > 0 {
			op += " " + opOf(cmds[0])
		}
		l.add(op)
		return next(ctx, cmds)
	}
}

func (l *callLog) add(op string) {
	now := time.Now()
	l.mu.Lock()
	l.calls = append(l.calls, call{now, op})
	l.mu.Unlock()
}

// opOf names a command: the script's name for EVALSHA and EVAL, else the
// command's.
func opOf(cmd redis.Cmder) string {
	name := cmd.Name()
	if args := cmd.Args(); (name == "evalsha" || name == "eval") && len(args) > 1 {
		src := fmt.Sprint(args[1])
		if name == "eval" {
			sum := sha1.Sum([]byte(src))
			src = hex.EncodeToString(sum[:])
		}
		if s, ok := scriptNames[src]; ok {
			return s
		}
	}
	return name
}

// between counts the calls made in [from, to), by op, and in all.
func (l *callLog) between(from, to time.Time) (map[string]int, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	by, n := map[string]int{}, 0
	for _, c := range l.calls {
		if !c.at.Before(from) && c.at.Before(to) {
			by[c.op]++
			n++
		}
	}
	return by, n
}

// costSite is a loopback host asking for a Crawl-delay. Each page takes
// serve to answer; overload, when set, picks the answers that are 429
// with Retry-After. It records every page request.
type costSite struct {
	*httptest.Server
	serve time.Duration

	mu          sync.Mutex
	robots      int       // robots.txt requests
	pages       []arrival // page requests, as they arrived
	onWire      int       // page requests being answered now
	maxOnWire   int       // the most at once
	overloadAt  int       // the page request (1-based) answered 429; 0: none
	retryAfter  string
	overloaded  time.Time // when it arrived
	overloadedW string    // and from which worker
}

func newCostSite(t testing.TB, delay, serve time.Duration) *costSite {
	s := &costSite{serve: serve}
	robots := fmt.Sprintf("User-agent: *\nCrawl-delay: %g\n", delay.Seconds())
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			s.mu.Lock()
			s.robots++
			s.mu.Unlock()
			fmt.Fprint(w, robots)
			return
		}
		now := time.Now()
		s.mu.Lock()
		s.pages = append(s.pages, arrival{at: now, path: r.URL.Path, worker: workerOf(r.UserAgent())})
		s.onWire++
		s.maxOnWire = max(s.maxOnWire, s.onWire)
		overload := len(s.pages) == s.overloadAt
		if overload {
			s.overloaded, s.overloadedW = now, workerOf(r.UserAgent())
		}
		s.mu.Unlock()
		time.Sleep(s.serve)
		s.mu.Lock()
		s.onWire--
		s.mu.Unlock()
		if overload {
			w.Header().Set("Retry-After", s.retryAfter)
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(s.Close)
	return s
}

// arrivals returns the page requests in order of arrival.
func (s *costSite) arrivals() []arrival {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := slices.Clone(s.pages)
	slices.SortFunc(a, func(x, y arrival) int { return x.at.Compare(y.at) })
	return a
}

// fleetRun is one crawl of costSites by a fleet of in-process workers.
type fleetRun struct {
	workers int
	pages   int // the fleet's per site, spread over the workers round robin
	prefix  string
	// client makes each worker's client; nil: a redis.Client of the
	// server crawlCost is given, with clientOptions.
	client func() redis.UniversalClient
	// warm has the sites' robots.txt fetched and stored for the fleet
	// before the workers start, as a crawl that has run a while has them.
	warm     bool
	log      *callLog
	elapsed  time.Duration
	started  time.Time
	finished time.Time
	got      atomic.Int64 // pages answered 200
	stats    []robotsext.Stats
}

// crawlCost runs run.workers workers over s on the server at network/addr
// and fills run; see crawlSites.
func crawlCost(t testing.TB, network, addr string, s *costSite, run *fleetRun) {
	t.Helper()
	if run.client == nil {
		run.client = func() redis.UniversalClient {
			o := clientOptions(network, addr)
			// A loaded 2-CPU machine: calls slower than production's
			// bound would send workers to their local fallback and
			// change what is measured.
			o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolSize = 2*time.Second, 2*time.Second, 2*time.Second, 4
			return redis.NewClient(o)
		}
	}
	crawlSites(t, []*costSite{s}, run)
}

// crawlSites runs run.workers workers over the sites, each with a client
// of its own (run.client) that logs its calls in run.log, and fills run.
// The fleet's k-th page goes to worker k mod workers and to site
// (k + k/workers) mod sites, so that every worker has pages on every site
// when it has enough pages, and the sites share the workers evenly when
// not. The workers start together; each visits its pages in order and
// waits for its collector.
func crawlSites(t testing.TB, sites []*costSite, run *fleetRun) {
	t.Helper()
	if run.log == nil {
		run.log = &callLog{}
	}
	type worker struct {
		c   *colly.Collector
		ext *robotsext.Extension
		b   *Backend
	}
	ws := make([]worker, run.workers)
	for i := range ws {
		client := run.client()
		t.Cleanup(func() { _ = client.Close() })
		client.AddHook(run.log)
		b := New(client, WithPrefix(run.prefix), WithTimeout(2*time.Second), WithWorkerID(fmt.Sprintf("w%d", i)),
			WithFleetSize(run.workers))
		t.Cleanup(func() { _ = b.Close(context.Background()) })
		c := colly.NewCollector(colly.UserAgent(fmt.Sprintf("fleetbot/1.0 (worker w%d)", i)), colly.Async(true), colly.AllowURLRevisit())
		if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 2}); err != nil {
			t.Fatal(err)
		}
		c.OnResponse(func(*colly.Response) { run.got.Add(1) })
		retryIdiom(c, http.StatusTooManyRequests, http.StatusServiceUnavailable)
		ext := robotsext.Apply(c, robotsext.WithBackend(b), robotsext.WithLogger(slog.New(slog.DiscardHandler)))
		ws[i] = worker{c, ext, b}
	}
	if run.warm {
		client := run.client()
		t.Cleanup(func() { _ = client.Close() })
		ext := robotsext.Apply(colly.NewCollector(colly.UserAgent("fleetbot/1.0 (warm-up)")),
			robotsext.WithBackend(New(client, WithPrefix(run.prefix), WithHeartbeat(-1))),
			robotsext.WithLogger(slog.New(slog.DiscardHandler)))
		for _, s := range sites {
			if _, err := ext.Check(s.URL + "/"); err != nil {
				t.Fatal(err)
			}
		}
	}
	var wg sync.WaitGroup
	run.started = time.Now()
	for i, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := i; k < run.pages*len(sites); k += run.workers {
				s := sites[(k+k/run.workers)%len(sites)]
				_ = w.c.Visit(fmt.Sprintf("%s/w%d/page%d", s.URL, i, k))
			}
			w.c.Wait()
		}()
	}
	wg.Wait()
	run.finished = time.Now()
	run.elapsed = run.finished.Sub(run.started)
	for _, w := range ws {
		run.stats = append(run.stats, w.ext.Stats())
	}
}

// perPage describes calls by op per page, the largest first.
func perPage(by map[string]int, pages int) string {
	type opN struct {
		op string
		n  int
	}
	var ops []opN
	for op, n := range by {
		ops = append(ops, opN{op, n})
	}
	slices.SortFunc(ops, func(a, b opN) int { return b.n - a.n })
	var parts []string
	for _, o := range ops {
		parts = append(parts, fmt.Sprintf("%s %.2f", o.op, float64(o.n)/float64(pages)))
	}
	return strings.Join(parts, ", ")
}

// smallestGap returns the smallest gap between consecutive arrivals.
func smallestGap(as []arrival) time.Duration {
	g := time.Duration(-1)
	for i := 1; i < len(as); i++ {
		if d := as[i].at.Sub(as[i-1].at); g < 0 || d < g {
			g = d
		}
	}
	return g
}

// paceOps are the calls that pace a request, as the call log names them.
var paceOps = []string{"start", "claim", "unclaim", "queue", "claim turn", "reserve"}

// TestFleetPaceCost: the Redis calls a paced page costs with 1, 2 and 10
// workers on one host with a Crawl-delay of 0.1 s, the same 60 pages,
// counted at the workers' clients (everything: robots.txt, heartbeats,
// connections and reads of the purge and pause logs included), and the
// pacing calls alone, which must not grow with the workers that wait:
// with ten workers at most one more pacing call per page than with two,
// and at most 2.5 more calls in all (each worker's start is spread over
// fewer pages at ten: about 14 calls per worker, 6 pages each). Every page is
// fetched, no gap at the host falls below the delay (less gapSlack), and
// never two requests are on the wire at once.
func TestFleetPaceCost(t *testing.T) {
	srv := startRedisServer(t)
	const pages, delay = 60, 100 * time.Millisecond
	pacing, all := map[int]float64{}, map[int]float64{}
	for _, n := range []int{1, 2, 10} {
		t.Run(fmt.Sprintf("workers=%d", n), func(t *testing.T) {
			s := newCostSite(t, delay, time.Millisecond)
			run := &fleetRun{workers: n, pages: pages, prefix: fmt.Sprintf("pacecost%d:", n)}
			crawlCost(t, "unix", srv.Sock, s, run)
			by, total := run.log.between(run.started, run.finished.Add(time.Second))
			for _, op := range paceOps {
				pacing[n] += float64(by[op]) / pages
			}
			all[n] = float64(total) / pages
			as := s.arrivals()
			t.Logf("%d workers, %d pages in %v: %.2f calls per page, %.2f of them pacing (%s); smallest gap %v, at most %d on the wire",
				n, pages, run.elapsed.Round(time.Millisecond), float64(total)/pages, pacing[n], perPage(by, pages),
				smallestGap(as).Round(time.Millisecond), s.maxOnWire)
			if got := run.got.Load(); got != pages {
				t.Errorf("%d pages answered; want %d", got, pages)
			}
			if g := smallestGap(as); g < delay-gapSlack || s.maxOnWire > 1 {
				t.Errorf("smallest gap %v, at most %d on the wire; want at least %v, 1", g, s.maxOnWire, delay-gapSlack)
			}
		})
	}
	if pacing[10] > pacing[2]+1 {
		t.Errorf("pacing calls per page: %.2f with 2 workers, %.2f with 10; want at most one more", pacing[2], pacing[10])
	}
	if all[10] > all[2]+2.5 {
		t.Errorf("calls per page: %.2f with 2 workers, %.2f with 10; want at most 2.5 more", all[2], all[10])
	}
}

// TestFleetPauseCost: ten workers on one host with a Crawl-delay of 0.1 s.
//
// "429 to one worker": the 21st page request is answered 429
// Retry-After 2. It reports the page requests that reached the host in
// the 1.9 s after that answer, the first ones after the pause, and the
// Redis calls made in 1.6 s of the pause (from 0.4 s after the 429, when
// every worker has had time to learn it).
//
// "paused for all": the host is paused for 2 s in Redis when the crawl
// of 50 pages starts, so that every request waits; it reports the page
// requests that reached the host during the pause and the calls made
// from 0.4 s to 2.0 s of it.
func TestFleetPauseCost(t *testing.T) {
	srv := startRedisServer(t)
	const workers, delay = 10, 100 * time.Millisecond
	t.Run("429 to one worker", func(t *testing.T) {
		const pages = 150
		s := newCostSite(t, delay, time.Millisecond)
		s.overloadAt, s.retryAfter = 21, "2"
		run := &fleetRun{workers: workers, pages: pages, prefix: "pausecost:"}
		crawlCost(t, "unix", srv.Sock, s, run)
		t0 := s.overloaded
		if t0.IsZero() {
			t.Fatal("no request was answered 429")
		}
		t.Logf("429 to %s at +%v of the crawl", s.overloadedW, t0.Sub(run.started).Round(time.Millisecond))
		checkPause(t, s, run, t0, 1900*time.Millisecond, workers, 1)
		if got := run.got.Load(); got != pages {
			t.Errorf("%d pages answered; want %d", got, pages)
		}
	})
	t.Run("paused for all", func(t *testing.T) {
		const pages = 50
		s := newCostSite(t, delay, time.Millisecond)
		run := &fleetRun{workers: workers, pages: pages, prefix: "pausedall:"}
		b := New(newClient(t, "unix", srv.Sock), WithPrefix(run.prefix), WithHeartbeat(-1))
		host := strings.TrimPrefix(s.URL, "http://")
		// t0 before the call: the pause begins after it by Redis's clock,
		// so that it covers all of (t0, t0 + 2 s].
		t0 := time.Now()
		if _, _, _, _, err := b.Pause(t.Context(), host, 2*time.Second, time.Second, time.Minute); err != nil {
			t.Fatal(err)
		}
		crawlCost(t, "unix", srv.Sock, s, run)
		checkPause(t, s, run, t0, 2*time.Second, workers, 0)
		if got := run.got.Load(); got != pages {
			t.Errorf("%d pages answered; want %d", got, pages)
		}
	})
}

// checkPause logs the page requests that reached s within pause after
// t0, the first ones after it, and the calls run made from t0 + 0.4 s to
// t0 + 2.0 s, and checks them unless a worker's Backend call failed (it
// then paced and paused alone): no request within the pause, one probe
// (and pauses counted as given), and at most one call per worker and
// quarter of a second in the window, the interval at which one request
// of a worker asks about its paused host for the others.
func checkPause(t *testing.T, s *costSite, run *fleetRun, t0 time.Time, pause time.Duration, workers int, wantPauses uint64) {
	t.Helper()
	var during, after []string
	for _, a := range s.arrivals() {
		d := a.at.Sub(t0)
		switch {
		case d > 0 && d <= pause:
			during = append(during, fmt.Sprintf("+%v %s", d.Round(time.Millisecond), a.worker))
		case d > pause && len(after) < 6:
			after = append(after, fmt.Sprintf("+%v %s", d.Round(time.Millisecond), a.worker))
		}
	}
	by, n := run.log.between(t0.Add(400*time.Millisecond), t0.Add(2*time.Second))
	var pauses, probes uint64
	for _, st := range run.stats {
		pauses += st.Pauses[robotsext.PauseTooManyRequests]
		probes += st.Probes
	}
	var errs uint64
	for _, st := range run.stats {
		errs += st.BackendErrors
	}
	t.Logf("%d page requests within %v of the pause's start: %v", len(during), pause, during)
	t.Logf("the first requests after it: %v", after)
	t.Logf("Redis calls from +0.4 s to +2.0 s: %d (%s); pauses %d, probes %d, backend errors %d; %d pages in %v",
		n, perPage(by, 1), pauses, probes, errs, run.got.Load(), run.elapsed.Round(time.Millisecond))
	if errs > 0 {
		t.Logf("%d Backend calls failed (a loaded machine): the fleet's figures are not checked", errs)
		return
	}
	if len(during) > 0 || probes != 1 || pauses != wantPauses {
		t.Errorf("%d requests during the pause, %d probes, %d pauses; want none, 1, %d", len(during), probes, pauses, wantPauses)
	}
	if limit := workers * int(1600*time.Millisecond/fleetAskEvery+1); n > limit {
		t.Errorf("%d calls in 1.6 s of the pause; want at most %d (one per worker and %v)", n, limit, fleetAskEvery)
	}
}

// fleetAskEvery is the interval at which one request of a worker asks
// about a paused host for the others (the root's pacing has it too).
const fleetAskEvery = 250 * time.Millisecond
