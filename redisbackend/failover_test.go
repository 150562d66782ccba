package redisbackend

// A fleet crawling through a Redis Cluster of three masters with a
// replica each while one master fails: killed (SIGKILL), failed over by
// hand (CLUSTER FAILOVER) or paused (SIGSTOP). Each worker is in this
// process with a ClusterClient of its own and the 250 ms timeouts the
// documentation recommends; the sites stamp every page's arrival.

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/redisbackend/internal/rediscluster"
)

// failoverFault is one way a master fails in TestClusterFailover.
type failoverFault struct {
	name string
	// act fails master (whose replica is replica) and returns when the
	// replica serves the slots again, or the node answers again: the
	// moment the hosts may be shared again.
	act func(t *testing.T, c *rediscluster.Cluster, master, replica, key string) time.Time
}

// sharedCalls records, per host, when a worker's pacing scripts last
// succeeded: the worker paces the host through the cluster then.
type sharedCalls struct {
	mu sync.Mutex
	at map[string][]time.Time // by host tag
}

func (s *sharedCalls) DialHook(next redis.DialHook) redis.DialHook { return next }

func (s *sharedCalls) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if err == nil && (cmd.Name() == "evalsha" || cmd.Name() == "eval") && len(cmd.Args()) > 3 {
			key := fmt.Sprint(cmd.Args()[3])
			if i, j := strings.IndexByte(key, '{'), strings.IndexByte(key, '}'); i >= 0 && j > i &&
				(strings.HasSuffix(key, ":pace") || strings.HasSuffix(key, ":queue")) {
				s.mu.Lock()
				s.at[key[i+1:j]] = append(s.at[key[i+1:j]], time.Now())
				s.mu.Unlock()
			}
		}
		return err
	}
}

func (s *sharedCalls) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// firstAfter returns the first shared call for host at or after t; zero
// when none.
func (s *sharedCalls) firstAfter(host string, t time.Time) time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, at := range s.at[host] {
		if !at.Before(t) {
			return at
		}
	}
	return time.Time{}
}

// logRecords keeps the records a worker's Extension and Backend log.
type logRecords struct {
	mu   sync.Mutex
	recs []string
}

func (l *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecords) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %q", r.Time.Format("15:04:05.000"), r.Level, r.Message)
	r.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, " %s=%v", a.Key, a.Value); return true })
	l.mu.Lock()
	l.recs = append(l.recs, b.String())
	l.mu.Unlock()
	return nil
}
func (l *logRecords) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecords) WithGroup(string) slog.Handler      { return l }

// TestClusterFailover crawls 6 hosts × 40 pages (Crawl-delay 0.2) with 3
// workers (Async, Parallelism 4, WithFleetSize(3)) and fails the master
// holding most hosts 3 s in. It checks, per host, at the sites: every
// page fetched, one robots.txt per host, the hosts on healthy masters
// never below the delay, the hosts of the failed master within the
// outage bound (no window of k × 3 × delay holds more than k × 3 + 1
// starts), and every worker back to shared pacing on them soon after the
// slot answers again.
//
// The bounds have margin for a loaded 2-CPU machine: the gaps on healthy
// masters are spaced by Redis and only the time between two arrivals at
// the site may shrink them (gapSlack, as the other fleet tests); back to
// shared pacing within 3 s where one probe a second and a reload of the
// slot map measured 0.4–1.6 s. The window bound k × 3 + 1 (4 in 600 ms,
// 7 in 1.2 s) is asserted on every host but those of a healthy master on
// which a worker still fell back: a call that timed out raises only a
// suspicion, which a probe settles, but under heavy load (seen with
// -race beside 8 spinning processes) the probe may time out too, and
// that worker then paces the host locally while the others keep the
// shared pace, which nothing in the fleet can see. Such a host is held to
// each worker's own share, (k + 1) × 3, and the test says so.
// FAILOVER_FAULT=kill (or "manual failover", "paused 1.5 s") runs one
// fault.
func TestClusterFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("a real cluster and a 10 s crawl per fault")
	}
	faults := []failoverFault{
		{"kill", func(t *testing.T, c *rediscluster.Cluster, master, replica, key string) time.Time {
			if err := c.Kill(master); err != nil {
				t.Fatal(err)
			}
			at, err := c.AwaitMaster(context.Background(), replica, key, replica, 15*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			return at
		}},
		{"manual failover", func(t *testing.T, c *rediscluster.Cluster, master, replica, key string) time.Time {
			if err := c.Failover(context.Background(), replica); err != nil {
				t.Fatal(err)
			}
			at, err := c.AwaitMaster(context.Background(), replica, key, replica, 15*time.Second)
			if err != nil {
				t.Fatal(err)
			}
			return at
		}},
		{"paused 1.5 s", func(t *testing.T, c *rediscluster.Cluster, master, replica, key string) time.Time {
			if err := c.Stop(master); err != nil {
				t.Fatal(err)
			}
			time.Sleep(1500 * time.Millisecond)
			if err := c.Cont(master); err != nil {
				t.Fatal(err)
			}
			return time.Now()
		}},
	}
	only := os.Getenv("FAILOVER_FAULT")
	for _, f := range faults {
		if only != "" && only != f.name {
			continue
		}
		t.Run(f.name, func(t *testing.T) { clusterFailover(t, f) })
	}
}

