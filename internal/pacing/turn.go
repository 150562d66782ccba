package pacing

// This file is the second half of the wait in the OnRequest hook: a
// host's turn. A booked slot (wait.go) counts from the latest booked
// start, but the gate (gate.go) lets a request go only a delay after the
// previous response's headers, which a slow host sends late. Without the
// turn, a request whose slot came passed the hook and waited at the gate
// for the rest, inside one of Colly's parallelism slots, where it held up
// requests to every other host. With it, the request also waits here,
// before Colly's slots, until the gate would let it go at once: no
// request of this process claims the host, and a delay has passed since
// the latest start, the latest response headers and the latest turn
// given. The turn given is the host's until its request reaches the gate,
// or for one delay at most: Colly says nothing of a request aborted by a
// later OnRequest callback, and an aborted request then costs its host one
// delay, as its booked slot did before.

import (
	"context"
	"time"
)

// turn waits until request tok may leave the OnRequest hook for host key
// without waiting at the gate, or ctx ends, and gives it the host's turn
// (hostPace.passAt). It returns at once for a host not paced (locally).
// slot is the start the request booked and has waited for: the clock
// reads no earlier (a clock read a little early, or a test's, that a
// sleep does not move, would otherwise hold back a request whose slot
// came exactly a delay after the previous turn).
func (pc *Pacer) turn(ctx context.Context, key string, tok any, slot time.Time) error {
	var waited *hostPace // the pace whose waiters count this request
	defer func() {
		if waited != nil {
			waited.waiting.Add(-1)
		}
	}()
	for {
		pc.mu.Lock()
		h := pc.hosts[key]
		if h == nil && len(pc.tombs) > 0 {
			h = pc.reviveLocked(key) // dropped since it was booked (tomb.go)
		}
		if h == nil {
			pc.mu.Unlock()
			return ctx.Err()
		}
		if waited != h {
			h.waiting.Add(1) // counted, so that Forget keeps the pace (settled)
			if waited != nil {
				waited.waiting.Add(-1)
			}
			waited = h
		}
		now := later(pc.now(), slot)
		if h.busy && h.claimant != tok && now.Sub(h.claimedAt) < maxClaim {
			if h.idle == nil {
				h.idle = make(chan struct{})
			}
			idle, left := h.idle, maxClaim-now.Sub(h.claimedAt)
			pc.mu.Unlock()
			if err := waitIdle(ctx, idle, left); err != nil {
				return err
			}
			continue
		}
		delay := h.delay * pc.localFactor(key)
		start := later(now, h.lastStart.Add(delay), h.doneAt.Add(delay), h.passAt.Add(delay))
		if !start.After(now) {
			h.passAt = now
			pc.giveTurnLocked(tok, h, now)
			pc.mu.Unlock()
			return ctx.Err()
		}
		pc.mu.Unlock()
		if err := pc.sleep(ctx, start.Sub(now)); err != nil {
			return err
		}
	}
}

// turnsSweepAt is how many turns given and not yet seen at the gate make
// the Pacer drop those older than maxClaim: requests aborted by a later
// OnRequest callback, which never reach the gate.
const turnsSweepAt = 1024

// turnGiven is a turn a request was given and has not yet used.
type turnGiven struct {
	h  *hostPace
	at time.Time
}

// giveTurnLocked records that request tok was given h's turn at now, so
// that h is not dropped (settled) before tok reaches the gate, however
// long it waits for a Colly slot. A nil tok (a redirect hop) is not
// recorded. pc.mu must be held.
func (pc *Pacer) giveTurnLocked(tok any, h *hostPace, now time.Time) {
	if tok == nil {
		return
	}
	if len(pc.turns) >= turnsSweepAt {
		for t, g := range pc.turns {
			if now.Sub(g.at) >= maxClaim {
				pc.usedTurnLocked(t)
			}
		}
	}
	pc.usedTurnLocked(tok)
	pc.turns[tok] = turnGiven{h: h, at: now}
	h.turnsOut++
}

// usedTurnLocked forgets request tok's turn: it reached the gate, or
// ended. pc.mu must be held.
func (pc *Pacer) usedTurnLocked(tok any) {
	if g, ok := pc.turns[tok]; ok {
		g.h.turnsOut--
		delete(pc.turns, tok)
	}
}

// settled reports whether h has nothing left to keep at now: no request
// claims it or waits for it, none given a turn has reached the gate yet,
// and a delay has passed since its latest start, response headers, turn
// and booked slot. Only then may its pace
// be dropped: a request of a host dropped earlier would find no pace at
// the gate and go at once, however recently the previous one went.
// pc.mu must be held.
func (pc *Pacer) settled(h *hostPace, now time.Time) bool {
	if h.busy || h.waiting.Load() > 0 || h.turnsOut > 0 {
		return false
	}
	last := later(h.lastStart, h.doneAt, h.passAt, pc.at(h.latest.Load()))
	return !now.Before(last.Add(h.delay * pc.localFactor(h.key)))
}
