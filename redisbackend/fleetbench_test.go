package redisbackend

// The fleet benchmarks: N in-process workers, each with a go-redis client
// of its own, on one redis-server over loopback TCP. BenchmarkFleet runs
// the whole Extension (an Async Colly collector per worker); the
// protocol benchmarks drive the Backend the way the Extension's pacer
// does, without Colly, to tell what each pacing protocol costs Redis.
// Each reports paced pages per second, the Redis calls per page counted
// at the clients, and the server's time per page from INFO commandstats
// (the commands the clients sent, a script's own commands inside its
// time) and from its CPU time (networking included). Run them one at a
// time, -benchtime=1x: each iteration is a whole crawl.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// fleetSizes are the fleets the benchmarks run.
var fleetSizes = []int{10, 100, 1000}

// fleetHosts is how many paced hosts the fleet crawls, each with
// fleetDelay between requests: at most fleetHosts/fleetDelay pages a
// second, whatever the fleet.
const (
	fleetHosts = 10
	fleetDelay = 100 * time.Millisecond
)

// fleetPages is how many pages a fleet of n fetches per host: enough that
// every worker has a page waiting at the start.
func fleetPages(n int) int { return max(50, n/fleetHosts*2) }

// serverStats is what INFO says of the server's work so far.
type serverStats struct {
	cmds map[string][2]float64 // command → calls, µs
	cpu  float64               // used_cpu_sys + used_cpu_user, s
}

// readServerStats reads INFO commandstats and INFO cpu.
func readServerStats(b testing.TB, c *redis.Client) serverStats {
	b.Helper()
	st := serverStats{cmds: map[string][2]float64{}}
	for _, section := range []string{"commandstats", "cpu"} {
		info, err := c.Info(context.Background(), section).Result()
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(strings.NewReader(info))
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if name, rest, ok := strings.Cut(line, ":"); ok {
				switch {
				case strings.HasPrefix(name, "cmdstat_"):
					var calls, usec float64
					for kv := range strings.SplitSeq(rest, ",") {
						k, v, _ := strings.Cut(kv, "=")
						f, _ := strconv.ParseFloat(v, 64)
						switch k {
						case "calls":
							calls = f
						case "usec":
							usec = f
						}
					}
					st.cmds[strings.TrimPrefix(name, "cmdstat_")] = [2]float64{calls, usec}
				case name == "used_cpu_sys" || name == "used_cpu_user":
					f, _ := strconv.ParseFloat(rest, 64)
					st.cpu += f
				}
			}
		}
	}
	return st
}

// serverMicros returns the server's µs between before and after spent on
// the commands the clients sent: EVALSHA and EVAL whole (a script's own
// commands run inside them), and of the other commands the share the
// clients sent (by calls), since scripts call some of them too (GET).
// by counts the calls the clients sent, by op (callLog names).
func serverMicros(before, after serverStats, by map[string]int) float64 {
	var us float64
	for name, a := range after.cmds {
		b := before.cmds[name]
		calls, usec := a[0]-b[0], a[1]-b[1]
		if calls <= 0 {
			continue
		}
		switch {
		case name == "evalsha" || name == "eval":
			us += usec
		case by[name] > 0:
			us += usec * min(1, float64(by[name])/calls)
		}
	}
	return us
}

// machine describes the machine the benchmark runs on.
func machine() string {
	model := runtime.GOARCH
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%s, %d CPUs, %s", model, runtime.NumCPU(), runtime.Version())
}

// reportFleet reports one run's figures and logs them as a table row.
func reportFleet(b *testing.B, n, pages int, elapsed time.Duration, log *callLog, from, to time.Time, before, after serverStats) {
	by, total := log.between(from, to)
	b.ReportMetric(float64(pages)/elapsed.Seconds(), "pages/s")
	b.ReportMetric(float64(total)/float64(pages), "calls/page")
	us := serverMicros(before, after, by)
	b.ReportMetric(us/float64(pages), "server-µs/page")
	cpu := (after.cpu - before.cpu) * 1e6 / float64(pages)
	b.ReportMetric(cpu, "server-cpu-µs/page")
	b.Logf("| %d | %d | %.1f | %.2f | %.0f | %.0f | (%s; %s)", n, pages, float64(pages)/elapsed.Seconds(),
		float64(total)/float64(pages), us/float64(pages), cpu, perPage(by, pages), machine())
}

// BenchmarkFleet: N workers, each with a client, a Backend and an
// Extension of its own (an Async collector, Parallelism 2, the retry
// idiom, WithFleetSize(N)), crawl fleetHosts hosts with a Crawl-delay of
// 0.1 s, whose robots.txt the fleet already holds (as after a while of
// crawling: a thousand workers starting at once on one machine would
// otherwise measure their lease polling).
func BenchmarkFleet(b *testing.B) {
	srv := startRedisServerTCP(b)
	stats := newClient(b, "tcp", srv.Addr)
	for _, n := range fleetSizes {
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				sites := make([]*costSite, fleetHosts)
				for j := range sites {
					sites[j] = newCostSite(b, fleetDelay, time.Millisecond)
				}
				run := &fleetRun{workers: n, pages: fleetPages(n), prefix: fmt.Sprintf("bench%d-%d:", n, i), warm: true,
					client: func() redis.UniversalClient {
						o := clientOptions("tcp", srv.Addr)
						o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolSize = 2*time.Second, 2*time.Second, 2*time.Second, 4
						return redis.NewClient(o)
					}}
				before := readServerStats(b, stats)
				crawlSites(b, sites, run)
				after := readServerStats(b, stats)
				pages := run.pages * fleetHosts
				if got := run.got.Load(); got != int64(pages) {
					b.Errorf("%d pages answered; want %d", got, pages)
				}
				var errs, anomalies uint64
				for _, st := range run.stats {
					errs += st.BackendErrors
					anomalies += st.BackendAnomalies
				}
				// A failed call sends its worker to local pacing for a
				// while: what is measured is then not the fleet's pace.
				b.Logf("backend errors %d, anomalies %d", errs, anomalies)
				reportFleet(b, n, pages, run.elapsed, run.log, run.started, run.finished.Add(time.Second), before, after)
			}
		})
	}
}