func clusterFailover(t *testing.T, f failoverFault) {
	const (
		workers = 3
		hosts   = 6
		pages   = 40
		delay   = 200 * time.Millisecond
		failAt  = 3 * time.Second
	)
	cl := rediscluster.StartHA(t, 3)
	masters := cl.Addrs[:3]
	prefix := "failover:"
	sites := make([]*costSite, hosts)
	hostOf := make([]string, hosts)
	masterOf := make([]string, hosts)
	count := map[string]int{}
	for i := range sites {
		sites[i] = newCostSite(t, delay, 2*time.Millisecond)
		u, _ := url.Parse(sites[i].URL)
		hostOf[i] = u.Host
		m, err := cl.MasterOf(t.Context(), masters[0], keys{prefix: prefix}.pace(u.Host))
		if err != nil {
			t.Fatal(err)
		}
		masterOf[i] = m
		count[m]++
	}
	victim := slices.MaxFunc(masters, func(a, b string) int { return count[a] - count[b] })
	replica, err := cl.ReplicaOf(t.Context(), victim)
	if err != nil {
		t.Fatal(err)
	}
	var victimKey string
	for i := range sites {
		if masterOf[i] == victim {
			victimKey = keys{prefix: prefix}.pace(hostOf[i])
			break
		}
	}
	if victimKey == "" {
		t.Skip("no host on the victim") // cannot happen: it holds the most
	}

	type worker struct {
		c      *colly.Collector
		ext    *robotsext.Extension
		shared *sharedCalls
		logs   *logRecords
	}
	var got, failed atomic.Int64
	ws := make([]worker, workers)
	for i := range ws {
		client := redis.NewClusterClient(&redis.ClusterOptions{Addrs: cl.Addrs, ContextTimeoutEnabled: true,
			DialTimeout: 250 * time.Millisecond, ReadTimeout: 250 * time.Millisecond, WriteTimeout: 250 * time.Millisecond,
			MaxRetries: 1})
		t.Cleanup(func() { _ = client.Close() })
		shared := &sharedCalls{at: map[string][]time.Time{}}
		client.AddHook(shared)
		logs := &logRecords{}
		logger := slog.New(logs)
		b := New(client, WithPrefix(prefix), WithWorkerID(fmt.Sprintf("w%d", i)), WithFleetSize(workers), WithLogger(logger))
		t.Cleanup(func() { _ = b.Close(context.Background()) })
		// Each worker's connections are set up before the crawl: the
		// test's subject is the failover, not a start-up on a machine
		// too loaded to dial within the 250 ms timeouts.
		// A ping that times out is tried again; the crawl copes anyway.
		for range 5 {
			if client.ForEachShard(t.Context(), func(ctx context.Context, n *redis.Client) error {
				return n.Ping(ctx).Err()
			}) == nil {
				break
			}
		}
		c := colly.NewCollector(colly.UserAgent(fmt.Sprintf("fleetbot/1.0 (worker w%d)", i)), colly.Async(true), colly.AllowURLRevisit())
		if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 4}); err != nil {
			t.Fatal(err)
		}
		c.OnResponse(func(*colly.Response) { got.Add(1) })
		c.OnError(func(r *colly.Response, err error) {
			if r.StatusCode != http.StatusForbidden {
				failed.Add(1)
				t.Logf("worker w%d: %s: %v", i, r.Request.URL, err)
			}
		})
		ext := robotsext.Apply(c, robotsext.WithBackend(b), robotsext.WithLogger(logger))
		ws[i] = worker{c, ext, shared, logs}
	}

	start := time.Now()
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range pages * hosts {
				if (k/hosts)%workers != i {
					continue // each host's pages go round the workers
				}
				s := sites[k%hosts]
				_ = w.c.Visit(fmt.Sprintf("%s/w%d/page%d", s.URL, i, k))
			}
			w.c.Wait()
		}()
	}
	time.Sleep(failAt)
	failedAt := time.Now()
	back := f.act(t, cl, victim, replica, victimKey)
	wg.Wait()
	end := time.Now()
	t.Logf("%s of %s (%d of %d hosts) at %v; slot served again %v later; crawl ended at %v",
		f.name, victim, count[victim], hosts, failedAt.Sub(start).Round(time.Millisecond),
		back.Sub(failedAt).Round(time.Millisecond), end.Sub(start).Round(time.Millisecond))

	// A request sent again to wait outside its slot (its host's turn
	// taken while it waited for one, or its host paused) reaches OnError
	// aborted; its copy is answered.
	var requeued int64
	for _, w := range ws {
		st := w.ext.Stats()
		requeued += int64(st.TurnRequeued + st.BackoffRequeued)
	}
	if n := got.Load(); n != pages*hosts || failed.Load() != requeued {
		t.Errorf("%d pages answered, %d errors; want %d, %d (the requests sent again)", n, failed.Load(), pages*hosts, requeued)
	}
	// A healthy master that failed a call too (no answer within 250 ms on
	// a machine too loaded) sends its hosts to the fallback as it should:
	// their gaps are then held to the window bound only.
	strayed := map[string]bool{}
	for _, w := range ws {
		w.logs.mu.Lock()
		for _, r := range w.logs.recs {
			for _, m := range masters {
				if m != victim && strings.Contains(r, "a backend node failed") && strings.Contains(r, "node="+m+" ") {
					strayed[m] = true
				}
			}
		}
		w.logs.mu.Unlock()
	}
	if len(strayed) > 0 {
		t.Logf("healthy masters that failed a call too (the machine's load): %v", strayed)
	}
	for i, s := range sites {
		as := s.arrivals()
		s.mu.Lock()
		robots := s.robots
		s.mu.Unlock()
		onVictim := masterOf[i] == victim
		gap := smallestGap(as)
		most1, most2 := maxInWindow(as, workers*delay), maxInWindow(as, 2*workers*delay)
		var slowest time.Duration
		if onVictim {
			for wi, w := range ws {
				// A worker none of whose pages of the host started later
				// than a second after the slot's return had nothing left
				// to pace there (a page booked locally just before it,
				// delay × fleet size ahead, may start just after): it
				// cannot show a return, so it is not asked to.
				if !startedAfter(as, fmt.Sprintf("w%d", wi), back.Add(time.Second)) {
					continue
				}
				at := w.shared.firstAfter(hostOf[i], back)
				if at.IsZero() {
					slowest = -1
					break
				}
				slowest = max(slowest, at.Sub(back))
			}
		}
		where := "healthy"
		if onVictim {
			where = "failed"
		}
		backIn := "-"
		switch {
		case slowest < 0:
			backIn = "never"
		case onVictim:
			backIn = slowest.Round(time.Millisecond).String()
		}
		t.Logf("host %d (%s master): smallest gap %v, most starts in %v: %d, in %v: %d; robots.txt %d; every worker back to shared pacing %s after",
			i, where, gap.Round(time.Millisecond), workers*delay, most1, 2*workers*delay, most2, robots, backIn)
		if robots != 1 {
			t.Errorf("host %d: %d robots.txt fetches; want 1", i, robots)
		}
		stray := !onVictim && strayed[masterOf[i]]
		if !stray && (most1 > workers+1 || most2 > 2*workers+1) {
			t.Errorf("host %d: %d starts in %v, %d in %v; want at most k × %d + 1 (%d, %d)", i, most1, workers*delay, most2,
				2*workers*delay, workers, workers+1, 2*workers+1)
		}
		if stray && (most1 > workers+1 || most2 > 2*workers+1) {
			t.Logf("host %d, on a healthy master a worker fell back on: %d starts in %v, %d in %v: above k × %d + 1 (%d, %d)", i, most1,
				workers*delay, most2, 2*workers*delay, workers, workers+1, 2*workers+1)
		}
		if most1 > 2*workers || most2 > 3*workers {
			t.Errorf("host %d: %d starts in %v, %d in %v; want at most %d, %d (each worker's own share)", i, most1, workers*delay,
				most2, 2*workers*delay, 2*workers, 3*workers)
		}
		if !onVictim && !strayed[masterOf[i]] && gap < delay-gapSlack {
			t.Errorf("host %d on a healthy master: smallest gap %v; want at least %v", i, gap, delay-gapSlack)
		}
		if onVictim && (slowest < 0 || slowest > 3*time.Second) {
			t.Errorf("host %d: a worker back to shared pacing %v after the slot answered again; want within 3s", i, slowest)
		}
	}
	for i, w := range ws {
		w.logs.mu.Lock()
		for _, r := range w.logs.recs {
			t.Logf("w%d log: %s", i, r)
		}
		w.logs.mu.Unlock()
	}
}

// startedAfter reports whether worker started a page (an arrival other
// than robots.txt) after t.
func startedAfter(as []arrival, worker string, t time.Time) bool {
	for _, a := range as {
		if a.path != "/robots.txt" && workerOf(a.worker) == worker && a.at.After(t) {
			return true
		}
	}
	return false
}
