package robotsext

// This file listens to the hosts themselves: a page answered 429 or 503,
// or a run of other 5xx, pauses its host (the same key as its
// Crawl-delay pace), honouring Retry-After. Requests to a paused host wait
// in the OnRequest hook, before Colly's LimitRule slots, so other hosts
// are not held up; when the pause ends one request probes the host and
// the others wait for its answer; a good answer returns the host to its
// pace step by step (internal/pause), another overload answer doubles the
// pause. A request that would wait longer than WithBackoffWait is refused
// with ReasonBackoff, its Verdict's RetryAt saying when to try again.

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/internal/pause"
)

// Defaults of the back-off (see WithBackoffBase, WithMaxBackoff and
// WithBackoffWait).
const (
	// DefaultBackoffBase is the first pause of a host that asked for less
	// without saying for how long (no usable Retry-After); the host's
	// Crawl-delay when that is longer. Each failed probe doubles it.
	DefaultBackoffBase = 5 * time.Second
	// DefaultMaxBackoff caps a pause, Retry-After included: a host asking
	// for an hour is asked again after ten minutes (and, if it still
	// refuses, paused again).
	DefaultMaxBackoff = 10 * time.Minute
	// DefaultBackoffWait bounds how long one request waits for a paused
	// host before it is refused with ReasonBackoff.
	DefaultBackoffWait = 5 * time.Minute
	// ServerErrorRun is how many 5xx answers other than 503 (500, 502,
	// 504, …) a host must give in a row, with no other answer between
	// them and for two URLs at least, to be paused. One broken URL never
	// makes a run: among working ones, each good answer starts the count
	// again, and a retry loop on it alone counts one URL.
	ServerErrorRun = 3
)

// PauseCause says why a host was paused.
type PauseCause uint8

const (
	// PauseTooManyRequests: the host answered 429 Too Many Requests.
	PauseTooManyRequests PauseCause = iota + 1
	// PauseUnavailable: the host answered 503 Service Unavailable.
	PauseUnavailable
	// PauseServerErrors: the host answered ServerErrorRun other 5xx in a
	// row, or one while it was being probed or recovering.
	PauseServerErrors
	// PauseProbeFailed: the probe sent when a pause ended failed without
	// an answer (a network error or timeout).
	PauseProbeFailed
)

// String names the cause: "429", "503", "5xx_run" or "probe_failed",
// short and stable, the label values the metrics adapters use; a cause
// this version does not define is "cause_N".
func (c PauseCause) String() string {
	switch c {
	case PauseTooManyRequests:
		return "429"
	case PauseUnavailable:
		return "503"
	case PauseServerErrors:
		return "5xx_run"
	case PauseProbeFailed:
		return "probe_failed"
	}
	return "cause_" + strconv.Itoa(int(c))
}

// PauseCauses returns every PauseCause this version defines, in order:
// the metrics adapters report each from the start.
func PauseCauses() []PauseCause {
	return []PauseCause{PauseTooManyRequests, PauseUnavailable, PauseServerErrors, PauseProbeFailed}
}

// maxPauseCauses bounds the causes counted; PauseCause defines fewer.
const maxPauseCauses = 8

// WithBackoffBase sets the first pause of a host that answered 429, 503
// or a run of 5xx without a usable Retry-After (DefaultBackoffBase when
// d ≤ 0). The host's Crawl-delay is used instead when it is longer. A
// probe that fails doubles the pause, up to WithMaxBackoff.
func WithBackoffBase(d time.Duration) Option {
	return func(c *config) { c.backoffBase = d }
}

// WithMaxBackoff caps a host's pause, Retry-After included
// (DefaultMaxBackoff when d ≤ 0). A pause cut by the cap is logged at
// Warn and counted in Stats' PausesCapped.
func WithMaxBackoff(d time.Duration) Option {
	return func(c *config) { c.backoffMax = d }
}

// WithBackoffWait bounds how long a request waits for its paused host in
// the OnRequest hook (DefaultBackoffWait when d ≤ 0). A request that
// would wait longer is not sent: it is refused at once with
// ReasonBackoff and reported to OnBlocked, its Verdict's RetryAt saying
// when the host may be asked again, so that a crawler with a queue of its
// own re-queues it rather than losing it.
func WithBackoffWait(d time.Duration) Option {
	return func(c *config) { c.backoffWait = d }
}

// WithoutBackoff turns the back-off off: 429, 503 and runs of 5xx no
// longer pause their host. Only for hosts you run yourself.
func WithoutBackoff() Option {
	return func(c *config) { c.backoffOff = true }
}

