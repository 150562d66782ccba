package redisbackend

import (
	"sync"
	"sync/atomic"
	"time"
)

// breaker is a circuit breaker over the Redis calls of one Backend.
// Closed, it lets every call through and counts consecutive failures;
// failures of them in a row open it. Calls that were in flight together
// count as one: a failure counts only for a call sent after the previous
// counted failure was recorded (its ticket, from allow, is still
// current), so that one stall of this process (a GC pause, a CPU-starved
// machine), which times out every call in flight at once, is one failure
// and not an outage. Calls sent one after another into a dead or hung
// Redis still count one each. Open, it refuses calls until
// coolDown has passed, then lets one call through as a probe (half-open):
// the probe's success closes it, its failure opens it again.
//
// The closed state with no failures, the one that matters for the hot
// path, costs one atomic load per call and one per result.
type breaker struct {
	failures int              // threshold; read-only
	coolDown time.Duration    // read-only
	now      func() time.Time // read-only
	// changed, when set, is told when the breaker opens (true) and when
	// it closes again (false), outside its lock; read-only.
	changed func(opened bool)

	dirty atomic.Bool // some failure counted or open: the slow path applies

	// counted is the number of failures counted so far: allow hands it
	// out as the call's ticket. Written under mu, read without it.
	counted atomic.Uint64

	mu        sync.Mutex
	count     int       // consecutive failures; guarded by mu
	openUntil time.Time // zero when closed; guarded by mu
	probing   bool      // a probe is out; guarded by mu
	trips     atomic.Uint64
}

// outcome is what one call tells the breaker.
type outcome uint8

const (
	success outcome = iota // Redis answered
	failure                // Redis did not answer, or answered with an error
	neutral                // the caller gave up first: says nothing about Redis
)

// allow reports whether a call may go to Redis now, and the ticket its
// outcome is recorded with.
func (b *breaker) allow() (ticket uint64, ok bool) {
	ticket = b.counted.Load()
	if !b.dirty.Load() {
		return ticket, true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.openUntil.IsZero() {
		return ticket, true
	}
	if b.probing || b.now().Before(b.openUntil) {
		return ticket, false
	}
	b.probing = true
	return ticket, true
}

// record takes the outcome of a call allow let through with ticket.
func (b *breaker) record(o outcome, ticket uint64) {
	if o == success && !b.dirty.Load() {
		return
	}
	b.mu.Lock()
	wasOpen := !b.openUntil.IsZero()
	switch o {
	case success:
		b.count, b.openUntil, b.probing = 0, time.Time{}, false
		b.dirty.Store(false)
	case failure:
		b.dirty.Store(true)
		if ticket == b.counted.Load() || b.probing {
			b.count++
			b.counted.Add(1)
		}
		// A failed probe opens the breaker again; so does the threshold
		// while closed. A call let through before it opened and failing
		// late changes nothing more.
		if b.probing || (b.openUntil.IsZero() && b.count >= b.failures) {
			b.openUntil = b.now().Add(b.coolDown)
			b.trips.Add(1)
		}
		b.probing = false
	case neutral:
		b.probing = false
	}
	isOpen := !b.openUntil.IsZero()
	b.mu.Unlock()
	if b.changed != nil && wasOpen != isOpen {
		b.changed(isOpen)
	}
}

// reset closes the breaker: the server answered a probe made outside it.
func (b *breaker) reset() {
	if b.dirty.Load() {
		b.record(success, 0)
	}
}

// open reports whether the breaker currently refuses calls.
func (b *breaker) open() bool {
	if !b.dirty.Load() {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return !b.openUntil.IsZero() && (b.probing || b.now().Before(b.openUntil))
}
