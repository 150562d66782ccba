package backend

// This file defines the state a crawl shares beyond one Extension: each
// origin's robots.txt record, the lease that lets one worker fetch it, and
// each host's pace. memory.go implements it in-process; the nested module
// redisbackend implements it over Redis for a fleet of worker processes.

import (
	"context"
	"errors"
	"time"
)

// ErrLeaseLost is returned (wrapped) by Backend.Store when the lease it was
// given is no longer in force: it expired and another worker may have taken it.
// The record is not stored, so a slow worker cannot overwrite a newer fetch.
var ErrLeaseLost = errors.New("robotsext: robots.txt lease lost")

// Backend is the politeness state shared by every Extension of one crawl,
// in one process or across a fleet of worker processes (WithBackend). It
// keeps three things, each keyed by a string the Extension builds:
//
//   - per origin ("https://example.com", "http://[::1]:8080"), the Record of
//     its latest robots.txt fetch, so that the fleet fetches each
//     robots.txt once per lifetime and shares revalidation, stale copies
//     and backoff;
//   - per origin, a lease that makes one worker the fetcher while the
//     others wait for its record;
//   - per host ("example.com", "example.com:8443"), the latest booked start
//     of a request, so that the fleet as a whole keeps the host's
//     Crawl-delay.
//
// The Extension keeps its own bounded near-cache of parsed records, so a
// cached origin costs no Backend call and a request to a host with a
// Crawl-delay costs three calls with a Queuer (Queue, ClaimTurn and
// Unclaim) or a Claimer (Start, Claim and Unclaim), two Starter.Start
// calls with a Starter, and one Reserve otherwise, plus one more each
// time the answer is "not yet" (with a Queuer, about once per request,
// however many workers wait; with a Claimer, at every delay). The optional interfaces a
// Backend may add, and which one the Extension uses when several are
// present, are listed in the package doc. When
// a Backend call fails, the Extension falls back to fetching and pacing
// locally (see robotsext.WithBackend); a Backend should therefore fail
// fast rather than block.
//
// Implementations must be safe for concurrent use. Records are values: a
// Backend must not modify a Record passed to Store, and callers must not
// modify one returned by Load.
type Backend interface {
	// Load returns the record stored for origin, or nil and no error when
	// none is stored. A backend may forget a record once KeepUntil has
	// passed.
	Load(ctx context.Context, origin string) (*Record, error)

	// Lease asks to become the one fetcher of origin's robots.txt for ttl.
	// When granted, ok is true and the Lease fences Store. When another
	// worker has the lease, ok is false and wait is how long its lease
	// still runs; the caller polls Load meanwhile and asks again after wait,
	// so a fetcher that dies is replaced once its lease expires.
	Lease(ctx context.Context, origin string, ttl time.Duration) (l Lease, ok bool, wait time.Duration, err error)

	// Store saves rec as origin's record and ends l. When l is no
	// longer origin's lease in force, it stores nothing and returns an
	// error wrapping ErrLeaseLost.
	Store(ctx context.Context, origin string, l Lease, rec *Record) error

	// Reserve books the start of the next request to host and returns how
	// long the caller must wait for it. The start booked is
	// max(now, latest+delay), where latest is the start booked last for
	// the host and now is the backend's own clock (never the caller's, so
	// that clock skew between workers cannot shorten a gap). A delay of 0
	// books max(now, latest), which records a request that started late
	// without delaying the next one any further than the delay it will
	// pass itself.
	Reserve(ctx context.Context, host string, delay time.Duration) (time.Duration, error)
}

// Lease is the right to fetch one origin's robots.txt, granted by
// Backend.Lease. Token identifies the worker it was granted to; Store checks it.
type Lease struct {
	Token string
}

// Starter is implemented by Backends that pace a host at the moment each
// request starts, rather than by booking slots ahead (Reserve); the
// package doc says what it buys and when the Extension uses it. The
// Extension asks to start when a request is ready and asks once more,
// with the same token, right before the request goes on the wire.
//
// A Backend keeps, per host, the latest start it granted and the token
// it granted it to. Start, timed by the backend's own clock:
//
//   - grants (wait 0) and records (now, token) when no start is known,
//     when at least delay has passed since the latest start, or when
//     delay is 0 (which records a start, such as the robots.txt request,
//     without waiting for anything);
//   - grants and moves the latest start to now when token owns it (the
//     confirmation right before the wire);
//   - otherwise grants nothing and returns the wait until latest+delay,
//     which is at most delay; the caller asks again then.
//
// A latest start in the future (more than a second past the backend's
// clock: a foreign write, a corrupted value, a failover to a node whose
// clock is behind) or one that cannot be read is never waited for: it is
// replaced as if no start were known, and repaired is true so that the
// caller counts and reports it. A host's state may be forgotten once its
// latest start is older than both the delay and MinPaceKeep.
type Starter interface {
	// Start asks to start a request to host now; see the type's doc.
	Start(ctx context.Context, host, token string, delay time.Duration) (wait time.Duration, repaired bool, err error)
}