// protocol is one way of pacing a request through the Backend, as the
// Extension's pacer does it: wait for a start in the OnRequest hook,
// claim the wire at the gate, unclaim at the answer.
type protocol func(ctx context.Context, b *Backend, host, token string) error

// startProtocol is the pacer's protocol with a Claimer: Start until
// granted, each refused request asking again when its wait has passed
// (every waiter at every delay), then Claim until granted, then Unclaim
// once the answer came.
func startProtocol(ctx context.Context, b *Backend, host, token string) error {
	for {
		w, _, err := b.Start(ctx, host, token, fleetDelay)
		if err != nil {
			return err
		}
		if w == 0 {
			break
		}
		time.Sleep(w)
	}
	return claimAndAnswer(ctx, b, host, token, func() (time.Duration, error) {
		w, _, err := b.Claim(ctx, host, token, fleetDelay, 5*time.Second)
		return w, err
	})
}

// queueProtocol is the protocol with a Queuer: Queue with a ticket until
// granted, then ClaimTurn until granted, then Unclaim.
func queueProtocol(ctx context.Context, b *Backend, host, token string) error {
	var ticket int64
	for {
		turn, err := b.Queue(ctx, host, token, ticket, fleetDelay, 5*time.Second)
		if err != nil {
			return err
		}
		if turn.Wait == 0 {
			break
		}
		ticket = turn.Ticket
		time.Sleep(turn.Wait)
	}
	return claimAndAnswer(ctx, b, host, token, func() (time.Duration, error) {
		turn, err := b.ClaimTurn(ctx, host, token, fleetDelay, 5*time.Second)
		return turn.Wait, err
	})
}

// claimAndAnswer claims the wire with claim until granted, takes a
// millisecond for the answer, and unclaims.
func claimAndAnswer(ctx context.Context, b *Backend, host, token string, claim func() (time.Duration, error)) error {
	for {
		w, err := claim()
		if err != nil {
			return err
		}
		if w == 0 {
			break
		}
		time.Sleep(w)
	}
	time.Sleep(time.Millisecond)
	return b.Unclaim(ctx, host, token)
}

// benchProtocol runs N workers, each with a client and a Backend of its
// own, over fleetHosts hosts: the fleet's k-th page goes to worker k mod N
// and host (k + k/N) mod fleetHosts, and each worker paces one page per
// host at a time, as the pacer's one asker per host does.
func benchProtocol(b *testing.B, pace protocol) {
	srv := startRedisServerTCP(b)
	stats := newClient(b, "tcp", srv.Addr)
	for _, n := range fleetSizes {
		b.Run(fmt.Sprintf("workers=%d", n), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				log := &callLog{}
				prefix := fmt.Sprintf("proto%d-%d:", n, i)
				pages := fleetPages(n) * fleetHosts
				var wg sync.WaitGroup
				var paced atomic.Int64
				errs := make(chan error, n*fleetHosts)
				before := readServerStats(b, stats)
				start := time.Now()
				for w := range n {
					o := clientOptions("tcp", srv.Addr)
					o.DialTimeout, o.ReadTimeout, o.WriteTimeout, o.PoolSize = 2*time.Second, 2*time.Second, 2*time.Second, 4
					client := redis.NewClient(o)
					client.AddHook(log)
					be := New(client, WithPrefix(prefix), WithTimeout(2*time.Second), WithHeartbeat(-1))
					byHost := map[string][]int{}
					for k := w; k < pages; k += n {
						h := fmt.Sprintf("host%d.example", (k+k/n)%fleetHosts)
						byHost[h] = append(byHost[h], k)
					}
					for host, ks := range byHost {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for _, k := range ks {
								if err := pace(b.Context(), be, host, fmt.Sprintf("w%d-%d", w, k)); err != nil {
									errs <- err
									return
								}
								paced.Add(1)
							}
						}()
					}
					b.Cleanup(func() { _ = client.Close() })
				}
				wg.Wait()
				finished := time.Now()
				after := readServerStats(b, stats)
				close(errs)
				// A call Redis did not answer within the timeout ends
				// its waiter's pages: count them, as what the fleet
				// did to Redis.
				failed := 0
				for err := range errs {
					if failed == 0 {
						b.Logf("a waiter failed: %v", err)
					}
					failed++
				}
				b.ReportMetric(float64(failed), "failed-waiters")
				reportFleet(b, n, int(paced.Load()), finished.Sub(start), log, start, finished.Add(time.Second), before, after)
			}
		})
	}
}

// BenchmarkFleetProtocolStart: the Claimer protocol (Start polled by every
// waiter at every delay).
func BenchmarkFleetProtocolStart(b *testing.B) { benchProtocol(b, startProtocol) }

// BenchmarkFleetProtocolQueue: the Queuer protocol (one ticket per waiter,
// asked again when its turn comes).
func BenchmarkFleetProtocolQueue(b *testing.B) { benchProtocol(b, queueProtocol) }
