// Command fleet_queue runs the setup crawler fleets run: several worker
// processes, each an Async Colly collector with a LimitRule Parallelism of
// 8, pulling URLs from one frontier in Redis and pushing the links their
// pages hold back into it. robotsext.Apply(c,
// robotsext.WithBackend(redisbackend.New(client))) is the only line
// robots.txt needs. The report at the end shows, with figures measured at
// the servers, that the fleet
//
//   - fetched each site's robots.txt once, not once per worker;
//   - kept the Crawl-delay between the requests of all workers together;
//   - never sent a disallowed URL, whichever worker claimed it, and
//     reported each through OnBlocked with its rule and line;
//   - fetched every page exactly once.
//
// The frontier is a Redis list, de-duplicated through a set (SADD answers 1
// only to the first worker to find a URL); the workers stop when the list
// is empty and no URL is being fetched (see frontier.go for how they know).
//
// Offline and self-contained: the parent starts miniredis (an in-process
// server speaking the Redis protocol) and three demo sites on loopback,
// then runs this program again as each worker. news asks for a Crawl-delay
// of 1 s and has 8 pages, so a run takes about 8 s; shop disallows
// /private/, which its pages link to; blog has no robots.txt. Neither shop
// nor blog states a Crawl-delay, so robotsext paces both by its default
// pace, one request per second for the whole fleet. With -redis
// ADDR the fleet shares a real Redis instead, under a key prefix of the
// run's own that is deleted at the end.
//
//	cd _examples/fleet_queue && go run .
//	go run . -redis localhost:6379
//	go run . -workers 5
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

func main() {
	redisAddr := flag.String("redis", "", "`ADDR` of a Redis to share (default: an in-process miniredis on loopback)")
	workers := flag.Int("workers", 3, "worker processes")
	timeout := flag.Duration("timeout", time.Minute, "give up after this long")
	workerID := flag.String("worker", "", "run as worker `ID` (used by the fleet itself)")
	prefix := flag.String("prefix", "", "the run's Redis key prefix (used by the fleet itself)")
	callTimeout := flag.Duration("call-timeout", 0, "bound on each Redis call of the backend (used by the fleet itself; 0: redisbackend's default)")
	flag.Parse()
	log.SetFlags(0)

	if *workerID != "" {
		if err := workerMain(*redisAddr, *prefix, *workerID, *workers, *timeout, *callTimeout); err != nil {
			log.Fatalf("worker %s: %v", *workerID, err)
		}
		return
	}
	rep, err := run(config{
		Workers:    *workers,
		RedisAddr:  *redisAddr,
		PacedPages: 8,
		Delay:      time.Second,
		Timeout:    *timeout,
		Spawn:      spawnProcesses,
	})
	if err != nil {
		log.Fatal(err)
	}
	rep.print(os.Stdout)
	if !rep.ok() {
		os.Exit(1)
	}
}

// config is one run of the example.
type config struct {
	Workers    int
	RedisAddr  string        // "" starts a miniredis
	PacedPages int           // the paced site's pages
	Delay      time.Duration // the paced site's Crawl-delay
	Timeout    time.Duration // bounds the whole run
	// Spawn runs n workers sharing the Redis at addr under the key prefix,
	// their backends' calls bounded by callTimeout (0: redisbackend's
	// default), and returns when every one has stopped.
	Spawn func(ctx context.Context, n int, addr, prefix string, callTimeout time.Duration) error
}

// miniredisCallTimeout bounds each backend call when the fleet shares the
// miniredis this program starts. miniredis runs the backend's Lua scripts
// in an interpreter written in Go, inside the parent process, on the CPUs
// the workers use too: on a loaded machine a call can take longer than
// redisbackend.DefaultTimeout (250 ms), and a worker whose call fails paces
// on its own, which keeps the fleet's rate but not each gap. A real Redis
// (-redis ADDR) answers in well under a millisecond and keeps the default.
const miniredisCallTimeout = 2 * time.Second

