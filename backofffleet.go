package robotsext

// This file shares the back-off with the fleet through a Backend that is
// a backend.Pauser: a pause seen by any worker holds for every worker,
// and the fleet sends one probe when it ends. A host in good health costs
// no Backend call: a worker asks the Backend about a host only once it
// knows the host has a state, because it saw an overload answer itself or
// because the Backend listed the host (Paused, read at most every
// pausePoll, in the background). While the Backend fails, each worker
// goes on with its own back-off, as it paces locally (bounded, and
// logged by backendFailed).

import (
	"context"
	"strconv"
	"time"

	"github.com/robotsext/robotsext/internal/pause"
)

const (
	// pausePoll is how often a worker reads the fleet's paused hosts.
	pausePoll = 500 * time.Millisecond
	// pausePollMax bounds the hosts one read returns.
	pausePollMax = 1000
	// fleetAskEvery bounds a waiting request's sleep between two asks of
	// the Backend, which cannot wake it when the fleet's probe is
	// answered.
	fleetAskEvery = 250 * time.Millisecond
	// fleetCallTimeout bounds one Pauser call.
	fleetCallTimeout = 2 * time.Second
)

// fleetToken is a request's token in the Pauser and its host key;
// granted reports that the Pauser let it go (the OnRequest hook asked),
// so that the check at the wire does not ask again.
type fleetToken struct {
	key, tok string
	granted  bool
}

// fleetPauser returns the Backend's Pauser while the Backend works, else
// nil.
func (e *Extension) fleetPauser() bool {
	return e.pauses.pauser != nil && e.backendUp()
}

// fleetCall returns a context for one Pauser call.
func (e *Extension) fleetCall() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(e.context()), fleetCallTimeout)
}

// fleetFailed records a failed Pauser call.
func (e *Extension) fleetFailed(ctx context.Context, err error) {
	if ctx.Err() == nil || e.context().Err() == nil {
		e.backendFailed(err)
	}
}

// fleetRepaired counts a state the Backend could not read and replaced.
func (e *Extension) fleetRepaired(key string) {
	e.pacer.nanomalies.Add(1)
	e.cfg.logger.Warn("robotsext: the backend's back-off state of a host was unreadable; replaced", "host", key)
}

// fleetPause records an overload signal in the Backend. ok is false
// when there is no working Pauser: the caller pauses locally.
func (e *Extension) fleetPause(key string, cause PauseCause, after, base, limit time.Duration, now time.Time) (d time.Duration, started, capped, ok bool) {
	if !e.fleetPauser() || e.cfg.shadow {
		return 0, false, false, false // shadow mode pauses nobody, here or in the fleet
	}
	ctx, cancel := e.fleetCall()
	defer cancel()
	w, started, capped, repaired, err := e.pauses.pauser.Pause(ctx, key, after, base, limit)
	if err != nil {
		e.fleetFailed(ctx, err)
		return 0, false, false, false
	}
	if repaired {
		e.fleetRepaired(key)
	}
	b := &e.pauses
	b.mu.Lock()
	h := b.stateLocked(key, now)
	h.fleet, h.fleetUntil = true, now.Add(w)
	h.st = pause.State[any]{Phase: pause.Paused, Until: h.fleetUntil}
	if started {
		h.run, h.runURL, h.mixed = 0, "", false
		h.cause = cause
	}
	b.wakeLocked(h)
	b.mu.Unlock()
	return w, started, capped, true
}

// fleetAnswered records a good answer to the request tok ("" when it did
// not ask the Backend) from host key, whose state is the fleet's.
func (e *Extension) fleetAnswered(key, tok string) {
	if !e.fleetPauser() {
		return
	}
	ctx, cancel := e.fleetCall()
	defer cancel()
	healthy, err := e.pauses.pauser.Answered(ctx, key, tok)
	if err != nil {
		e.fleetFailed(ctx, err)
		return
	}
	if healthy {
		e.pauses.dropFleet(key)
	}
}

// dropFleet forgets host key's mirror of the fleet's state.
func (b *hostPauses) dropFleet(key string) {
	b.mu.Lock()
	if h := b.hosts[key]; h != nil && h.fleet {
		b.dropLocked(key, h)
	}
	b.mu.Unlock()
}

// tokenLocked returns request r's token in the Pauser for host key,
// making one. b.mu must be held.
func (b *hostPauses) tokenLocked(r any, key string) string {
	if t, ok := b.tokens[r]; ok && t.key == key {
		return t.tok
	}
	if b.tokens == nil {
		b.tokens = make(map[any]fleetToken)
	}
	t := fleetToken{key: key, tok: b.tokPrefix + strconv.FormatUint(b.tokSeq.Add(1), 36)}
	b.tokens[r] = t
	return t.tok
}

// fleetAsk asks the Backend whether request r may go to host key. ok is
// false when the Backend failed: the host's mirror became a local pause
// until the fleet's end as last known, and the caller asks again.
func (e *Extension) fleetAsk(r any, key string) (wait time.Duration, probe, healthy, ok bool) {
	b := &e.pauses
	b.mu.Lock()
	tok := b.tokenLocked(r, key)
	b.mu.Unlock()
	if e.fleetPauser() {
		ctx, cancel := e.fleetCall()
		w, probe, healthy, repaired, err := b.pauser.Ask(ctx, key, tok)
		cancel()
		if err == nil {
			if repaired {
				e.fleetRepaired(key)
			}
			if healthy {
				b.dropFleet(key)
			}
			return w, probe, healthy, true
		}
		e.fleetFailed(ctx, err)
	}
	b.mu.Lock()
	if h := b.hosts[key]; h != nil && h.fleet {
		h.fleet = false
		h.st = pause.State[any]{}
		if now := e.cfg.now(); h.fleetUntil.After(now) {
			h.st.Signal(now, h.fleetUntil.Sub(now), h.fleetUntil.Sub(now), h.fleetUntil.Sub(now))
		}
		b.wakeLocked(h)
	}
	b.mu.Unlock()
	return 0, false, false, false
}

// maybePollPauses starts a read of the fleet's paused hosts in the
// background when one is due; only the caller that moves the due time on
// starts it.
func (e *Extension) maybePollPauses(now time.Time) {
	b := &e.pauses
	due := b.pollDue.Load()
	if now.UnixNano() < due || !b.pollDue.CompareAndSwap(due, now.Add(pausePoll).UnixNano()) {
		return
	}
	if !e.fleetPauser() {
		return
	}
	go e.pollPauses()
}

// pollPauses reads the fleet's paused hosts: each one this worker does
// not know of gets a mirror, so that its next request asks the Backend;
// a mirror of a host no longer listed, with no request waiting, goes.
func (e *Extension) pollPauses() {
	ctx, cancel := e.fleetCall()
	defer cancel()
	hosts, err := e.pauses.pauser.Paused(ctx, pausePollMax)
	if err != nil {
		e.fleetFailed(ctx, err)
		return
	}
	b := &e.pauses
	now := e.cfg.now()
	listed := make(map[string]bool, len(hosts))
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, key := range hosts {
		listed[key] = true
		if h := b.hosts[key]; h == nil {
			h = b.stateLocked(key, now)
			h.fleet, h.fleetUntil = true, now
			h.st = pause.State[any]{Phase: pause.Paused, Until: now}
		}
	}
	if len(hosts) < pausePollMax {
		for key, h := range b.hosts {
			if h.fleet && !listed[key] && h.waiting == 0 {
				b.dropLocked(key, h)
			}
		}
	}
}
