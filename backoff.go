package robotsext

// This file is the public face of the back-off (internal/pacing's
// Backoff): a page answered 429 or 503, or a run of other 5xx, pauses its
// host, honouring Retry-After; requests to a paused host wait in the
// OnRequest hook, before Colly's LimitRule slots, and one probes the host
// when the pause ends. Here are its options, its causes, and what only
// Colly can do: refuse a request with ReasonBackoff, and send again a
// request that reached the wire after its host was paused.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/pacing"
	"github.com/robotsext/robotsext/internal/redact"
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
	// PauseRateLimit: the host's RateLimit header field said that a quota
	// policy has no quota left ("r=0"), before any 429 (on a 429 or 503
	// the status is the cause, and the longer of Retry-After and the
	// field's window the pause).
	PauseRateLimit
)

// String names the cause: "429", "503", "5xx_run", "probe_failed" or
// "ratelimit", short and stable, the label values the metrics adapters use; a cause
// this version does not define is "cause_N".
func (c PauseCause) String() string { return pacing.Cause(c).String() }

// PauseCauses returns every PauseCause this version defines, in order:
// the metrics adapters report each from the start.
func PauseCauses() []PauseCause {
	return []PauseCause{PauseTooManyRequests, PauseUnavailable, PauseServerErrors, PauseProbeFailed, PauseRateLimit}
}

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

// backoffLimits returns the settled back-off options: the first pause
// without Retry-After, the cap, and the bound of a request's wait.
func (cfg *config) backoffLimits() (base, limit, wait time.Duration) {
	base, limit = orDefault(cfg.backoffBase, DefaultBackoffBase), orDefault(cfg.backoffMax, DefaultMaxBackoff)
	return min(base, limit), limit, orDefault(cfg.backoffWait, DefaultBackoffWait)
}

// backoffStats fills s's back-off counters from c.
func backoffStats(s *Stats, c pacing.BackoffCounts) {
	s.Pauses = map[PauseCause]uint64{}
	for i, n := range c.Pauses {
		if n > 0 {
			s.Pauses[PauseCause(i)] = n
		}
	}
	s.PausesCapped, s.Probes = c.Capped, c.Probes
	s.BackoffWaited, s.BackoffRefused = c.Waited, c.Refused
	s.BackoffWaiting, s.PausedHosts = c.Waiting, c.Paused
}

// admitted waits while r's host is paused. It returns false when r is
// refused instead (it would have waited longer than WithBackoffWait): r is
// then aborted, counted and reported to OnBlocked with a ReasonBackoff
// Verdict.
func (e *Extension) admitted(ctx context.Context, r *colly.Request, host string) bool {
	return e.admittedAt(ctx, r, host, false)
}

// admittedAt is admitted; atWire says that r waits in its LimitRule slot
// (pacing.Backoff.AdmitAtWire).
func (e *Extension) admittedAt(ctx context.Context, r *colly.Request, host string, atWire bool) bool {
	admit := e.pauses.Admit
	if atWire {
		admit = e.pauses.AdmitAtWire
	}
	wctx, stop := e.closer.Bind(ctx) // Close wakes the wait for a probe's answer too
	retryAt, refused := admit(wctx, host, r)
	stop()
	if !refused {
		return true // on ctx's end Colly fails the request
	}
	v := Verdict{Allowed: false, Reason: ReasonBackoff, RetryAt: retryAt}
	e.stats.decided(v)
	r.Abort()
	e.blocked(ctx, r, v)
	return false
}

// ErrRequeued is the error of Colly's Retry (or Do) of a request that the
// Extension has already sent again to wait for its host's pause or turn
// (Stats.BackoffRequeued, TurnRequeued): the retry is dropped unsent,
// counted in Stats.RetriesDropped and logged at Debug, so that a retry
// idiom in OnError, which sees the original as aborted, cannot fetch the
// page a second time. The copy the Extension sent is the page's one
// request, and reaches the callbacks as any other.
var ErrRequeued = errors.New("robotsext: request already sent again to wait for its host's pause")

// backoffWire is the back-off's check right before the wire, run from
// the OnRequestHeaders hook once some host has a state. A request that
// passed the OnRequest hook while its host was in good health, and whose
// host was paused while it waited for a LimitRule slot, must not go now.
// With an Async collector it is sent again as a new request (Retry's way:
// same URL, method, headers, body, Ctx and depth), which waits in the
// OnRequest hook, outside every LimitRule slot, and r is aborted (Colly
// reports it to OnError with colly.ErrAbortedBeforeRequest; a Retry of it
// returns ErrRequeued and sends nothing). A request whose body cannot be
// re-read, one of a collector with colly.MaxRequests (a request sent
// again would count against the limit, and could push a page of the
// crawl past it), or one of a synchronous collector (whose Retry would
// run inside this slot), waits here instead, in its slot, and may take
// the probe from one that has not reached the wire. It returns false when
// r does not go now.
func (e *Extension) backoffWire(c *colly.Collector, r *colly.Request) bool {
	o, err := originOf(r.URL)
	if err != nil || e.pauses.Wire(r, o.Host) {
		return true
	}
	return e.heldAtWire(c, r, o.Host)
}

// heldAtWire deals with r, which must not go to host now for its back-off:
// an Async collector's r is sent again to wait in the OnRequest hook and
// aborted; otherwise r waits here (admitted). It returns true when r may
// try the wire again. A request whose collector's context ended is
// neither sent again nor kept: it goes on, and the client fails it with
// the context's error.
func (e *Extension) heldAtWire(c *colly.Collector, r *colly.Request, host string) bool {
	ctx := contextOf(c)
	return ctx.Err() == nil && !e.sentAgain(c, r, e.stats.backoffRequeued.Add) && e.admittedAt(ctx, r, host, true) && ctx.Err() == nil
}

// sentAgain sends r, which must not go on the wire now, again as Retry does, to wait in the
// OnRequest hook outside every LimitRule slot, when its collector is Async without MaxRequests
// (see backoffWire); it counts it, aborts r and arms it with a retryTrap, so that a retry
// of r, which Colly reports aborted, sends nothing (ErrRequeued). It reports whether it did.
func (e *Extension) sentAgain(c *colly.Collector, r *colly.Request, count func(uint64) uint64) bool {
	if c == nil || !c.Async || c.MaxRequests != 0 {
		return false
	}
	cp, hdr := *r, http.Header{}
	if r.Headers != nil {
		hdr = r.Headers.Clone()
	}
	cp.Headers = &hdr
	if s, ok := r.Body.(io.Seeker); ok && r.Body != nil {
		if _, err := s.Seek(0, io.SeekStart); err != nil {
			return false
		}
	}
	if cp.Retry() != nil {
		return false
	}
	u := r.URL.String()
	r.Body = &retryTrap{e: e, body: r.Body, url: u,
		err: fmt.Errorf("robotsext: retry of %s dropped: it was sent again to wait outside its slot: %w", redact.RawURL(u), ErrRequeued)}
	count(1)
	r.Abort()
	return true
}
