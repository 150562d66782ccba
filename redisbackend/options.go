package redisbackend

import (
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"
)

// Defaults of the options.
const (
	// DefaultPrefix starts every key the Backend writes.
	DefaultPrefix = "robotsext:"
	// DefaultTimeout bounds each Redis call. Loopback round trips take
	// tens of microseconds and a LAN's well under a millisecond; a call
	// still unanswered after this long is treated as Redis being down.
	DefaultTimeout = 250 * time.Millisecond
	// DefaultBreakerFailures is how many consecutive failed calls open
	// the circuit breaker.
	DefaultBreakerFailures = 5
	// DefaultBreakerCoolDown is how long an open breaker fails calls
	// before it lets a probe through.
	DefaultBreakerCoolDown = 2 * time.Second
	// DefaultRecoveryGrace is how long after a failed call Reserve keeps
	// multiplying delays by FleetSize (see WithRecoveryGrace).
	DefaultRecoveryGrace = 15 * time.Second
	// DefaultHeartbeat is how often a Backend in use renews its entry in
	// the fleet set. An entry older than three heartbeats is pruned.
	DefaultHeartbeat = 5 * time.Second
)

// Option configures New.
type Option func(*config)

type config struct {
	prefix    string
	timeout   time.Duration
	failures  int
	coolDown  time.Duration
	heartbeat time.Duration // < 0: no heartbeat
	grace     time.Duration // < 0: none
	workerID  string        // "": host name and process id
	fleetSize int           // 0: none given (FleetSize keeps the largest count seen)
	inFlightN int           // 0: the client's pool; < 0: no bound
	logger    *slog.Logger  // nil: slog.Default() at the time of logging
	now       func() time.Time
}

func newConfig(opts []Option) config {
	c := config{
		prefix:    DefaultPrefix,
		timeout:   DefaultTimeout,
		failures:  DefaultBreakerFailures,
		coolDown:  DefaultBreakerCoolDown,
		heartbeat: DefaultHeartbeat,
		grace:     DefaultRecoveryGrace,
		now:       time.Now,
	}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// WithPrefix sets the string every key starts with, "robotsext:" by
// default, so that several crawls (or a test and a production crawl) can
// share one Redis without sharing state. Backends of one crawl must use
// the same prefix. An empty prefix restores the default. A prefix holding
// '{' or '}' is refused: Redis Cluster would hash every key by it, all in
// one slot; the Backend then logs an error at New and every call fails
// with an error wrapping ErrBadPrefix (check with CheckPrefix first).
func WithPrefix(prefix string) Option {
	return func(c *config) {
		if prefix == "" {
			prefix = DefaultPrefix
		}
		c.prefix = prefix
	}
}

// WithTimeout bounds each Redis call, 250 ms by default; values ≤ 0
// restore it. A call still unanswered at the bound fails and counts as a
// Redis failure for the breaker and Healthy, and the Extension falls back
// to local fetching and pacing for it. With a client made with
// ContextTimeoutEnabled: true (recommended) the bound reaches the socket;
// with any other client the Backend stops waiting at the bound and leaves
// the command to finish in the background, where go-redis bounds it by
// its own ReadTimeout (3 s by default) while it holds a pooled connection.
func WithTimeout(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			d = DefaultTimeout
		}
		c.timeout = d
	}
}

// WithBreaker sets the circuit breaker: after failures consecutive failed
// calls (5 by default) every call fails at once with ErrUnavailable for
// coolDown (2 s by default); then one call is let through as a probe, and
// its success closes the breaker while its failure opens it for another
// coolDown. Calls that were in flight together and fail count as one: a
// failure counts only for a call sent after the previous one was counted,
// since one stall of this process (a GC pause, a machine short of CPU)
// times out every call in flight at once while Redis is fine; calls sent
// one after another into a Redis that is down count one each. Failing fast keeps a crawl moving while Redis is down instead
// of spending a timeout on every request. Values ≤ 0 restore the defaults.
func WithBreaker(failures int, coolDown time.Duration) Option {
	return func(c *config) {
		if failures <= 0 {
			failures = DefaultBreakerFailures
		}
		if coolDown <= 0 {
			coolDown = DefaultBreakerCoolDown
		}
		c.failures, c.coolDown = failures, coolDown
	}
}