// hostPauses keeps the back-off state of every host that asked for less.
type hostPauses struct {
	// active counts hosts with any state (a run being counted, a pause,
	// a probe, a recovery): while it is 0, neither the OnRequest hook nor
	// a good answer takes a lock.
	active atomic.Int64

	mu     sync.Mutex
	hosts  map[string]*hostBackoff // by hostKey; guarded by mu
	probes map[any]string          // probe token → its host key; guarded by mu
	tokens map[any]fleetToken      // request → its token in the Pauser; guarded by mu

	// The fleet's back-off (backofffleet.go): the Backend's Pauser, nil
	// without one; set by Apply and only read after.
	pauser    backend.Pauser
	tokPrefix string
	tokSeq    atomic.Uint64
	pollDue   atomic.Int64 // Extension clock (UnixNano) when Paused is due
	sweptAt   time.Time    // guarded by mu; the latest sweep of stale states

	// counters, read by Stats.
	pauses             [maxPauseCauses]atomic.Uint64
	capped, probesSent atomic.Uint64
	waited, refused    atomic.Uint64
	requeued           atomic.Uint64
	waitingNow         atomic.Int64
}

// hostBackoff is one host's back-off. All fields are guarded by
// hostPauses.mu.
type hostBackoff struct {
	st      pause.State[any]
	run     int           // 5xx answers in a row while Healthy
	runURL  string        // the URL of the run's first answer
	mixed   bool          // the run holds answers for two URLs or more
	cause   PauseCause    // the latest pause's
	waiting int           // requests waiting for the host now
	changed chan struct{} // closed when a probe is answered; nil until someone waits

	// fleet reports that the host's state is the Backend's (a Pauser):
	// st then only mirrors it (Paused while the fleet's state lasts), and
	// fleetUntil is the pause's end as the Backend last said.
	fleet      bool
	fleetUntil time.Time
}

// backoffLimits returns the settled back-off options: the first pause
// without Retry-After, the cap, and the bound of a request's wait.
func (cfg *config) backoffLimits() (base, limit, wait time.Duration) {
	base, limit, wait = cfg.backoffBase, cfg.backoffMax, cfg.backoffWait
	if base <= 0 {
		base = DefaultBackoffBase
	}
	if limit <= 0 {
		limit = DefaultMaxBackoff
	}
	if wait <= 0 {
		wait = DefaultBackoffWait
	}
	return min(base, limit), limit, wait
}

// isOverload reports whether an answer with status is an overload signal
// of some kind (429 or a 5xx).
func isOverload(status int) bool {
	return status == http.StatusTooManyRequests || (status >= 500 && status <= 599)
}

// backoffAnswer reads the answer to request tok: its final URL u's host
// answered status, with Retry-After ra. It is called from the
// OnResponseHeaders hook; a good answer from a host without a state costs
// one atomic load.
func (e *Extension) backoffAnswer(tok any, u *url.URL, status int, ra string) {
	host := u.Host
	b := &e.pauses
	if e.cfg.backoffOff || (!isOverload(status) && b.active.Load() == 0) {
		return
	}
	now := e.cfg.now()
	key := hostKey(host)
	b.mu.Lock()
	if pk, ok := b.probes[tok]; ok && pk != key {
		// A probe redirected to another host: its own host answered
		// with a redirect, which is no overload.
		delete(b.probes, tok)
		if h := b.hosts[pk]; h != nil {
			if h.st.Answered(now, tok) {
				b.dropLocked(pk, h)
			} else if h.st.Phase != pause.Probing {
				b.wakeLocked(h)
			}
		}
	}
	delete(b.probes, tok)
	h := b.hosts[key]
	if !isOverload(status) {
		if h != nil && h.fleet {
			ft := b.tokens[tok]
			delete(b.tokens, tok)
			b.mu.Unlock()
			e.fleetAnswered(key, ft.tok)
			return
		}
		if h != nil {
			h.run, h.runURL, h.mixed = 0, "", false
			if h.st.Answered(now, tok) {
				b.dropLocked(key, h)
			} else if h.st.Phase != pause.Probing {
				b.wakeLocked(h) // the probe was answered: its waiters go on
			}
		}
		b.mu.Unlock()
		return
	}
	if h == nil {
		h = b.stateLocked(key, now)
	}
	delete(b.tokens, tok)
	cause := PauseServerErrors
	switch status {
	case http.StatusTooManyRequests:
		cause = PauseTooManyRequests
	case http.StatusServiceUnavailable:
		cause = PauseUnavailable
	default:
		if h.st.Phase == pause.Healthy {
			// A run needs two URLs at least: a retry loop on one broken
			// URL is that URL's failure, not the host's.
			us := u.String()
			if h.run == 0 {
				h.runURL = us
			} else if us != h.runURL {
				h.mixed = true
			}
			h.run++
			if h.run < ServerErrorRun || !h.mixed {
				b.mu.Unlock()
				return
			}
		}
	}
	b.mu.Unlock()
	e.pauseHost(host, key, cause, status, ra, now)
}

