package redisbackend

import "time"

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
	workerID  string
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
// the same prefix. An empty prefix restores the default.
func WithPrefix(prefix string) Option {
	return func(c *config) {
		if prefix == "" {
			prefix = DefaultPrefix
		}
		c.prefix = prefix
	}
}

// WithTimeout bounds each Redis call, 250 ms by default; values ≤ 0
// restore it. The bound reaches the network only when the client was made
// with ContextTimeoutEnabled: true; otherwise go-redis waits for its own
// ReadTimeout (3 s by default) and the bound only limits waiting for a
// pooled connection. A timed-out call counts as a failure for the breaker,
// and the Extension falls back to local fetching and pacing for it.
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
// coolDown. Failing fast keeps a crawl moving while Redis is down instead
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
// turns the heartbeat off: FleetSize then reports 1.
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
// back; it costs a few seconds of slower pacing after an outage.
func WithRecoveryGrace(d time.Duration) Option {
	return func(c *config) {
		if d == 0 {
			d = DefaultRecoveryGrace
		}
		c.grace = d
	}
}

// WithWorkerID names this Backend in the fleet set, for operators
// inspecting it (ZRANGE robotsext:fleet 0 -1 WITHSCORES). By default the
// id is the host name, the process id and a random suffix. Ids must be
// unique within the fleet, or workers are counted once.
func WithWorkerID(id string) Option {
	return func(c *config) { c.workerID = id }
}