// WithHeartbeat sets how often a Backend in use renews its entry in the
// fleet set that FleetSize counts, 5 s by default (0 restores it). The
// renewal is one extra Redis call per interval, made in the background by
// the first call after the interval has passed, so an idle Backend makes
// none and drops out of the count after three intervals. A negative d
// turns the heartbeat off: FleetSize then reports 1, or the n of
// WithFleetSize.
func WithHeartbeat(d time.Duration) Option {
	return func(c *config) {
		if d == 0 {
			d = DefaultHeartbeat
		}
		c.heartbeat = d
	}
}

// WithRecoveryGrace sets how long after a failed call Reserve books each
// host's delay multiplied by FleetSize, 15 s by default (0 restores it, a
// negative d turns it off). While Redis is away each worker paces locally
// at that multiple; the workers do not come back to Redis at the same
// moment (the Extension retries a failed backend after a cool-down of its
// own, 5 s), and one booking the plain delay in Redis while the others
// still pace locally would send the host more than its Crawl-delay
// allows. The grace keeps every worker at the fleet's share until all are
// back; it costs a few seconds of slower pacing after an outage. Purges
// also waits for the grace to pass before it reports a purge log that
// was lost (see Purges).
func WithRecoveryGrace(d time.Duration) Option {
	return func(c *config) {
		if d == 0 {
			d = DefaultRecoveryGrace
		}
		c.grace = d
	}
}

// WithWorkerID names this worker for operators: every lease token it
// takes starts with the id ("<id>/<random>"), so that robotsadmin and
// Inspect show which worker is fetching an origin's robots.txt, and its
// entry in the fleet set is the id followed by a random suffix of this
// Backend ("<id>/<suffix>", ZRANGE robotsext:fleet 0 -1 WITHSCORES). The
// default is the host name and the process id, "<host>/<pid>"; "" restores
// it. Ids need not be unique: each Backend counts once in FleetSize, and
// the random parts keep tokens apart.
func WithWorkerID(id string) Option {
	return func(c *config) { c.workerID = id }
}

// WithFleetSize sets the number of workers every Backend of the fleet
// assumes until heartbeats show more: FleetSize never reports less, so the
// Extension's local fallback (each worker paces a host at its Crawl-delay
// × FleetSize while Redis is away) keeps the fleet within the delay even
// for a worker that never reached Redis. Above n, FleetSize follows the
// heartbeats of the last few intervals and may come back down to n when
// workers leave.
//
// Without it, FleetSize starts at 1 and never reports less than the
// largest count this Backend has learnt since New: a fleet that shrinks
// keeps pacing its fallback as if it were still at its largest, which is
// slower but never faster than polite. Set it to the number of workers
// you run. Values below 1 restore the default.
func WithFleetSize(n int) Option {
	return func(c *config) { c.fleetSize = max(n, 0) }
}

// WithInFlight bounds the Backend's calls in flight at once to n. By
// default (n = 0) the bound is the client's pool: its PoolSize (go-redis's
// default is 10 per CPU), or MaxActiveConns when smaller, and one node's
// pool for a ClusterClient or a Ring. A call beyond the bound waits in the
// process for another to end, as long as its caller's context allows,
// before its per-call timeout (WithTimeout) starts: a crawl that asks
// for thousands of requests' turns at once then queues them here instead
// of failing those that wait for a connection past the timeout, which
// would count as Redis failures, open the breaker and send the requests
// to local pacing. Half of the bound, rounded down, is kept for urgent
// calls (a request's wire claim in its Colly slot, its release, a
// robots.txt lease's renewal), so that such a burst never holds them up.
// Give a lower n when the client also serves others (a
// Colly storage, the page cache) that need connections of their own; a
// negative n lifts the bound. Stats.Waited counts the calls that waited,
// and the first urgent call that waited longer than WithTimeout is logged
// at Warn: give the client a larger PoolSize (see docs/scaling.md).
func WithInFlight(n int) Option {
	return func(c *config) { c.inFlightN = n }
}

// inFlight returns the bound on calls in flight for client: 0 for none.
func (c *config) inFlight(client redis.UniversalClient) int {
	switch {
	case c.inFlightN < 0:
		return 0
	case c.inFlightN > 0:
		return c.inFlightN
	}
	return poolSize(client)
}

// WithLogger sets where the Backend logs what an operator must know,
// such as a Redis whose maxmemory-policy may evict the fleet's state (see
// EvictionPolicy); nil, the default, logs to slog.Default().
func WithLogger(l *slog.Logger) Option {
	return func(c *config) { c.logger = l }
}

// log returns the logger to use now.
func (c *config) log() *slog.Logger {
	if c.logger != nil {
		return c.logger
	}
	return slog.Default()
}