// backoffFailed reads a request's failure without an answer (a network
// error, a timeout): it is a signal only when the request was a probe.
func (e *Extension) backoffFailed(tok any) {
	b := &e.pauses
	if e.cfg.backoffOff || b.active.Load() == 0 {
		return
	}
	b.mu.Lock()
	key, ok := b.probes[tok]
	delete(b.probes, tok)
	delete(b.tokens, tok)
	b.mu.Unlock()
	if ok {
		e.pauseHost(key, key, PauseProbeFailed, 0, "", e.cfg.now())
	}
}

// pauseHost records an overload signal from host (key is its hostKey):
// it pauses the host, or doubles its pause, or extends a pause in force,
// as pause.State.Signal decides; a new pause is counted and logged once.
func (e *Extension) pauseHost(host, key string, cause PauseCause, status int, ra string, now time.Time) {
	b := &e.pauses
	base, limit, _ := e.cfg.backoffLimits()
	base = max(base, min(e.pacer.delayOf(host), limit)) // at least the Crawl-delay
	after, given := parseRetryAfter(ra, now)
	d, started, capped, fleet := e.fleetPause(key, cause, after, base, limit, now)
	until := now.Add(d)
	if !fleet {
		b.mu.Lock()
		h := b.stateLocked(key, now)
		if h.fleet { // the backend failed: this process goes on alone
			h.fleet, h.st = false, pause.State[any]{}
		}
		d, started, capped = h.st.Signal(now, after, base, limit)
		if started {
			h.run, h.runURL, h.mixed = 0, "", false
			h.cause = cause
			b.wakeLocked(h) // a failed probe: its waiters see the new pause
		}
		until = h.st.Until
		b.mu.Unlock()
	}
	if !started {
		return
	}
	b.pauses[int(cause)%maxPauseCauses].Add(1)
	level := slog.LevelInfo
	if capped {
		b.capped.Add(1)
		level = slog.LevelWarn
	}
	if l := e.cfg.logger; l.Enabled(context.Background(), level) {
		attrs := []any{"host", host, "cause", cause.String(), "status", status,
			"pause", d, "until", until, "shadow", e.cfg.shadow}
		if given {
			attrs = append(attrs, "retry_after", strings.TrimSpace(ra))
		}
		msg := "robotsext: host asked for less; paused"
		if capped {
			msg = "robotsext: host asked for a pause longer than WithMaxBackoff; paused for the maximum"
		}
		l.Log(context.Background(), level, msg, attrs...)
	}
}

// stateLocked returns host key's state, creating it, and now and then
// drops the states left idle past pause.StaleAfter, which bounds the
// memory by the hosts that asked for less lately. b.mu must be held.
func (b *hostPauses) stateLocked(key string, now time.Time) *hostBackoff {
	if b.hosts == nil {
		b.hosts = make(map[string]*hostBackoff)
	}
	if now.Sub(b.sweptAt) >= time.Minute {
		b.sweptAt = now
		for k, h := range b.hosts {
			if !h.fleet && h.waiting == 0 && h.st.Phase != pause.Healthy && h.st.Stale(now) {
				h.st = pause.State[any]{}
				b.dropLocked(k, h)
			}
		}
	}
	h := b.hosts[key]
	if h == nil {
		h = &hostBackoff{}
		b.hosts[key] = h
		b.active.Add(1)
	}
	return h
}

// dropLocked forgets host key's state once it is Healthy again. b.mu must
// be held.
func (b *hostPauses) dropLocked(key string, h *hostBackoff) {
	b.wakeLocked(h)
	if h.fleet {
		h.fleet, h.st = false, pause.State[any]{}
		for r, t := range b.tokens {
			if t.key == key {
				delete(b.tokens, r)
			}
		}
	}
	if h.waiting > 0 {
		return // the waiters remove it (backoffGate)
	}
	delete(b.hosts, key)
	b.active.Add(-1)
}

