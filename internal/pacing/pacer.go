package pacing

import (
	"cmp"
	"context"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// DefaultMaxDelay caps Crawl-delay and Request-rate values when
// Config.MaxDelay is not given: a minute between requests is already
// slower than any site plausibly means, and an uncapped value
// (Crawl-delay: 86400) would stall a crawl.
const DefaultMaxDelay = 60 * time.Second

// forgetGrace is how recently loaded an entry must have been for Forget to
// spare it: another origin on the same host (http and https) may have just
// loaded it while the evicted one was being dropped. Spared entries are
// removed by a later Loaded call once the grace has passed, unless loaded
// again meanwhile.
const forgetGrace = time.Minute

// jitterShare is the largest random extra of a paced start or a pause,
// as a share of its delay: up to a tenth.
const jitterShare = 0.1

// Config is what a Pacer is built from; New reads it once.
type Config struct {
	// MaxDelay caps the delays obeyed (DefaultMaxDelay when ≤ 0).
	MaxDelay time.Duration
	// Default is the delay of a host whose robots.txt states none for the
	// crawler (Loaded with ok false), capped at MaxDelay; 0 (or less):
	// such a host is not paced.
	Default time.Duration
	// Rand returns a number in [0, 1): the share of the largest jitter
	// (a tenth of the delay) a paced start or a back-off pause gets on top
	// of its delay. nil: the runtime's random numbers (math/rand/v2). Tests
	// pass a fixed one.
	Rand func() float64
	// Logger receives one warning per clamped host and one per host
	// whose Backend answers cannot be right; nil: nothing is logged.
	Logger *slog.Logger
	// Clock is the Pacer's time. The fetch times given to Loaded come
	// from the same clock. A nil Now is time.Now, which the booking then
	// reads through its monotonic part alone (book.go).
	Clock Clock
	// Epoch is the instant 0 of the Pacer's clock: WaitAt takes the clock
	// read as an offset from it. Zero: Clock.Now() when New runs.
	Epoch time.Time
	// Backend keeps the fleet's pace (nil: this process paces alone):
	// through Start and, with a Claimer, Claim when it is a
	// backend.Starter, through Reserve otherwise.
	Backend backend.Backend
	// Health says whether Backend may be tried and takes its failures
	// (nil: always up, failures not reported).
	Health Health
	// ObserveWait is given the wait of each paced request in Wait (nil:
	// none). It runs on the request's goroutine and must not block.
	ObserveWait func(time.Duration)
	// ForgetGrace is how long after a Loaded call Forget spares the
	// host's pace (forgetGrace when ≤ 0); tests shorten it.
	ForgetGrace time.Duration
}

// Pacer spaces the page requests to each host by that host's Crawl-delay
// (or Request-rate interval, whichever is slower), or by Config.Default
// when its robots.txt states neither, counting the robots.txt request as
// the first one. Each start it books in advance gets a random extra of
// up to a tenth of the delay (the jitter), so that crawlers pacing one
// host alike do not arrive in lock-step; the gate keeps the delay itself
// as the floor.
//
// The model is one "latest start" per host, kept in two stages. Wait,
// called from the OnRequest hook, books a slot, max(now, latest+delay),
// and waits for it outside Colly's limiter and the request's timeout.
// Just before the request goes on the wire, Gate, called from the
// OnRequestHeaders hook, lets it start no earlier than delay after the
// previous request to the host actually started and after that request's
// response headers came, and its actual start becomes the new latest. A
// request that was late (CPU load, a user LimitRule) therefore pushes the
// next one back instead of crowding it, and the delay is kept at the
// server (gate.go).
//
// With a Backend that is a Starter (backend.Memory and redisbackend are),
// the fleet's pace is kept there, by the Backend's clock: Wait asks it for
// a start and waits, outside Colly's parallelism slots, until one is
// granted; Gate confirms the start right before the wire and, with a
// Claimer, claims the host fleet-wide until the response headers come, so
// that the next start anywhere counts from them (fleet.go, claim.go).
// With a Queuer (both are), Wait takes a ticket in the host's queue and
// asks again when its turn is near, the gate claims with ClaimTurn, and
// the host's fleet-wide back-off comes with each answer (queue.go). A
// Backend with Reserve only books the fleet's slot at the gate, once this
// process's own claim on the host is granted, which takes one of Colly's
// parallelism slots while it waits. When the Backend fails, the Pacer
// paces locally from this worker's own latest start with the delay
// multiplied by the fleet size (see backend.FleetSizer), which stays
// polite while the fleet cannot agree, and while Health says the fleet is
// recovering each worker keeps to that share. Every wait a Backend
// returns is checked against the delay; one that cannot be right is
// counted (Anomalies) and paced locally instead.
//
// Hosts without a delay (a stated "Crawl-delay: 0", or any host when
// Config.Default is 0) take no memory and cost no lock: one atomic load
// per call while no host has a delay. A paced host's next start is
// booked with a compare-and-swap, without the lock, when the request
// before was to the same host, and under it once otherwise (book.go). A host's entry lives until its
// robots.txt is loaded again without a delay or Forget is called for it,
// so the map is no larger than the caller's robots.txt cache, plus
// entries Forget spared for at most a minute (see forgetGrace). A Pacer is
// safe for concurrent use; it starts no goroutines.
type Pacer struct {
	max     time.Duration   // cap on delays; set by New, read-only after
	grace   time.Duration   // Config.ForgetGrace or forgetGrace; set by New, read-only after
	logger  *slog.Logger    // never nil; set by New, read-only after
	backend backend.Backend // books slots fleet-wide; nil: locally
	starter backend.Starter // backend as a Starter, nil when it is not one (fleet.go)
	claimer backend.Claimer // backend as a Claimer, nil when it is not one (claim.go)
	queuer  backend.Queuer  // backend as a Queuer, nil when it is not one (queue.go)
	// backoff takes the host's back-off a Queuer answers with (queue.go);
	// set by NewBackoff before first use when the Backoff shares the
	// fleet's pauses, read-only after.
	backoff *Backoff
	health  Health // may be nil: the backend is always up
	observe func(time.Duration)
	names   tokenSource    // names this process's requests in the Starter
	def     time.Duration  // Config.Default, ≤ max; 0: silent hosts are not paced
	rand    func() float64 // Config.Rand; nil: random (see random)

	// now and sleep are Config.Clock's.
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
	// epoch is now() when New ran: a host's latest booked start is kept
	// as an offset from it, an instant, which fits an atomic word
	// (book.go). realClock: Config.Clock.Now was nil, and the booking
	// reads the monotonic clock alone (time.Since), not time.Now.
	epoch     time.Time
	realClock bool
	// last is the pace the latest lookup by key found, read without mu
	// by a booking for that same host (book.go); set under mu, and
	// cleared by drop when that pace goes.
	last atomic.Pointer[hostPace]

	nclamped atomic.Uint64 // delays clamped to max, one per Loaded call
	npaced   atomic.Int64  // len(hosts), readable without mu
	// left and arrived count the requests that left the OnRequest hook
	// for the wire and those that reached the gate (turnhold.go).
	left, arrived atomic.Uint64
	ntracked      atomic.Int64 // len(reqs), readable without mu
	// nanomalies counts Backend answers that cannot be right (fleet.go,
	// and the back-off's through Backoff.pacer).
	nanomalies atomic.Uint64

	mu     sync.Mutex           // guards the fields below; never held while waiting or logging
	hosts  map[string]*hostPace // by HostKey; only hosts with a delay
	claims map[any]string       // token → key of the host it claims (gate.go)
	tombs  map[string]tomb      // host key → the pace Forget dropped, for a request already past the cache (tomb.go)
	reqs   map[any]*url.URL     // token → first URL of requests in flight (gate.go)
	byURL  map[*url.URL]any     // first URL → token, for redirect hops (gate.go)
	grants map[any]grant        // request token → its Starter grant (fleet.go)
	// fleetClaims maps a request token to its fleet-wide claim
	// (Claimer.Claim; claim.go).
	fleetClaims map[any]grant
	// unclaimLater keeps, per host key, the fleet-wide claim whose Unclaim
	// failed, to be made again (claim.go); at most one per paced host.
	unclaimLater map[string]grant
	doomed       int // entries with forgotten set
	// slotWait is the longest time a turn lately took from the hook to
	// the gate, as of slotWaitAt; peakInFlight the most requests ever in
	// reqs at once, and fullAt when they were last that many (turnhold.go).
	slotWait     time.Duration
	slotWaitAt   time.Time
	peakInFlight int
	fullAt       time.Time
	sweptAt      time.Time // when Loaded last looked for doomed entries
}

// hostPace is one host's pace. Its fields are guarded by Pacer.mu, but
// for key, set once, and the atomics, which a booking reads and writes
// without the lock (book.go).
type hostPace struct {
	key string // its HostKey; read-only

	// latest is the latest slot booked locally or start seen, an
	// instant of the Pacer (book.go); it is never before lastStart, so a
	// booking needs it alone. Written under mu by raising it (raise) or
	// by Unbook, and by a booking's compare-and-swap without mu.
	latest atomic.Int64
	// pace mirrors delay for a booking without mu; Loaded sets both.
	pace    atomic.Int64
	waiting atomic.Int64 // requests waiting in Wait for their turn
	// localAt is when a request to the host was last paced locally for
	// the fleet (the Backend failing for it), an instant; 0: never.
	localAt atomic.Int64

	delay     time.Duration // minimum time between request starts; > 0, ≤ Pacer.max
	byDefault bool          // delay is Config.Default: robots.txt stated none
	lastStart time.Time     // when the latest request to the host passed the gate
	loadedAt  time.Time     // Pacer clock at the latest Loaded call

	// The local claim (gate.go): at most one request to the host is
	// between the gate and its response headers.
	busy      bool          // a request claims the host
	claimant  any           // its token
	claimedAt time.Time     // when it claimed the host
	doneAt    time.Time     // when the latest request's response headers (or error) came
	passAt    time.Time     // when the latest request was given its turn (turn.go)
	turnTok   any           // the request given the turn, until it reaches the gate or its hold ends (turn.go)
	turnSeq   uint64        // Pacer.left when the turn was given (turnhold.go)
	dropped   bool          // removed from Pacer.hosts (drop): a booking holding it looks again
	idle      chan struct{} // closed when the claim ends; nil until someone waits
	forgotten bool          // Forget came within forgetGrace of loadedAt
	warned    bool          // the clamp was logged for this host

	acq           chan struct{} // capacity 1: taken by the request asking a Starter (fleet.go)
	givenBack     int           // turns given back at the gate in a row (giveback.go)
	anomalyWarned bool          // a Backend anomaly was logged for this host
}

// New returns a Pacer built from cfg.
func New(cfg Config) *Pacer {
	if cfg.MaxDelay <= 0 {
		cfg.MaxDelay = DefaultMaxDelay
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	clk := cfg.Clock.settled()
	pc := &Pacer{
		def:       min(max(cfg.Default, 0), cfg.MaxDelay),
		rand:      cfg.Rand,
		max:       cfg.MaxDelay,
		grace:     cmp.Or(max(cfg.ForgetGrace, 0), forgetGrace),
		logger:    cfg.Logger,
		backend:   cfg.Backend,
		health:    cfg.Health,
		observe:   cfg.ObserveWait,
		now:       clk.Now,
		sleep:     clk.Sleep,
		realClock: cfg.Clock.Now == nil,
		hosts:     make(map[string]*hostPace),
		claims:    make(map[any]string),
		tombs:     make(map[string]tomb),
		reqs:      make(map[any]*url.URL),
		byURL:     make(map[*url.URL]any),
		grants:    make(map[any]grant),

		fleetClaims:  make(map[any]grant),
		unclaimLater: make(map[string]grant),
	}
	pc.epoch = cfg.Epoch
	if pc.epoch.IsZero() {
		pc.epoch = pc.now()
	}
	pc.names.prefix = newTokenPrefix()
	if s, ok := cfg.Backend.(backend.Starter); ok && s != nil {
		pc.starter = s
		if c, ok := s.(backend.Claimer); ok {
			pc.claimer = c
		}
		if q, ok := s.(backend.Queuer); ok {
			pc.queuer = q
		}
	}
	return pc
}

// Paced reports whether some host has a delay. While none has, every
// call of the Pacer returns at once without a lock.
func (pc *Pacer) Paced() bool { return pc.npaced.Load() != 0 }

// Default returns the delay of a host whose robots.txt states none (0:
// such a host is not paced).
func (pc *Pacer) Default() time.Duration { return pc.def }

// jitter returns the random extra of a paced start or a pause of d: at
// least 0, less than a tenth of d.
func (pc *Pacer) jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return jitterOf(d, pc.random())
}

// random returns Config.Rand's next number, or without one a random number
// in [0, 1) from the runtime's generator, called directly: through
// rand.Float64 it would cost an interface call more per paced request.
func (pc *Pacer) random() float64 {
	if pc.rand != nil {
		return pc.rand()
	}
	return float64(rand.Uint64()>>11) / (1 << 53)
}

// jitterOf is the extra of a wait of d for the random share u in [0, 1).
func jitterOf(d time.Duration, u float64) time.Duration {
	if !(u > 0) || u >= 1 { // NaN and out-of-range values of a broken Rand add nothing
		return 0
	}
	return time.Duration(u * jitterShare * float64(d))
}

// MaxDelay returns the cap on delays.
func (pc *Pacer) MaxDelay() time.Duration { return pc.max }

// Clamped reports how many delays were clamped to MaxDelay, one per
// Loaded call.
func (pc *Pacer) Clamped() uint64 { return pc.nclamped.Load() }

// Anomalies reports how many Backend answers could not be right: a wait
// longer than the host's delay allows (paced locally instead), or a
// stored pace or pause the Backend found unreadable and replaced.
func (pc *Pacer) Anomalies() uint64 { return pc.nanomalies.Load() }

// effectiveDelay is the pause to keep between requests to a host whose
// robots.txt asks for delay (ok false: states none, and def, the default,
// applies), capped at maxDelay. paced is false when there is nothing to
// enforce (a stated delay of 0, or no default); clamped reports that the
// cap cut a stated delay.
func effectiveDelay(delay time.Duration, ok bool, def, maxDelay time.Duration) (d time.Duration, paced, clamped bool) {
	switch {
	case !ok:
		return min(def, maxDelay), def > 0, false
	case delay <= 0:
		return 0, false, false
	case delay > maxDelay:
		return maxDelay, true, true
	default:
		return delay, true, false
	}
}

// Loaded is called each time an origin's robots.txt has been fetched (or
// fetched again) for host (URL.Host form, "name:port" when a port is
// given): delay is what it asks of the crawler (ok false: it states
// nothing, and the host is paced by Config.Default), fetchedAt is when
// the robots.txt request was sent, which counts toward the host's pace.
// The new delay applies from the next request on; a stated delay of 0
// (or no delay without a default) stops the pacing.
func (pc *Pacer) Loaded(host string, delay time.Duration, ok bool, fetchedAt time.Time) {
	d, paced, clamped := effectiveDelay(delay, ok, pc.def, pc.max)
	key := HostKey(host)
	now := pc.now()
	warn := false

	pc.mu.Lock()
	delete(pc.tombs, key) // the host's pace is known afresh
	h := pc.hosts[key]
	if h != nil && h.forgotten {
		h.forgotten = false
		pc.doomed--
	}
	switch {
	case !paced:
		pc.drop(key)
	case h == nil:
		// The robots.txt answer has come: the first page waits the delay
		// after it (fetchedAt ≤ now is its start).
		h = &hostPace{key: key, delay: d, byDefault: !ok, lastStart: fetchedAt, loadedAt: now, doneAt: now, acq: make(chan struct{}, 1)}
		h.latest.Store(pc.instant(fetchedAt))
		h.pace.Store(int64(d))
		pc.hosts[key] = h
	default:
		h.delay, h.byDefault, h.loadedAt = d, !ok, now
		h.pace.Store(int64(d))
		// max, not assignment: when the fetch was itself given a slot by
		// PaceFetch, fetchedAt is that slot and must not be counted twice.
		h.raise(pc.instant(fetchedAt))
		if fetchedAt.After(h.lastStart) {
			h.lastStart = fetchedAt
		}
		h.doneAt = later(h.doneAt, now)
	}
	pc.npaced.Store(int64(len(pc.hosts)))
	if clamped {
		warn = !h.warned
		h.warned = true
	}
	if pc.doomed > 0 && now.Sub(pc.sweptAt) >= pc.grace {
		pc.sweep(now)
	}
	pc.mu.Unlock()

	if clamped {
		pc.nclamped.Add(1)
	}
	if warn {
		pc.logger.Warn("robotsext: Crawl-delay above the maximum, clamped",
			"host", host, "crawl_delay", delay, "max", pc.max)
	}
}

// sweep drops the entries Forget spared once their grace has passed and
// they are settled. It
// runs at most once per forgetGrace, and only while some are spared.
// pc.mu must be held.
func (pc *Pacer) sweep(now time.Time) {
	pc.sweptAt = now
	for key, h := range pc.hosts {
		if h.forgotten && now.Sub(h.loadedAt) >= pc.grace && pc.settled(h, now) {
			pc.bury(h, now)
			pc.drop(key)
			pc.doomed--
		}
	}
	pc.npaced.Store(int64(len(pc.hosts)))
}

// Forget drops host's pace. The caller calls it when its robots.txt cache
// drops the last origin on host, which bounds the Pacer's memory by the
// cache's; the next robots.txt fetch for the host calls Loaded again. An
// entry loaded within forgetGrace, or not settled (a request claims the
// host or waits for it, or its latest start, answer or turn is less than
// a delay old: see settled), is only marked, and a later sweep drops it.
func (pc *Pacer) Forget(host string) {
	key := HostKey(host)
	now := pc.now()
	pc.mu.Lock()
	defer pc.mu.Unlock()
	h := pc.hosts[key]
	switch {
	case h == nil || h.forgotten:
	case now.Sub(h.loadedAt) >= pc.grace && pc.settled(h, now):
		pc.bury(h, now) // tomb.go
		pc.drop(key)
		pc.npaced.Store(int64(len(pc.hosts)))
	default:
		h.forgotten = true
		pc.doomed++
	}
}
