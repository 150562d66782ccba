package redisbackend

// The worker side of the multi-process tests: the test binary started
// again with envWorker set crawls the sites it is given through one
// Colly collector with robotsext, sharing state through Redis (or not,
// for the control runs), and reports on stdout what it fetched.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext"
)

// The environment of a worker process.
const (
	envWorker  = "REDISBACKEND_TEST_WORKER"  // the worker's id; set: run as a worker
	envRedis   = "REDISBACKEND_TEST_REDIS"   // "unix:/path" or "tcp:host:port"; empty: no backend
	envSites   = "REDISBACKEND_TEST_SITES"   // base URLs, comma-separated
	envPages   = "REDISBACKEND_TEST_PAGES"   // pages to fetch per site
	envSkew    = "REDISBACKEND_TEST_SKEW"    // added to the worker's clock (robotsext.WithClock)
	envTimeout = "REDISBACKEND_TEST_TIMEOUT" // robots.txt fetch timeout (robotsext.WithTimeout)
	envFleet   = "REDISBACKEND_TEST_FLEET"   // WithFleetSize; empty: not set
	envPass    = "REDISBACKEND_TEST_PASS"    // the password the client sends; empty: none
	envSpin    = "REDISBACKEND_TEST_SPIN"    // goroutines that burn CPU while the worker crawls
)

// workerReport is the last line a worker prints, as JSON.
type workerReport struct {
	ID            string
	Fetched       int
	Errors        []string
	RobotsFetches uint64 // robots.txt fetches this worker made
	BackendErrors uint64
	FleetSize     int
	Trips         uint64 // times the Redis Backend's breaker opened
	Calls         uint64 // Redis calls the Backend made, heartbeats included
}

// runWorker is a worker process's main; it returns the exit code.
func runWorker() int {
	id := os.Getenv(envWorker)
	pages, _ := strconv.Atoi(os.Getenv(envPages))
	skew, _ := time.ParseDuration(os.Getenv(envSkew))
	timeout, _ := time.ParseDuration(os.Getenv(envTimeout))
	fleetSize, _ := strconv.Atoi(os.Getenv(envFleet))
	spinners, _ := strconv.Atoi(os.Getenv(envSpin))
	stop := spin(spinners)
	defer stop()

	c := colly.NewCollector(colly.UserAgent("fleetbot/1.0 (worker " + id + ")"))
	c.SetRequestTimeout(10 * time.Second)
	opts := []robotsext.Option{
		robotsext.WithClock(func() time.Time { return time.Now().Add(skew) }),
		robotsext.WithTimeout(timeout),
	}
	var backend *Backend
	if r := os.Getenv(envRedis); r != "" {
		network, addr, _ := strings.Cut(r, ":")
		// Timeouts longer than production's: these workers share a
		// loaded machine (-race, parallel tests), and a call that times
		// out sends the Extension to its local fallback, which the
		// checks would then count as a second robots.txt fetch.
		o := clientOptions(network, addr)
		o.DialTimeout, o.ReadTimeout, o.WriteTimeout = 2*time.Second, 2*time.Second, 2*time.Second
		o.Password = os.Getenv(envPass)
		client := redis.NewClient(o)
		defer client.Close()
		backend = New(client, WithHeartbeat(200*time.Millisecond), WithTimeout(2*time.Second), WithFleetSize(fleetSize))
		defer backend.Close(context.Background())
		opts = append(opts, robotsext.WithBackend(backend))
	}
	ext := robotsext.Apply(c, opts...)

	rep := workerReport{ID: id}
	c.OnResponse(func(r *colly.Response) {
		rep.Fetched++
		fmt.Printf("fetched %s\n", r.Request.URL)
	})
	c.OnError(func(r *colly.Response, err error) {
		rep.Errors = append(rep.Errors, fmt.Sprintf("%s: %v", r.Request.URL, err))
	})
	sites := strings.Split(os.Getenv(envSites), ",")
	for p := range pages {
		for _, site := range sites {
			if err := c.Visit(fmt.Sprintf("%s/%s/page%d", site, id, p)); err != nil {
				rep.Errors = append(rep.Errors, err.Error())
			}
		}
	}
	st := ext.Stats()
	for _, n := range st.Fetches {
		rep.RobotsFetches += n
	}
	rep.BackendErrors = st.BackendErrors
	if backend != nil {
		rep.FleetSize = backend.FleetSize()
		rep.Trips = backend.Stats().Trips
		rep.Calls = backend.Stats().Calls
	}
	out, _ := json.Marshal(rep)
	fmt.Printf("report %s\n", out)
	return 0
}

// spin starts n goroutines that keep a CPU busy until the returned
// function is called.
func spin(n int) (stop func()) {
	var stopped atomic.Bool
	for range n {
		go func() {
			for !stopped.Load() {
				// Busy on purpose: the worker is to be short of CPU.
			}
		}()
	}
	return func() { stopped.Store(true) }
}