// wakeLocked wakes the requests waiting for h's probe. b.mu must be held.
func (b *hostPauses) wakeLocked(h *hostBackoff) {
	if h.changed != nil {
		close(h.changed)
		h.changed = nil
	}
}

// backoffGate waits, in the OnRequest hook, until request tok may go to
// host as far as its back-off is concerned: at once for a host in good
// health (one atomic load while no host has a state). ok is false when
// the request must not be sent: v then refuses it (ReasonBackoff, with
// RetryAt), or ctx ended (v is the zero Verdict).
func (e *Extension) backoffGate(ctx context.Context, host string, tok any) (v Verdict, ok bool) {
	b := &e.pauses
	if b.active.Load() == 0 || e.cfg.shadow || e.cfg.backoffOff {
		return v, true
	}
	_, _, bound := e.cfg.backoffLimits()
	key := hostKey(host)
	var deadline time.Time
	var h *hostBackoff
	defer func() {
		if h == nil {
			return
		}
		b.mu.Lock()
		h.waiting--
		if h.st.Phase == pause.Healthy && h.waiting == 0 && b.hosts[key] == h && h.run == 0 {
			delete(b.hosts, key)
			b.active.Add(-1)
		}
		b.mu.Unlock()
		b.waitingNow.Add(-1)
	}()
	for {
		now := e.cfg.now()
		b.mu.Lock()
		hh := b.hosts[key]
		if hh == nil || hh.st.Phase == pause.Healthy {
			b.mu.Unlock()
			return v, true
		}
		var wait time.Duration
		var probe, onProbe bool
		if hh.fleet {
			b.mu.Unlock()
			w, p, healthy, fleetOK := e.fleetAsk(tok, key)
			if !fleetOK {
				continue // paused locally now
			}
			if healthy {
				return v, true
			}
			b.mu.Lock()
			if b.hosts[key] != hh {
				b.mu.Unlock()
				continue
			}
			wait, probe = w, p
			if t, ok := b.tokens[tok]; ok && wait <= 0 {
				t.granted = true
				b.tokens[tok] = t
			}
		} else {
			wait, probe, onProbe = hh.st.Ask(now, tok)
		}
		if wait <= 0 {
			if probe {
				if _, again := b.probes[tok]; again {
					probe = false
				} else {
					if b.probes == nil {
						b.probes = make(map[any]string)
					}
					b.probes[tok] = key
				}
			}
			b.mu.Unlock()
			if probe {
				b.probesSent.Add(1)
				e.cfg.logger.Debug("robotsext: pause over; probing the host", "host", host)
			}
			return v, true
		}
		if deadline.IsZero() {
			deadline = now.Add(bound)
		}
		if now.Add(wait).After(deadline) {
			next := now.Add(wait)
			if !hh.fleet {
				next = hh.st.Next(now)
			}
			delete(b.tokens, tok)
			b.mu.Unlock()
			b.refused.Add(1)
			return Verdict{Allowed: false, Reason: ReasonBackoff, RetryAt: next}, false
		}
		if h == nil {
			h = hh
			h.waiting++
			b.waited.Add(1)
			b.waitingNow.Add(1)
		}
		var ch chan struct{}
		switch {
		case hh.fleet:
			// The Backend cannot wake this request: ask again soon, or
			// when this worker learns something of the host.
			wait = min(wait, fleetAskEvery)
			fallthrough
		case onProbe:
			if hh.changed == nil {
				hh.changed = make(chan struct{})
			}
			ch = hh.changed
		}
		b.mu.Unlock()
		var err error
		if ch != nil {
			err = waitIdle(ctx, ch, wait)
		} else {
			err = e.pacer.sleep(ctx, wait)
		}
		if err != nil {
			return Verdict{}, false
		}
	}
}

// pauseOf is what Origin reports of host's back-off; ok is false when
// the host has none.
func (b *hostPauses) pauseOf(host string, now time.Time) (phase pause.Phase, cause PauseCause, until time.Time, waiting int, ok bool) {
	if b.active.Load() == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	h := b.hosts[hostKey(host)]
	if h == nil || h.st.Phase == pause.Healthy {
		return
	}
	return h.st.Phase, h.cause, h.st.Next(now), h.waiting, true
}

