package pacing

// This file listens to the hosts themselves: a page answered 429 or 503,
// or a run of other 5xx, pauses its host (the same key as its pace),
// honouring Retry-After. Requests to a paused host wait in Admit, before
// Colly's LimitRule slots, so other hosts are not kept waiting; when the
// pause ends one request probes the host and the others wait for its
// answer; a good answer returns the host to its pace step by step
// (internal/pause), another overload answer doubles the pause. A request that would wait
// longer than BackoffConfig.Wait is refused, with the time to try again.

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/internal/pause"
)

// BackoffConfig is what a Backoff is built from; NewBackoff reads it once.
type BackoffConfig struct {
	// Base is the first pause of a host that asked for less without a
	// usable Retry-After (the host's Crawl-delay when that is longer),
	// Max caps every pause, Retry-After included, and Wait bounds how
	// long one request waits for a paused host before it is refused. The
	// caller settles them: each must be > 0, and Base ≤ Max.
	Base, Max, Wait time.Duration
	// ServerErrorRun is how many 5xx answers other than 503 a host must
	// give in a row, for two URLs at least, to be paused.
	ServerErrorRun int
	// Off turns the back-off off: no answer pauses a host.
	Off bool
	// Shadow counts and logs pauses without making any request wait or
	// be refused, and without telling the fleet.
	Shadow bool
	// Logger receives each new pause (Info; Warn when Max cut it) and
	// each probe (Debug); nil: nothing is logged.
	Logger *slog.Logger
	// Clock is the Backoff's time.
	Clock Clock
	// Pacer gives each host's delay, the shortest first pause, and the
	// jitter's randomness (Config.Rand), and counts the Backend's
	// anomalies with its own (Pacer.Anomalies).
	Pacer *Pacer
	// Pauser shares the pauses with the fleet (nil: this process backs
	// off alone); Health says whether it may be tried and takes its
	// failures.
	Pauser backend.Pauser
	Health Health
	// Context returns the context fleet calls are made under, each one
	// bounded by fleetCallTimeout (nil: context.Background).
	Context func() context.Context
}

// Backoff keeps the back-off state of every host that asked for less.
// Hosts in good health take no memory: while none has a state, Active is
// one atomic load and every call returns at once without a lock. Memory
// is bounded by the hosts that asked for less lately (pause.StaleAfter).
// A Backoff is safe for concurrent use; the only goroutine it starts is
// the background read of the fleet's paused hosts (Poll).
type Backoff struct {
	// Set by NewBackoff, read-only after.
	base, limit, bound time.Duration
	run                int
	off, shadow        bool
	logger             *slog.Logger
	now                func() time.Time
	sleep              func(ctx context.Context, d time.Duration) error
	pacer              *Pacer
	health             Health
	context            func() context.Context

	// active counts hosts with any state (a run being counted, a pause,
	// a probe, a recovery): while it is 0, neither Admit nor a good
	// answer takes a lock.
	active atomic.Int64

	mu     sync.Mutex
	hosts  map[string]*hostBackoff // by HostKey; guarded by mu
	probes map[any]string          // probe token → its host key; guarded by mu
	tokens map[any]fleetToken      // request → its token in the Pauser; guarded by mu
	// wired holds the probes that reached the wire, or wait at it in
	// their LimitRule slot (AdmitAtWire); passed holds the requests let
	// through by Admit while their host recovered, by host key, until they
	// reach the wire (Wire). Both guarded by mu.
	wired  map[any]bool
	passed map[any]string

	// The fleet's back-off (backofffleet.go): the Backend's Pauser, nil
	// without one; set by NewBackoff and only read after.
	pauser   backend.Pauser
	watcher  backend.PauseWatcher // pauser as a PauseWatcher, nil when it is not one
	names    tokenSource          // names requests in the Pauser
	polledAt atomic.Int64         // clock (UnixNano) of the latest read of the paused hosts (Poll)
	// watchMu is held by the read of the pauses begun (watchPauses),
	// and guards watchCursor, where the next read starts.
	watchMu     sync.Mutex
	watchCursor string
	sweptAt     time.Time // guarded by mu; the latest sweep of stale states

	// counters, read by Counts.
	pauses             [MaxCauses]atomic.Uint64
	capped, probesSent atomic.Uint64
	waited, refused    atomic.Uint64
	waitingNow         atomic.Int64
}

// hostBackoff is one host's back-off. All fields are guarded by
// Backoff.mu.
type hostBackoff struct {
	st      pause.State[any]
	run     int           // 5xx answers in a row while Healthy
	runURL  string        // the URL of the run's first answer
	mixed   bool          // the run holds answers for two URLs or more
	cause   Cause         // the latest pause's
	waiting int           // requests waiting for the host now
	changed chan struct{} // closed when a probe is answered; nil until someone waits

	// fleet reports that the host's state is the Backend's (a Pauser):
	// st then only mirrors it (Paused while the fleet's state lasts), and
	// fleetUntil is the pause's end as the Backend last said.
	fleet      bool
	fleetUntil time.Time
	// askedAt is when a request of this process last asked the Backend
	// about the host (Ask, or a Queuer's answer): the others wait until
	// fleetAskEvery after it, so that a host costs one call per interval
	// and not one per waiting request.
	askedAt time.Time
}

