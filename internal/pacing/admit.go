package pacing

// This file lets requests go to a host with a back-off state: Admit, in
// the OnRequest hook, waits for the host's pause (or refuses the
// request); Wire, right before the wire, stops a request whose host was
// paused after it was admitted.

import (
	"context"
	"time"

	"github.com/robotsext/robotsext/internal/pause"
)

// Admit waits, in the OnRequest hook, until request tok may go to host
// as far as its back-off is concerned: at once for a host in good health
// (one atomic load while no host has a state), and in shadow mode or with
// the back-off off. refused reports that the request must not be sent,
// because it would have waited longer than BackoffConfig.Wait; retryAt
// then says when the host may be asked again. When ctx ends first Admit
// returns at once, not refused: the caller's context fails the request.
func (b *Backoff) Admit(ctx context.Context, host string, tok any) (retryAt time.Time, refused bool) {
	return b.admit(ctx, host, tok, false)
}

// AdmitAtWire is Admit for request tok waiting at the wire, in its
// LimitRule slot (a request Wire stopped that could not be sent again to
// wait in the OnRequest hook). Such a request may take the probe from one
// that has not reached the wire: that one may be waiting for the very
// slot this one holds, and each would wait for the other until the probe
// expires.
func (b *Backoff) AdmitAtWire(ctx context.Context, host string, tok any) (retryAt time.Time, refused bool) {
	return b.admit(ctx, host, tok, true)
}

// admit is Admit; atWire says that tok waits in its LimitRule slot.
func (b *Backoff) admit(ctx context.Context, host string, tok any, atWire bool) (retryAt time.Time, refused bool) {
	if b.active.Load() == 0 || b.shadow || b.off || ctx.Err() != nil {
		return retryAt, false // an ended context: never a probe
	}
	key := HostKey(host)
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
		now := b.now()
		b.mu.Lock()
		hh := b.hosts[key]
		if hh == nil || hh.st.Phase == pause.Healthy {
			b.mu.Unlock()
			return retryAt, false
		}
		var wait time.Duration
		var probe, onProbe bool
		switch {
		case hh.fleet && hh.st.Phase == pause.Recovering:
			// Recovering through a Queuer, which spaces the starts.
			b.mu.Unlock()
			return retryAt, false
		case hh.fleet && now.Before(hh.fleetUntil):
			wait = hh.fleetUntil.Sub(now) // the pause's rest: nothing to ask
		case hh.fleet && now.Before(hh.askedAt.Add(fleetAskEvery)):
			// Another request of this process asked lately: wait for
			// what it learns, or ask in turn.
			wait = hh.askedAt.Add(fleetAskEvery).Sub(now)
		case hh.fleet && b.pacer.queued(host):
			// The host is paced through a Queuer, whose answer in Wait
			// carries the back-off: this request asks for the others.
			hh.askedAt = now
			b.mu.Unlock()
			return retryAt, false
		case hh.fleet:
			hh.askedAt = now
			b.mu.Unlock()
			w, p, healthy, fleetOK := b.fleetAsk(tok, key)
			if !fleetOK {
				continue // paused locally now
			}
			if healthy {
				return retryAt, false
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
		default:
			if p := hh.st.Probe; atWire && hh.st.Phase == pause.Probing && p != tok && !b.wired[p] && hh.st.Withdrawn(p) {
				delete(b.probes, p) // it will ask again at the wire
			}
			wait, probe, onProbe = hh.st.Ask(now, tok)
			if probe && !atWire { // Wire's Ask gives it ProbeExpiry
				hh.st.Reach(tok, now.Add(pause.ProbeReach+2*b.pacer.Delay(host)))
			}
			if wait <= 0 && !probe && hh.st.Phase == pause.Recovering {
				if b.passed == nil {
					b.passed = make(map[any]string)
				}
				b.passed[tok] = key // Wire lets it through: its start is counted
			}
		}
		if wait <= 0 {
			if probe && atWire {
				if b.wired == nil {
					b.wired = make(map[any]bool)
				}
				b.wired[tok] = true
			}
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
				b.logger.Debug("robotsext: pause over; probing the host", "host", host)
			}
			return retryAt, false
		}
		if deadline.IsZero() {
			deadline = now.Add(b.bound)
		}
		if now.Add(wait).After(deadline) {
			next := now.Add(wait)
			if !hh.fleet {
				next = hh.st.Next(now)
			}
			delete(b.tokens, tok)
			b.mu.Unlock()
			b.refused.Add(1)
			return next, true
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
			err = b.sleep(ctx, wait)
		}
		if err != nil {
			return time.Time{}, false
		}
	}
}

// Wire is the back-off's check of request tok right before the wire, run
// from the OnRequestHeaders hook once some host has a state. A request
// that passed Admit while its host was in good health, and whose host was
// paused while it waited for a LimitRule slot, must not go now: Wire
// returns false, and the caller sends it again to wait in Admit (or
// waits there itself). A request that goes now and is the host's probe
// is counted as one.
func (b *Backoff) Wire(tok any, host string) (goes bool) {
	if b.shadow || b.off {
		return true
	}
	key := HostKey(host)
	for {
		now := b.now()
		b.mu.Lock()
		h := b.hosts[key]
		if h == nil || h.st.Phase == pause.Healthy || (h.fleet && h.st.Phase == pause.Recovering) {
			b.mu.Unlock()
			return true // in good health, or recovering through a Queuer
		}
		if h.st.Phase == pause.Recovering {
			// A request Admit let through during the recovery goes; one
			// admitted before the pause began asks for its start now, so
			// that the return stays gradual.
			if _, ok := b.passed[tok]; ok {
				b.mu.Unlock()
				return true
			}
			wait, _, _ := h.st.Ask(now, tok)
			if wait <= 0 {
				if b.passed == nil {
					b.passed = make(map[any]string)
				}
				b.passed[tok] = key // asked again after the gate, it goes
			}
			b.mu.Unlock()
			return wait <= 0
		}
		var wait time.Duration
		var probe bool
		_, again := b.probes[tok]
		switch {
		case h.fleet && (again || b.tokens[tok].granted):
			// the fleet's probe, or a start the fleet granted: it goes
		case h.fleet && now.Before(h.fleetUntil):
			wait = h.fleetUntil.Sub(now)
		case h.fleet && b.pacer.queued(host):
			// ClaimTurn, at the gate, answers for the host's back-off.
			b.mu.Unlock()
			return true
		case h.fleet:
			b.mu.Unlock()
			w, p, _, fleetOK := b.fleetAsk(tok, key)
			if !fleetOK {
				continue // paused locally now
			}
			b.mu.Lock()
			wait, probe = w, p
		default:
			wait, probe, _ = h.st.Ask(now, tok)
		}
		probe = probe && !again
		if probe {
			if b.probes == nil {
				b.probes = make(map[any]string)
			}
			b.probes[tok] = key
		}
		if wait <= 0 && (probe || again) {
			if b.wired == nil {
				b.wired = make(map[any]bool)
			}
			b.wired[tok] = true
		}
		b.mu.Unlock()
		if wait <= 0 && probe {
			b.probesSent.Add(1)
		}
		return wait <= 0
	}
}