// parseRetryAfter reads a Retry-After value (RFC 9110 §10.2.3): delay
// seconds, or an HTTP-date in any of the three forms a recipient must
// accept (IMF-fixdate, RFC 850, asctime). It returns the delay from now;
// given is false for a missing or invalid value, a date in the past or
// "0", which ask for nothing. A number of seconds too large for a
// Duration comes back as the largest one (the caller caps it).
func parseRetryAfter(v string, now time.Time) (d time.Duration, given bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if isDigits(v) {
		n, err := strconv.ParseUint(v, 10, 64)
		switch {
		case err != nil || n > uint64(maxDuration/time.Second):
			return maxDuration, true
		case n == 0:
			return 0, false
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now), true
	}
	return 0, false
}

// maxDuration is the largest time.Duration.
const maxDuration = time.Duration(1<<63 - 1)

// isDigits reports whether s is all ASCII digits.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// pausedHosts counts the hosts paused, probed or recovering now.
func (b *hostPauses) pausedHosts() (n int) {
	if b.active.Load() == 0 {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, h := range b.hosts {
		if h.st.Phase != pause.Healthy {
			n++
		}
	}
	return n
}

// stats fills s's back-off counters.
func (b *hostPauses) stats(s *Stats) {
	s.Pauses = map[PauseCause]uint64{}
	for i := range b.pauses {
		if n := b.pauses[i].Load(); n > 0 {
			s.Pauses[PauseCause(i)] = n
		}
	}
	s.PausesCapped, s.Probes = b.capped.Load(), b.probesSent.Load()
	s.BackoffWaited, s.BackoffRefused, s.BackoffRequeued = b.waited.Load(), b.refused.Load(), b.requeued.Load()
	s.BackoffWaiting, s.PausedHosts = b.waitingNow.Load(), b.pausedHosts()
}

// backoffWire is the back-off's check right before the wire, run from
// the OnRequestHeaders hook once some host has a state. A request that
// passed the OnRequest hook while its host was in good health, and whose
// host was paused while it waited for a LimitRule slot, must not go now.
// With an Async collector it is sent again as a new request (Retry's way:
// same URL, method, headers, body, Ctx and depth), which waits in the
// OnRequest hook, outside every LimitRule slot, and r is aborted (Colly
// reports it to OnError with colly.ErrAbortedBeforeRequest); a request
// whose body cannot be re-read, or of a synchronous collector (whose
// Retry would run inside this slot), waits here instead. It returns false
// when r does not go now.
func (e *Extension) backoffWire(c *colly.Collector, r *colly.Request) bool {
	if e.cfg.shadow || e.cfg.backoffOff {
		return true
	}
	o, err := originOf(r.URL)
	if err != nil {
		return true
	}
	b := &e.pauses
	key := hostKey(o.host)
	now := e.cfg.now()
	b.mu.Lock()
	h := b.hosts[key]
	if h == nil || (h.st.Phase != pause.Paused && h.st.Phase != pause.Probing) {
		b.mu.Unlock()
		return true // in good health, or recovering: r was let through
	}
	var wait time.Duration
	var probe bool
	_, again := b.probes[r]
	switch {
	case h.fleet && (again || b.tokens[r].granted):
		// the fleet's probe, or a start the fleet granted: it goes
	case h.fleet && now.Before(h.fleetUntil):
		wait = h.fleetUntil.Sub(now)
	case h.fleet:
		b.mu.Unlock()
		w, p, _, fleetOK := e.fleetAsk(r, key)
		if !fleetOK {
			return e.backoffWire(c, r) // paused locally now
		}
		b.mu.Lock()
		wait, probe = w, p
	default:
		wait, probe, _ = h.st.Ask(now, r)
	}
	probe = probe && !again
	if probe {
		if b.probes == nil {
			b.probes = make(map[any]string)
		}
		b.probes[r] = key
	}
	b.mu.Unlock()
	if wait <= 0 {
		if probe {
			b.probesSent.Add(1)
		}
		return true
	}
	if c != nil && c.Async && e.requeue(r) == nil {
		b.requeued.Add(1)
		r.Abort()
		return false
	}
	return e.admitted(contextOf(c), r, o.host)
}

// requeue sends r again as a new request of its collector, as Retry does,
// leaving r itself untouched.
func (e *Extension) requeue(r *colly.Request) error {
	cp := *r
	hdr := http.Header{}
	if r.Headers != nil {
		hdr = r.Headers.Clone()
	}
	cp.Headers = &hdr
	if s, ok := r.Body.(io.Seeker); ok && r.Body != nil {
		if _, err := s.Seek(0, io.SeekStart); err != nil {
			return err
		}
	}
	return cp.Retry()
}