// Claimer is implemented by Starters that also know which request of the
// fleet is on the wire to each host: a request claims its host for the
// fleet from its gate until its response headers arrive, and the next
// start anywhere is at least the delay after the unclaim (see the package
// doc for what it buys). Right before a request goes on the wire the
// Extension calls Claim (with the token of its Start grant, when it has
// one) instead of Start's confirmation, and Unclaim once the request's
// response headers or its error came.
//
// A Claimer keeps, per host, besides Start's latest start and its token,
// the request that claims the host (a token and when its claim expires)
// and when the latest claim ended. Claim, timed by the backend's clock:
//
//   - grants (wait 0) when delay is 0 or no start is known; otherwise
//     when no other token's claim is in force, at least delay has passed
//     since the latest unclaim, and, unless token owns the latest start
//     (its own grant from Start), at least delay since the latest start.
//     A grant records (now, token) as the latest start and token's claim
//     until now+ttl;
//   - while another token's claim is in force, grants nothing and returns
//     a short wait (at most delay) after which the caller asks again;
//   - otherwise grants nothing and returns the wait until the later of
//     the two times above, which is at most delay.
//
// Unclaim ends token's claim at the backend's now; it changes nothing, and
// is no error, when token does not claim host (its claim expired, or was
// never granted). A claim that is never ended (its worker died) stops
// mattering at its expiry, and even then the next start comes no sooner
// than delay after the start it claimed. Every caller passes the same ttl,
// so a claim expiring more than ttl (and a second) past the backend's
// clock cannot be right: it is dropped, and repaired is true. An unclaim
// in the future is repaired like a broken latest start.
type Claimer interface {
	Starter
	// Claim asks to put a request to host on the wire now, claiming host
	// for it until Unclaim or for ttl; see the type's doc.
	Claim(ctx context.Context, host, token string, delay, ttl time.Duration) (wait time.Duration, repaired bool, err error)
	// Unclaim records that the request claiming host under token has
	// its answer.
	Unclaim(ctx context.Context, host, token string) error
}

// LeaseRenewer is implemented by Backends whose leases can be extended
// by the worker they were granted to; the Extension then takes short
// leases and renews them while its fetch runs (see the package doc).
type LeaseRenewer interface {
	// Renew extends l, origin's lease in force, to ttl from now. When
	// l is no longer in force it changes nothing and returns an error
	// wrapping ErrLeaseLost.
	Renew(ctx context.Context, origin string, l Lease, ttl time.Duration) error
}

// Forgetter is implemented by Backends that can drop an origin's record
// for the whole fleet (Extension.Forget; see the package doc). Forget
// deletes the record (and any lease) and logs the purge; Purges tells
// every worker which origins were purged since it last asked.
type Forgetter interface {
	// Forget deletes origin's record and lease and logs the purge.
	Forget(ctx context.Context, origin string) error
	// Purges returns the origins purged after cursor ("" asks only for
	// the current cursor) and the cursor to give next time. all is true
	// when the log no longer reaches back to cursor: the caller must then
	// drop every near-cached record. A call when nothing was purged
	// should cost one cheap read.
	Purges(ctx context.Context, cursor string) (origins []string, next string, all bool, err error)
}

// FleetSizer is implemented by Backends that know how many workers share
// them, for the local pace while the Backend fails (see the package doc).
type FleetSizer interface {
	FleetSize() int
}

// Pauser is implemented by Backends that share the back-off of hosts that
// asked for less (429, 503, a run of 5xx; see robotsext.WithBackoffBase
// and the package doc). Every call is
// timed by the backend's own clock. A host's state moves as one
// process's does: paused until its end; then probing, one token at a
// time (a probe unanswered for a while is replaced); then recovering,
// its starts spaced by a gap that halves with each good answer; then in
// good health, when the backend forgets it.
//
// A state the backend cannot read (garbage, a key of another type, an end
// further ahead than the largest pause allows) is replaced as if the host
// were in good health, and repaired is true so that the caller counts
// and reports it. A state left idle for a few minutes past its latest
// time may be forgotten.
type Pauser interface {
	// Pause records an overload answer from host: retryAfter is its
	// Retry-After (0 when none), base the first pause without one, and
	// limit the cap. A host in good health is paused for retryAfter (or
	// base); a failure while it is probed or recovering doubles its latest
	// pause (or takes retryAfter when longer); a failure while it is
	// paused only extends the pause to retryAfter. wait is how long the
	// pause still runs; started reports that this call began a pause (its
	// caller counts and logs it, once for the fleet), capped that limit
	// cut it.
	Pause(ctx context.Context, host string, retryAfter, base, limit time.Duration) (wait time.Duration, started, capped, repaired bool, err error)
	// Ask asks whether the request token may start to host now. wait 0
	// means it may, and probe that it is the host's probe; otherwise the
	// caller asks again after wait (at most). healthy reports that host
	// has no back-off state: the caller stops asking.
	Ask(ctx context.Context, host, token string) (wait time.Duration, probe, healthy, repaired bool, err error)
	// Answered records a good answer (no overload signal) to the request
	// token sent to host: the probe's starts the recovery, a recovering
	// host's halves the gap. healthy reports that host is in good health
	// now (or had no state).
	Answered(ctx context.Context, host, token string) (healthy bool, err error)
	// Paused returns up to max hosts that have a back-off state now, so
	// that each worker learns of the pauses others saw. A call when no
	// host has one should cost one cheap read. (A PauseWatcher also logs
	// the pauses begun, so that readers need not list them all each
	// time.)
	Paused(ctx context.Context, max int) ([]string, error)
}
