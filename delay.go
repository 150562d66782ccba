package robotsext

import (
	"context"
	"github.com/robotsext/robotsext/backend"
	"log/slog"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
)

// defaultMaxCrawlDelay caps Crawl-delay and Request-rate values when
// WithMaxCrawlDelay is not given: a minute between requests is already slower
// than any site plausibly means, and an uncapped value (Crawl-delay: 86400)
// would stall a crawl.
const defaultMaxCrawlDelay = 60 * time.Second

// pacer spaces the page requests to each host by that host's Crawl-delay (or
// Request-rate interval, whichever is slower, as Policy.CrawlDelay reports
// it), counting the robots.txt request as the first one.
//
// The model is one "latest start" per host, kept in two stages. The
// OnRequest hook books a slot, max(now, latest+delay), and waits for it
// outside Colly's limiter and the request's timeout (wait). Just before the
// request goes on the wire, Colly's OnRequestHeaders hook passes the gate:
// the request starts no earlier than delay after the previous request to
// the host actually started, and its actual start becomes the new latest.
// A request that was late (CPU load, a user LimitRule) therefore pushes the
// next one back instead of crowding it, and the delay is kept at the server.
// The gate adds a small margin (gateMargin) for the time between the gate
// and the wire, which Colly gives no hook to observe.
//
// With a Backend that is a Starter (backend.Memory and redisbackend are),
// the fleet's pace is kept there, by the backend's clock: the OnRequest
// hook asks it for a start and waits, outside Colly's parallelism slots,
// until one is granted; the gate confirms the start right before the wire
// and, with a Claimer, claims the host fleet-wide until the response headers
// come, so that the next start anywhere counts from them (fleetpace.go). A Backend with Reserve only books the fleet's slot at
// the gate, once this process's own claim on the host is granted, which takes one of
// Colly's parallelism slots while it waits. When the backend fails, the
// pacer paces locally from this worker's own latest start with the delay
// multiplied by the fleet size (see FleetSizer), which stays polite while
// the fleet cannot agree, and for a while after it recovers each worker
// keeps to that share (recoveryShare). Every wait a Backend returns is
// checked against the delay; one that cannot be right is counted in
// Stats.BackendAnomalies and paced locally instead.
//
// Pacing lives in hooks rather than in Colly LimitRules because Colly
// matches rules first-come (a rule added after the user's catch-all never
// applies) and adding a rule while an Async crawl runs is a data race
// inside Colly; rules reports the pace as LimitRules for inspection. A
// user's own LimitRule for the host delays requests between the hook and
// the gate, so the two compose as the larger of the two delays.
//
// Hosts without a delay take no memory and cost no lock. A host's entry
// lives until its robots.txt is re-fetched without a delay or forget is
// called for it (the extension does when its origin cache evicts the
// host's last origin), so the map is no larger than that cache, plus
// entries forget spared for at most a minute (see forgetGrace). A pacer is
// safe for concurrent use; it starts no goroutines.
type pacer struct {
	max     time.Duration   // cap on delays; set by newPacer, read-only after
	logger  *slog.Logger    // receives one warning per clamped host; never nil
	backend backend.Backend // books slots fleet-wide; nil: locally
	starter backend.Starter // backend as a Starter, nil when it is not one (fleetpace.go)
	claimer backend.Claimer // backend as a Claimer, nil when it is not one (fleetpace.go)
	onErr   func(error)     // told of each failed backend call; may be nil
	// backendUp reports whether the backend may be tried now (nil:
	// always); while it says no, slots are booked locally.
	backendUp func() bool
	// recovering reports whether a backend call failed recently enough
	// that each worker keeps to its own share (nil: never; fleetpace.go).
	recovering func() bool
	// observe is given the wait of each paced request in the OnRequest
	// hook (nil: none).
	observe   func(time.Duration)
	tokPrefix string        // starts every Starter token of this pacer
	tokSeq    atomic.Uint64 // numbers them

	// now and sleep are the clock; tests replace them before first use.
	// sleep waits d or until ctx is done, returning ctx.Err() then.
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error

	nclamped atomic.Uint64 // delays clamped to max, one per loaded call
	npaced   atomic.Int64  // len(hosts), readable without mu
	ntracked atomic.Int64  // len(reqs), readable without mu
	// nanomalies counts backend answers that cannot be right (fleetpace.go).
	nanomalies atomic.Uint64

	mu     sync.Mutex           // guards the fields below; never held while waiting or logging
	hosts  map[string]*hostPace // by hostKey; only hosts with a delay
	claims map[any]string       // token → hostKey of the host it claims (gate.go)
	reqs   map[any]*url.URL     // token → first URL of requests in flight (gate.go)
	byURL  map[*url.URL]any     // first URL → token, for redirect hops (gate.go)
	grants map[any]grant        // request token → its Starter grant (fleetpace.go)
	// fleetClaims maps a request token to its fleet-wide claim
	// (Claimer.Claim; fleetpace.go).
	fleetClaims map[any]grant
	// unclaimLater keeps, per host key, the fleet-wide claim whose Unclaim
	// failed, to be made again (fleetpace.go); at most one per paced host.
	unclaimLater map[string]grant
	doomed       int       // entries with forgotten set
	sweptAt      time.Time // when loaded last looked for doomed entries
}