// NewBackoff returns a Backoff built from cfg.
func NewBackoff(cfg BackoffConfig) *Backoff {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Context == nil {
		cfg.Context = context.Background
	}
	clk := cfg.Clock.settled()
	b := &Backoff{
		base: cfg.Base, limit: cfg.Max, bound: cfg.Wait, run: cfg.ServerErrorRun,
		off: cfg.Off, shadow: cfg.Shadow,
		logger: cfg.Logger, now: clk.Now, sleep: clk.Sleep,
		pacer: cfg.Pacer, health: cfg.Health, context: cfg.Context,
	}
	if cfg.Pauser != nil && !cfg.Off {
		b.pauser = cfg.Pauser
		b.names.prefix = newTokenPrefix()
		b.watcher, _ = cfg.Pauser.(backend.PauseWatcher)
		if cfg.Pacer != nil {
			// A Queuer's answers to the Pacer carry the host's back-off.
			cfg.Pacer.backoff = b
		}
	}
	return b
}

// Active reports whether some host has a back-off state. While none has,
// Admit and Wire need not be called.
func (b *Backoff) Active() bool { return b.active.Load() != 0 }

// Overload reports whether an answer with status is an overload signal
// of some kind (429 or a 5xx).
func Overload(status int) bool {
	return status == http.StatusTooManyRequests || (status >= 500 && status <= 599)
}

// Quota is what an answer's RateLimit header fields say of the host's
// quota (the root reads them with internal/ratelimit): Spent reports that
// a quota policy has no quota left, Reset how long the field says until
// it is restored (0: it does not say).
type Quota struct {
	Spent bool
	Reset time.Duration
}

// Answered reads the answer to request tok: its final URL u's host
// answered status, with Retry-After ra. It is AnsweredQuota for an answer
// without RateLimit fields.
func (b *Backoff) Answered(tok any, u *url.URL, status int, ra string) {
	b.AnsweredQuota(tok, u, status, ra, Quota{})
}

