package pacing

// This file shares the back-off with the fleet through a Backend that is
// a backend.Pauser: a pause seen by any worker applies to every worker,
// and the fleet sends one probe when it ends. A host in good health costs
// no Backend call: a worker asks the Backend about a host only once it
// knows the host has a state, because it saw an overload answer itself,
// because a Queuer's answer to one of its requests said so (fleetTurn),
// or because the Backend listed the host (read at most every pausePoll,
// in the background: the pauses begun since the last read with a
// PauseWatcher, else Paused). Of the requests of this process waiting
// for a host, one asks the Backend per fleetAskEvery at most (askedAt);
// the others wait for what it learns. While the Backend fails, each worker
// goes on with its own back-off, as it paces locally (bounded, and
// reported to Health).

import (
	"context"
	"time"

	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/internal/pause"
)

const (
	// pausePoll is how often a worker reads the fleet's paused hosts
	// while it sends requests to hosts its requests learn no pause from
	// (not paced through a Queuer), and pausePollQueued how often while
	// all its requests are: their Queue and ClaimTurn answers carry the
	// pauses of their hosts.
	pausePoll       = 500 * time.Millisecond
	pausePollQueued = 5 * time.Second
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

// fleetPauser reports whether there is a Pauser and the Backend works for
// host key ("": for no host in particular, such as the pause log).
func (b *Backoff) fleetPauser(key string) bool {
	return b.pauser != nil && up(b.health, key)
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
	if !b.fleetPauser(key) || b.shadow {
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
	if !b.fleetPauser(key) {
		return
	}
	ctx, cancel := b.fleetCall()
	defer cancel()
	healthy, err := b.pauser.Answered(ctx, key, tok)
	if err != nil {
		b.fleetFailed(ctx, err)
		return
	}
	switch {
	case healthy:
		b.dropFleet(key)
	case b.pacer.queued(key):
		b.mu.Lock()
		b.recoveringLocked(key)
		b.mu.Unlock()
	default:
		// Recovering: a waiting request may ask for its start now.
		b.mu.Lock()
		if h := b.hosts[key]; h != nil && h.fleet {
			h.askedAt = time.Time{}
			b.wakeLocked(h)
		}
		b.mu.Unlock()
	}
}

// fleetTurn takes the host's back-off a Queuer answered request r (btok
// in the Backend) with, from Wait or Gate. In good health or recovering
// (the queue spaces the recovery) the host's mirror goes; paused, the
// mirror holds until the pause's end; probed by another request, it
// holds the requests of this process for that probe's answer; r made the
// probe is counted and its answer goes to the Backend. The requests
// waiting in Admit are woken to read the news.
func (b *Backoff) fleetTurn(key string, r any, btok string, st backend.PauseState) {
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	h := b.hosts[key]
	switch st.Phase {
	case backend.PhaseHealthy:
		if h != nil && h.fleet {
			b.dropLocked(key, h)
		}
		return
	case backend.PhaseRecovering:
		b.recoveringLocked(key)
		return
	}
	if h == nil {
		h = b.stateLocked(key, now)
	}
	until := now
	if st.Phase == backend.PhasePaused {
		until = now.Add(st.Wait)
	}
	h.fleet, h.fleetUntil, h.askedAt = true, until, now
	h.st = pause.State[any]{Phase: pause.Paused, Until: until}
	if st.Probe && r != nil {
		if _, again := b.probes[r]; !again {
			if b.probes == nil {
				b.probes = make(map[any]string)
			}
			if b.tokens == nil {
				b.tokens = make(map[any]fleetToken)
			}
			b.probes[r] = key
			b.tokens[r] = fleetToken{key: key, tok: btok, granted: true}
			b.probesSent.Add(1)
			b.logger.Debug("robotsext: pause over; probing the host", "host", key)
		}
	}
	b.wakeLocked(h)
}

// pausedFor reports whether host key is paused for the fleet, as far as
// this process knows: its mirror holds until a pause's end still ahead
// (and the Backoff makes requests wait, not in shadow mode).
func (b *Backoff) pausedFor(key string) bool {
	if b.shadow || b.active.Load() == 0 {
		return false
	}
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	h := b.hosts[key]
	return h != nil && h.fleet && now.Before(h.fleetUntil)
}

// recoveringLocked marks host key's mirror as the fleet's recovery
// through a Queuer, which spaces the recovery's starts itself: requests go
// on to Wait, and each good answer goes to the Backend (fleetAnswered),
// which shortens the gap until the host is in good health. b.mu must be
// held.
func (b *Backoff) recoveringLocked(key string) {
	h := b.hosts[key]
	if h == nil {
		h = b.stateLocked(key, b.now())
	}
	h.fleet, h.fleetUntil = true, time.Time{}
	h.st = pause.State[any]{Phase: pause.Recovering}
	b.wakeLocked(h)
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
	if b.fleetPauser(key) {
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
// one is due at now for a request to host: pausePoll after the latest
// read, or pausePollQueued when host is paced through a Queuer; only the
// caller that moves the read's time on starts it. The caller calls it on
// its way (from the OnRequest hook) when Fleet says there is a Pauser.
// With a PauseWatcher the read costs the same however many hosts are
// paused, and misses none.
func (b *Backoff) Poll(now time.Time, host string) {
	last := b.polledAt.Load()
	every := pausePoll
	if time.Duration(now.UnixNano()-last) < pausePollQueued && b.pacer.queued(host) {
		every = pausePollQueued
	}
	if time.Duration(now.UnixNano()-last) < every || !b.polledAt.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	if !b.fleetPauser("") {
		return
	}
	if b.watcher != nil {
		go b.watchPauses()
		return
	}
	go b.pollPauses()
}

// watchMax bounds the hosts one PausesSince call returns, and watchPages
// the calls one read makes: a worker that starts while a hundred thousand
// hosts are paused takes a few reads to learn them all.
const (
	watchMax   = 1000
	watchPages = 16
)

// watchPauses reads the pauses begun since the last read (PausesSince):
// each host this worker does not know of gets a mirror, so that its next
// request asks the Backend. One read at a time (watchMu), whose cursor
// carries over to the next.
func (b *Backoff) watchPauses() {
	if !b.watchMu.TryLock() {
		return // the previous read is still on its way
	}
	defer b.watchMu.Unlock()
	ctx, cancel := b.fleetCall()
	defer cancel()
	for range watchPages {
		hosts, next, more, err := b.watcher.PausesSince(ctx, b.watchCursor, watchMax)
		if err != nil {
			b.fleetFailed(ctx, err)
			return
		}
		b.watchCursor = next
		b.mirror(hosts)
		if !more {
			return
		}
	}
}

// mirror gives each of hosts this worker has no state for a mirror of
// the fleet's, to be asked about by its next request.
func (b *Backoff) mirror(hosts []string) {
	if len(hosts) == 0 {
		return
	}
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, key := range hosts {
		if h := b.hosts[key]; h == nil {
			h = b.stateLocked(key, now)
			h.fleet, h.fleetUntil = true, now
			h.st = pause.State[any]{Phase: pause.Paused, Until: now}
		}
	}
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