// hostPace is one host's pace. All fields are guarded by pacer.mu.
type hostPace struct {
	delay     time.Duration // minimum time between request starts; > 0, ≤ pacer.max
	latest    time.Time     // the latest slot booked locally or start seen
	lastStart time.Time     // when the latest request to the host passed the gate
	loadedAt  time.Time     // pacer clock at the latest loaded call

	// The local claim (gate.go): at most one request to the host is
	// between the gate and its response headers.
	busy      bool          // a request claims the host
	claimant  any           // its token
	claimedAt time.Time     // when it claimed the host
	doneAt    time.Time     // when the latest request's response headers (or error) came
	idle      chan struct{} // closed when the claim ends; nil until someone waits
	forgotten bool          // forget came within forgetGrace of loadedAt
	warned    bool          // the clamp was logged for this host

	acq           chan struct{} // capacity 1: taken by the request asking a Starter (fleetpace.go)
	waiting       int           // requests waiting in the OnRequest hook for their turn
	anomalyWarned bool          // a backend anomaly was logged for this host
}

// forgetGrace is how recently loaded an entry must have been for forget to
// spare it: another origin on the same host (http and https) may have just
// loaded it while the evicted one was being dropped. Spared entries are
// removed by a later loaded call once the grace has passed, unless loaded
// again meanwhile.
const forgetGrace = time.Minute

// WithMaxCrawlDelay caps the Crawl-delay (or Request-rate interval) obeyed
// per host, so that an absurd value such as "Crawl-delay: 86400" cannot
// stall a crawl: longer delays are clamped to d, counted in Stats'
// CrawlDelaysClamped and logged once per host. The default is 60 seconds;
// values ≤ 0 restore it.
func WithMaxCrawlDelay(d time.Duration) Option {
	return func(c *config) { c.maxCrawlDelay = d }
}