// AnsweredQuota reads the answer to request tok: its final URL u's host
// answered status, with Retry-After ra and RateLimit fields saying q. It
// is called from the OnResponseHeaders hook; a good answer from a host
// without a state costs one atomic load. A spent quota is an overload
// signal whatever the status: it pauses the host for q.Reset (the back-off
// base when the field gives no window), or, on a 429 or 503, for the
// longer of q.Reset and Retry-After.
func (b *Backoff) AnsweredQuota(tok any, u *url.URL, status int, ra string, q Quota) {
	host := u.Host
	signal := Overload(status) || q.Spent
	if b.off || (!signal && b.active.Load() == 0) {
		return
	}
	now := b.now()
	key := HostKey(host)
	b.mu.Lock()
	if pk, ok := b.probes[tok]; ok && pk != key {
		// A probe redirected to another host: its own host answered
		// with a redirect, which is no overload.
		b.forgetLocked(tok)
		if h := b.hosts[pk]; h != nil {
			if h.st.Answered(now, tok) {
				b.dropLocked(pk, h)
			} else if h.st.Phase != pause.Probing {
				b.wakeLocked(h)
			}
		}
	}
	b.forgetLocked(tok)
	h := b.hosts[key]
	if !signal {
		if h != nil && h.fleet {
			ft := b.tokens[tok]
			delete(b.tokens, tok)
			b.mu.Unlock()
			b.fleetAnswered(key, ft.tok)
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
	cause := CauseServerErrors
	switch {
	case status == http.StatusTooManyRequests:
		cause = CauseTooManyRequests
	case status == http.StatusServiceUnavailable:
		cause = CauseUnavailable
	case q.Spent:
		cause = CauseRateLimit // before any run of 5xx: the host said so
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
			if h.run < b.run || !h.mixed {
				b.mu.Unlock()
				return
			}
		}
	}
	b.mu.Unlock()
	b.pauseHost(host, key, cause, status, ra, q, now)
}

// Failed reads the failure of request tok without an answer (a network
// error, a timeout): it is a signal only when the request was a probe.
func (b *Backoff) Failed(tok any) {
	if b.off || b.active.Load() == 0 {
		return
	}
	b.mu.Lock()
	key, ok := b.probes[tok]
	b.forgetLocked(tok)
	delete(b.tokens, tok)
	b.mu.Unlock()
	if ok {
		b.pauseHost(key, key, CauseProbeFailed, 0, "", Quota{}, b.now())
	}
}

// Withdrawn reads the end of request tok without an answer for a reason
// that is not its host's: the crawler's own context ended. It is no
// signal; when tok was its host's probe, the probe is given back (the
// next request to ask probes) and the requests waiting for its answer
// ask again. A probe of the fleet's (a Pauser) is left to expire in the
// Backend.
func (b *Backoff) Withdrawn(tok any) {
	if b.off || b.active.Load() == 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	key, ok := b.probes[tok]
	b.forgetLocked(tok)
	delete(b.tokens, tok)
	if !ok {
		return
	}
	if h := b.hosts[key]; h != nil && !h.fleet && h.st.Withdrawn(tok) {
		b.wakeLocked(h)
	}
}

// pauseHost records an overload signal from host (key is its HostKey):
// it pauses the host, or doubles its pause, or extends a pause in force,
// as pause.State.Signal decides; a new pause is counted and logged once.
// The pause asked for is the longer of Retry-After ra and a spent quota's
// window; without either, the base. Each gets a jitter of up to a tenth
// of itself, within the cap: only a pause asked for beyond the cap is
// capped.
func (b *Backoff) pauseHost(host, key string, cause Cause, status int, ra string, q Quota, now time.Time) {
	base := max(b.base, min(b.pacer.Delay(host), b.limit)) // at least the Crawl-delay
	after, given := ParseRetryAfter(ra, now)
	if q.Spent && q.Reset > after {
		after = q.Reset
	}
	base, after = b.jittered(base, after)
	d, started, capped, fleet := b.fleetPause(key, cause, after, base, now)
	until := now.Add(d)
	if !fleet {
		b.mu.Lock()
		h := b.stateLocked(key, now)
		if h.fleet { // the Backend failed: this process goes on alone
			h.fleet, h.st = false, pause.State[any]{}
		}
		d, started, capped = h.st.Signal(now, after, base, b.limit)
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
	if !b.shadow {
		b.pacer.Unbook(host) // the slots booked before the pause are given back
	}
	b.pauses[int(cause)%MaxCauses].Add(1)
	level := slog.LevelInfo
	if capped {
		b.capped.Add(1)
		level = slog.LevelWarn
	}
	if l := b.logger; l.Enabled(context.Background(), level) {
		attrs := []any{"host", host, "cause", cause.String(), "status", status,
			"pause", d, "until", until, "shadow", b.shadow}
		if given {
			attrs = append(attrs, "retry_after", strings.TrimSpace(ra))
		}
		if q.Spent {
			attrs = append(attrs, "ratelimit_reset", q.Reset)
		}
		msg := "robotsext: host asked for less; paused"
		if capped {
			msg = "robotsext: host asked for a pause longer than WithMaxBackoff; paused for the maximum"
		}
		l.Log(context.Background(), level, msg, attrs...)
	}
}

// jittered returns the first pause base and the pause asked for, after,
// each with one random extra of up to a tenth of itself (the same share
// for both), so that crawlers paused alike do not come back in lock-step.
// Neither is pushed past the cap by its jitter: a pause asked for within
// the cap stays within it and is not reported as capped.
func (b *Backoff) jittered(base, after time.Duration) (time.Duration, time.Duration) {
	u := b.pacer.random()
	base = min(base+jitterOf(base, u), b.limit)
	if after > 0 && after <= b.limit {
		after = min(after+jitterOf(after, u), b.limit)
	}
	return base, after
}

// stateLocked returns host key's state, creating it, and now and then
// drops the states left idle past pause.StaleAfter, which bounds the
// memory by the hosts that asked for less lately. b.mu must be held.
func (b *Backoff) stateLocked(key string, now time.Time) *hostBackoff {
	if b.hosts == nil {
		b.hosts = make(map[string]*hostBackoff)
	}
	if now.Sub(b.sweptAt) >= time.Minute {
		b.sweptAt = now
		for k, h := range b.hosts {
			switch {
			case h.waiting > 0:
			case !h.fleet && h.st.Phase != pause.Healthy && h.st.Stale(now),
				h.fleet && !now.Before(later(h.fleetUntil, h.askedAt).Add(pause.StaleAfter)):
				// A mirror of the fleet's state nobody asked about
				// for that long: a request would ask again.
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
func (b *Backoff) dropLocked(key string, h *hostBackoff) {
	b.wakeLocked(h)
	if h.fleet {
		h.fleet, h.st = false, pause.State[any]{}
		for r, t := range b.tokens {
			if t.key == key {
				delete(b.tokens, r)
			}
		}
	}
	for r, k := range b.passed {
		if k == key {
			delete(b.passed, r)
		}
	}
	if h.waiting > 0 {
		return // the waiters remove it (Admit)
	}
	delete(b.hosts, key)
	b.active.Add(-1)
}

// forgetLocked forgets request tok as a probe and as a request let
// through while its host recovered. b.mu must be held.
func (b *Backoff) forgetLocked(tok any) {
	delete(b.probes, tok)
	delete(b.wired, tok)
	delete(b.passed, tok)
}

// wakeLocked wakes the requests waiting for h's probe. b.mu must be held.
func (b *Backoff) wakeLocked(h *hostBackoff) {
	if h.changed != nil {
		close(h.changed)
		h.changed = nil
	}
}