// run starts Redis (unless cfg names one) and the demo sites, queues the
// sites' home pages, lets cfg.Spawn's workers crawl, and returns what the
// workers and the servers saw. The keys of the run are deleted at the end.
func run(cfg config) (*report, error) {
	ctx, cancel := context.WithTimeout(context.Background(), cfg.Timeout)
	defer cancel()

	addr, redisName := cfg.RedisAddr, "Redis at "+cfg.RedisAddr
	var callTimeout time.Duration // redisbackend's default
	if addr == "" {
		callTimeout = miniredisCallTimeout
		m := miniredis.NewMiniRedis()
		if err := m.StartAddr("127.0.0.1:0"); err != nil {
			return nil, err
		}
		defer m.Close()
		m.ClockTTL(true) // keys expire with the wall clock, as in Redis
		addr, redisName = m.Addr(), "miniredis at "+m.Addr()
	}
	rdb := newClient(addr)
	defer rdb.Close()
	if err := rdb.Ping(ctx).Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", redisName, err)
	}
	// A prefix of the run's own, so that a shared Redis holds other crawls,
	// and earlier runs of this one, apart.
	prefix := "fleet-queue:" + rand.Text()[:8] + ":"

	sites := demoSites(cfg.PacedPages, cfg.Delay)
	for _, s := range sites {
		s.start()
		defer s.srv.Close()
	}

	rep, err := crawl(ctx, cfg, rdb, prefix, sites, callTimeout)
	cleanCtx, cancelClean := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelClean()
	removed, cerr := removeKeys(cleanCtx, rdb, prefix)
	if err != nil || cerr != nil {
		return nil, errors.Join(err, cerr)
	}
	rep.Redis, rep.Prefix, rep.Removed = redisName, prefix, removed
	return rep, nil
}

// crawl queues the sites' home pages, runs the workers and gathers the
// report.
func crawl(ctx context.Context, cfg config, rdb *redis.Client, prefix string, sites []*site, callTimeout time.Duration) (*report, error) {
	q := newFrontier(rdb, prefix)
	for _, s := range sites {
		if _, err := q.push(ctx, s.srv.URL+"/"); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	if err := cfg.Spawn(ctx, cfg.Workers, rdb.Options().Addr, prefix, callTimeout); err != nil {
		return nil, err
	}
	took := time.Since(start)
	rep, err := newReport(ctx, q, cfg.Workers, sites)
	if err != nil {
		return nil, err
	}
	rep.Took = took
	return rep, nil
}

// spawnProcesses runs n workers as processes of this program.
func spawnProcesses(ctx context.Context, n int, addr, prefix string, callTimeout time.Duration) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			cmd := exec.CommandContext(ctx, self, "-worker", strconv.Itoa(i+1), "-workers", strconv.Itoa(n),
				"-redis", addr, "-prefix", prefix, "-call-timeout", callTimeout.String())
			cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr // workers print only trouble
			if err := cmd.Run(); err != nil {
				errs[i] = fmt.Errorf("worker %d: %w", i+1, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// workerMain is a worker process: one worker with a Redis client of its
// own.
func workerMain(addr, prefix, id string, fleetSize int, timeout, callTimeout time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	rdb := newClient(addr)
	defer rdb.Close()
	return runWorker(ctx, rdb, prefix, id, fleetSize, callTimeout)
}

// newClient returns a client of the Redis at addr.
func newClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{
		Addr:                  addr,
		ContextTimeoutEnabled: true, // the backend's per-call timeouts reach the socket
		DialTimeout:           time.Second,
	})
}

// removeKeys deletes every key under prefix and returns how many there
// were.
func removeKeys(ctx context.Context, rdb *redis.Client, prefix string) (int, error) {
	n := 0
	it := rdb.Scan(ctx, 0, prefix+"*", 100).Iterator()
	for it.Next(ctx) {
		if err := rdb.Del(ctx, it.Val()).Err(); err != nil {
			return n, err
		}
		n++
	}
	return n, it.Err()
}