// newPacer returns a pacer that caps delays at maxDelay
// (defaultMaxCrawlDelay when maxDelay ≤ 0) and logs clamps to logger
// (nothing when nil). It runs on the real clock; the extension sets now to
// its own clock, the one fetchedAt values come from.
func newPacer(maxDelay time.Duration, logger *slog.Logger) *pacer {
	if maxDelay <= 0 {
		maxDelay = defaultMaxCrawlDelay
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &pacer{
		max:    maxDelay,
		logger: logger,
		now:    time.Now,
		sleep:  sleepCtx,
		hosts:  make(map[string]*hostPace),
		claims: make(map[any]string),
		reqs:   make(map[any]*url.URL),
		byURL:  make(map[*url.URL]any),
		grants: make(map[any]grant),

		fleetClaims:  make(map[any]grant),
		unclaimLater: make(map[string]grant),

		tokPrefix: newTokenPrefix(),
	}
}

// effectiveDelay is the pause to keep between requests to a host whose
// robots.txt asks for delay (ok false: asks for none), capped at maxDelay.
// paced is false when there is nothing to enforce; clamped reports that the
// cap applied.
func effectiveDelay(delay time.Duration, ok bool, maxDelay time.Duration) (d time.Duration, paced, clamped bool) {
	switch {
	case !ok || delay <= 0:
		return 0, false, false
	case delay > maxDelay:
		return maxDelay, true, true
	default:
		return delay, true, false
	}
}

// hostKey is the map key for a host in URL.Host form, and the host's key
// in a Backend. Host names are case-insensitive; the port, if any, is
// kept, so "a:80" and "a:8080" are paced apart, exactly as the origins
// they name are. A trailing dot of the name is dropped: "site.test." and
// "site.test" are one server to DNS, so they share one pace, although
// they are two origins with a robots.txt each (RFC 9309 §2.3 takes the
// authority as written, and a server may answer them differently).
func hostKey(host string) string {
	host = strings.ToLower(host)
	name, port := host, ""
	if i := strings.LastIndexByte(host, ':'); i >= 0 && !strings.HasSuffix(host, "]") {
		name, port = host[:i], host[i:]
	}
	if len(name) > 1 && name[len(name)-1] == '.' {
		return name[:len(name)-1] + port
	}
	return host
}

// loaded is called each time an origin's robots.txt has been fetched (or
// re-fetched) for host (URL.Host form, "name:port" when a port is given):
// delay is Policy.CrawlDelay for our token (ok false: none), fetchedAt is
// when the robots.txt request was sent, which counts toward the host's pace.
// The new delay applies from the next request on; a file without one stops
// the pacing.
func (pc *pacer) loaded(host string, delay time.Duration, ok bool, fetchedAt time.Time) {
	d, paced, clamped := effectiveDelay(delay, ok, pc.max)
	key := hostKey(host)
	now := pc.now()
	warn := false

	pc.mu.Lock()
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
		h = &hostPace{delay: d, latest: fetchedAt, lastStart: fetchedAt, loadedAt: now, doneAt: now, acq: make(chan struct{}, 1)}
		pc.hosts[key] = h
	default:
		h.delay, h.loadedAt = d, now
		// max, not assignment: when the re-fetch was itself given a slot by
		// wait, fetchedAt is that slot and must not be counted twice.
		if fetchedAt.After(h.latest) {
			h.latest = fetchedAt
		}
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
	if pc.doomed > 0 && now.Sub(pc.sweptAt) >= forgetGrace {
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

// sweep drops the entries forget spared once their grace has passed. It
// runs at most once per forgetGrace, and only while some are spared.
// pc.mu must be held.
func (pc *pacer) sweep(now time.Time) {
	pc.sweptAt = now
	for key, h := range pc.hosts {
		if h.forgotten && now.Sub(h.loadedAt) >= forgetGrace {
			pc.drop(key)
			pc.doomed--
		}
	}
	pc.npaced.Store(int64(len(pc.hosts)))
}

// reserve gives the next request to host a start slot as of now and returns
// how long it must wait for it (0: go at once). A host without a delay is
// not paced.
func (pc *pacer) reserve(host string, now time.Time) time.Duration {
	d, _ := pc.reserveLocal(host, func() time.Time { return now }, 1)
	return d
}

// reserveLocal books a local slot, the delay multiplied by factor, and
// returns the wait and whether the host is paced. The clock is read only
// for paced hosts, which keeps the common case (no Crawl-delay) off it.
func (pc *pacer) reserveLocal(host string, clock func() time.Time, factor int) (time.Duration, bool) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	h := pc.hosts[hostKey(host)]
	if h == nil {
		return 0, false
	}
	now := clock()
	delay := h.delay * time.Duration(max(factor, 1))
	start := later(now, h.latest.Add(delay), h.lastStart.Add(delay))
	h.latest = start
	return start.Sub(now), true
}

// delayOf returns host's delay, 0 when it is not paced.
func (pc *pacer) delayOf(host string) time.Duration {
	if pc.npaced.Load() == 0 {
		return 0
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if h := pc.hosts[hostKey(host)]; h != nil {
		return h.delay
	}
	return 0
}

// wait blocks until a page request to host may be sent, or ctx is done.
// It is called from the OnRequest hook for requests that will go out.
// A slot given up because ctx ended is not handed back: the crawl is being
// cancelled, and a host paced too slowly is never impolite.
func (pc *pacer) wait(ctx context.Context, host string) error {
	return pc.waitFor(ctx, host, nil)
}

// waitFor is wait for request tok (nil for a redirect hop). With a Backend
// that is a Starter, the request asks it for a start here, before Colly's
// parallelism slots, and confirms it at the gate (fleetpace.go).
func (pc *pacer) waitFor(ctx context.Context, host string, tok any) error {
	if pc.npaced.Load() == 0 {
		return ctx.Err() // nothing is paced: no lock, no clock
	}
	if pc.shared() {
		t0 := pc.now()
		paced, err := pc.acquire(ctx, host, tok)
		if paced && err == nil && pc.observe != nil {
			pc.observe(pc.now().Sub(t0))
		}
		return err
	}
	d, paced := pc.book(ctx, host)
	if paced && pc.observe != nil {
		pc.observe(d)
	}
	if d <= 0 {
		return ctx.Err()
	}
	key := hostKey(host)
	pc.waiter(key, 1)
	defer pc.waiter(key, -1)
	return pc.sleep(ctx, d)
}

// waiter adds n to the requests waiting for host key's turn.
func (pc *pacer) waiter(key string, n int) {
	pc.mu.Lock()
	if h := pc.hosts[key]; h != nil {
		h.waiting = max(h.waiting+n, 0)
	}
	pc.mu.Unlock()
}

// paceInfo is what Extension.Origin reports of a host's pace.
type paceInfo struct {
	delay   time.Duration
	next    time.Time // the earliest a request of this process may start
	waiting int
}

// info returns host's pace; ok is false when it is not paced.
func (pc *pacer) info(host string) (p paceInfo, ok bool) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	h := pc.hosts[hostKey(host)]
	if h == nil {
		return p, false
	}
	next := later(h.latest.Add(h.delay), h.lastStart.Add(h.delay), h.doneAt.Add(h.delay))
	return paceInfo{delay: h.delay, next: next, waiting: h.waiting}, true
}

// book reserves the next slot for host and returns the wait. With a
// working backend the hook books nothing: the fleet's slot is booked at
// the gate, once this process is ready to send (see gate.go). While the
// backend fails, slots are booked locally at the delay times the fleet
// size.
func (pc *pacer) book(ctx context.Context, host string) (time.Duration, bool) {
	factor := 1
	if pc.backend != nil {
		if pc.backendUp == nil || pc.backendUp() {
			return 0, false // booked at the gate
		}
		factor = pc.fleetSize()
	}
	return pc.reserveLocal(host, pc.now, factor)
}

// bookShared books host's next start in the backend, spaced by delay plus
// gateMargin, and returns the wait; ok is false when there is no working
// backend (or it just failed), and the caller paces locally.
func (pc *pacer) bookShared(ctx context.Context, host string, delay time.Duration) (wait time.Duration, ok bool) {
	if pc.backend == nil || (pc.backendUp != nil && !pc.backendUp()) {
		return 0, false
	}
	spacing := delay + gateMargin(delay)
	w, err := pc.backend.Reserve(ctx, hostKey(host), spacing)
	if err != nil {
		if ctx.Err() == nil && pc.onErr != nil {
			pc.onErr(err)
		}
		return 0, false
	}
	// Each worker books at the gate, one request per host at a time, so
	// the fleet has at most one booking per worker ahead of this one.
	if w > spacing*time.Duration(pc.fleetSize())+anomalySlack {
		pc.anomaly(hostKey(host), "the backend asked for a wait longer than the fleet's bookings allow; paced locally instead", w)
		return 0, false
	}
	return w, true
}

// localFactor is what the local delay is multiplied by: the fleet size
// while a backend is configured but failing, else 1.
func (pc *pacer) localFactor() time.Duration {
	if pc.backend != nil && pc.backendUp != nil && !pc.backendUp() {
		return time.Duration(pc.fleetSize())
	}
	return 1
}

// fleetSize is the number of workers sharing the backend as it last said,
// at least 1.
func (pc *pacer) fleetSize() int {
	if fs, ok := pc.backend.(backend.FleetSizer); ok && fs != nil {
		return max(fs.FleetSize(), 1)
	}
	return 1
}

// hopWait is what a redirect hop to host must wait for its slot, without
// booking it: 0 for hosts without a delay. With a backend it is an upper
// bound (the local view plus one delay for the rest of the fleet).
func (pc *pacer) hopWait(host string) time.Duration {
	if pc.npaced.Load() == 0 {
		return 0
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	h := pc.hosts[hostKey(host)]
	if h == nil {
		return 0
	}
	now := pc.now()
	w := later(now, h.latest.Add(h.delay), h.lastStart.Add(h.delay), h.doneAt.Add(h.delay)).Sub(now)
	if pc.backend != nil {
		w = max(w, h.delay)
	}
	return w
}

// later returns the latest of its times.
func later(t time.Time, ts ...time.Time) time.Time {
	for _, u := range ts {
		if u.After(t) {
			t = u
		}
	}
	return t
}

// forget drops host's pace. The extension calls it when its cache evicts
// the last origin on host, which bounds the pacer's memory by the cache's;
// the next robots.txt fetch for the host calls loaded again. An entry
// loaded within forgetGrace is only marked (see forgetGrace).
func (pc *pacer) forget(host string) {
	key := hostKey(host)
	now := pc.now()
	pc.mu.Lock()
	defer pc.mu.Unlock()
	h := pc.hosts[key]
	switch {
	case h == nil || h.forgotten:
	case now.Sub(h.loadedAt) >= forgetGrace:
		pc.drop(key)
		pc.npaced.Store(int64(len(pc.hosts)))
	default:
		h.forgotten = true
		pc.doomed++
	}
}

// clamped reports how many Crawl-delays were clamped to the maximum.
func (pc *pacer) clamped() uint64 { return pc.nclamped.Load() }

// rules describes the current pace of every paced host as Colly LimitRules,
// sorted by host: DomainRegexp matches exactly that host (any case, port
// included; metacharacters quoted), Parallelism 1, Delay the effective
// delay. They are values for inspection; the pacer does not install them.
// Registered with Collector.Limits before a later crawl they would pace it
// the same way, Colly counting the delay from the end of each response.
func (pc *pacer) rules() []colly.LimitRule {
	pc.mu.Lock()
	rs := make([]colly.LimitRule, 0, len(pc.hosts))
	for key, h := range pc.hosts {
		rs = append(rs, colly.LimitRule{
			DomainRegexp: `(?i)^` + regexp.QuoteMeta(key) + `$`,
			Delay:        h.delay,
			Parallelism:  1,
		})
	}
	pc.mu.Unlock()
	slices.SortFunc(rs, func(a, b colly.LimitRule) int { return strings.Compare(a.DomainRegexp, b.DomainRegexp) })
	return rs
}

// sleepCtx waits d on the real clock, or until ctx is done.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
