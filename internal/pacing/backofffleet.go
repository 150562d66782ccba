package pacing

// This file shares the back-off with the fleet through a Backend that is
// a backend.Pauser: a pause seen by any worker applies to every worker,
// and the fleet sends one probe when it ends. A host in good health costs
// no Backend call: a worker asks the Backend about a host only once it
// knows the host has a state, because it saw an overload answer itself or
// because the Backend listed the host (Paused, read at most every
// pausePoll, in the background). While the Backend fails, each worker
// goes on with its own back-off, as it paces locally (bounded, and
// reported to Health).

import (
	"context"
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
// granted reports that the Pauser let it go (Admit asked), so that the
// check at the wire does not ask again.
type fleetToken struct {
	key, tok string
	granted  bool
}

// Fleet reports whether the back-off is shared through a Pauser (whether
// Poll has anything to do).
func (b *Backoff) Fleet() bool { return b.pauser != nil }

// fleetPauser reports whether there is a Pauser and the Backend works.
func (b *Backoff) fleetPauser() bool {
	return b.pauser != nil && up(b.health)
}

// fleetCall returns a context for one Pauser call.
func (b *Backoff) fleetCall() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(b.context()), fleetCallTimeout)
}

// fleetFailed reports a failed Pauser call, unless it failed because the
// crawl's context ended.
func (b *Backoff) fleetFailed(ctx context.Context, err error) {
	if ctx.Err() == nil || b.context().Err() == nil {
		failed(b.health, err)
	}
}

// fleetRepaired counts a state the Backend could not read and replaced.
func (b *Backoff) fleetRepaired(key string) {
	b.pacer.nanomalies.Add(1)
	b.logger.Warn("robotsext: the backend's back-off state of a host was unreadable; replaced", "host", key)
}

// fleetPause records an overload signal in the Backend. ok is false
// when there is no working Pauser: the caller pauses locally.
func (b *Backoff) fleetPause(key string, cause Cause, after, base time.Duration, now time.Time) (d time.Duration, started, capped, ok bool) {
	if !b.fleetPauser() || b.shadow {
		return 0, false, false, false // shadow mode pauses nobody, here or in the fleet
	}
	ctx, cancel := b.fleetCall()
	defer cancel()
	w, started, capped, repaired, err := b.pauser.Pause(ctx, key, after, base, b.limit)
	if err != nil {
		b.fleetFailed(ctx, err)
		return 0, false, false, false
	}
	if repaired {
		b.fleetRepaired(key)
	}
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
func (b *Backoff) fleetAnswered(key, tok string) {
	if !b.fleetPauser() {
		return
	}
	ctx, cancel := b.fleetCall()
	defer cancel()
	healthy, err := b.pauser.Answered(ctx, key, tok)
	if err != nil {
		b.fleetFailed(ctx, err)
		return
	}
	if healthy {
		b.dropFleet(key)
	}
}

// dropFleet forgets host key's mirror of the fleet's state.
func (b *Backoff) dropFleet(key string) {
	b.mu.Lock()
	if h := b.hosts[key]; h != nil && h.fleet {
		b.dropLocked(key, h)
	}
	b.mu.Unlock()
}

// tokenLocked returns request r's token in the Pauser for host key,
// making one. b.mu must be held.
func (b *Backoff) tokenLocked(r any, key string) string {
	if t, ok := b.tokens[r]; ok && t.key == key {
		return t.tok
	}
	if b.tokens == nil {
		b.tokens = make(map[any]fleetToken)
	}
	t := fleetToken{key: key, tok: b.names.next()}
	b.tokens[r] = t
	return t.tok
}

// fleetAsk asks the Backend whether request r may go to host key. ok is
// false when the Backend failed: the host's mirror became a local pause
// until the fleet's end as last known, and the caller asks again.
func (b *Backoff) fleetAsk(r any, key string) (wait time.Duration, probe, healthy, ok bool) {
	b.mu.Lock()
	tok := b.tokenLocked(r, key)
	b.mu.Unlock()
	if b.fleetPauser() {
		ctx, cancel := b.fleetCall()
		w, probe, healthy, repaired, err := b.pauser.Ask(ctx, key, tok)
		cancel()
		if err == nil {
			if repaired {
				b.fleetRepaired(key)
			}
			if healthy {
				b.dropFleet(key)
			}
			return w, probe, healthy, true
		}
		b.fleetFailed(ctx, err)
	}
	b.mu.Lock()
	if h := b.hosts[key]; h != nil && h.fleet {
		h.fleet = false
		h.st = pause.State[any]{}
		if now := b.now(); h.fleetUntil.After(now) {
			h.st.Signal(now, h.fleetUntil.Sub(now), h.fleetUntil.Sub(now), h.fleetUntil.Sub(now))
		}
		b.wakeLocked(h)
	}
	b.mu.Unlock()
	return 0, false, false, false
}

// Poll starts a read of the fleet's paused hosts in the background when
// one is due at now (every pausePoll); only the caller that moves the due
// time on starts it. The caller calls it on its way (from the OnRequest
// hook) when Fleet says there is a Pauser.
func (b *Backoff) Poll(now time.Time) {
	due := b.pollDue.Load()
	if now.UnixNano() < due || !b.pollDue.CompareAndSwap(due, now.Add(pausePoll).UnixNano()) {
		return
	}
	if !b.fleetPauser() {
		return
	}
	go b.pollPauses()
}

// pollPauses reads the fleet's paused hosts: each one this worker does
// not know of gets a mirror, so that its next request asks the Backend;
// a mirror of a host no longer listed, with no request waiting, goes.
func (b *Backoff) pollPauses() {
	ctx, cancel := b.fleetCall()
	defer cancel()
	hosts, err := b.pauser.Paused(ctx, pausePollMax)
	if err != nil {
		b.fleetFailed(ctx, err)
		return
	}
	now := b.now()
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
