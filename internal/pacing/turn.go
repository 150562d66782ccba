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
// given. The turn given is the host's, and no other request of the host
// is given one, until its request reaches the gate or its hold ends
// (turnhold.go): Colly says nothing of a request aborted by a later
// OnRequest callback, and an aborted request then costs its host the hold.

import (
	"context"
	"time"
)

// turn waits until request tok may leave the OnRequest hook for host h
// without waiting at the gate, or ctx ends, gives it the host's turn
// (hostPace.passAt), and returns how long it waited here. slot is the
// start the request booked and has waited for, as the clock read then
// (the hook's reading, moved on by the wait). When the turn is free at
// slot, which it is for most requests, it is given as of slot, with no
// second reading of the clock and one short hold of Pacer.mu: the clock
// has moved on since by no more than a sleep's lateness, and the gate,
// which reads it, still keeps the pace at the wire.
func (pc *Pacer) turn(ctx context.Context, h *hostPace, tok any, slot time.Time) (time.Duration, error) {
	pc.mu.Lock()
	if !h.dropped && pc.freeLocked(h, tok, slot) {
		pc.giveTurnLocked(tok, h, slot)
		pc.mu.Unlock()
		return 0, ctx.Err()
	}
	pc.mu.Unlock()
	t0 := pc.now()
	err := pc.awaitTurn(ctx, h.key, tok, slot)
	return pc.now().Sub(t0), err
}

// freeLocked reports whether h's turn is free for request tok at now: no
// other request of this process claims h, and a delay has passed since
// h's latest start, response headers and turn given. pc.mu must be held.
func (pc *Pacer) freeLocked(h *hostPace, tok any, now time.Time) bool {
	if h.busy && h.claimant != tok && now.Sub(h.claimedAt) < maxClaim {
		return false
	}
	delay := h.delay * pc.localFactor(h.key)
	if pc.heldLocked(h, tok, delay, now) > 0 {
		return false // the turn is out, its request on its way to a slot
	}
	return !later(h.lastStart, h.doneAt, h.passAt).Add(delay).After(now)
}

// awaitTurn is turn's wait for a turn not free at once: it looks host
// key's pace up afresh (it may have been dropped and loaded again, or
// revived, since it was booked), and waits, counted among its waiters,
// for the claim to end and the delay to pass. It returns at once for a
// host no longer paced. The clock reads no earlier than slot (a clock
// read a little early, or a test's, that a sleep does not move, would
// otherwise hold back a request whose slot came exactly a delay after
// the previous turn).
func (pc *Pacer) awaitTurn(ctx context.Context, key string, tok any, slot time.Time) error {
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
			idle, left := h.idleLocked(), maxClaim-now.Sub(h.claimedAt)
			pc.mu.Unlock()
			if err := waitIdle(ctx, idle, left); err != nil {
				return err
			}
			continue
		}
		delay := h.delay * pc.localFactor(key)
		start := later(now, h.lastStart.Add(delay), h.doneAt.Add(delay), h.passAt.Add(delay))
		if start.After(now) {
			pc.mu.Unlock()
			if err := pc.sleep(ctx, start.Sub(now)); err != nil {
				return err
			}
			continue
		}
		if left := pc.heldLocked(h, tok, delay, now); left > 0 {
			// The turn is out, longer than a delay: woken when its
			// request reaches the gate (reachedGateLocked), else looked
			// at again after a quarter of a delay (10 ms at least).
			idle := h.idleLocked()
			pc.mu.Unlock()
			if err := pc.sleepOrIdle(ctx, idle, min(left, max(delay/4, 10*time.Millisecond))); err != nil {
				return err
			}
			continue
		}
		pc.giveTurnLocked(tok, h, now)
		pc.mu.Unlock()
		return ctx.Err()
	}
}

// sleepOrIdle waits d, or until idle is closed, or ctx ends. On a clock
// other than the real one (a test's, whose sleep moves it), it sleeps d
// unless idle is closed already.
func (pc *Pacer) sleepOrIdle(ctx context.Context, idle <-chan struct{}, d time.Duration) error {
	if pc.realClock {
		return waitIdle(ctx, idle, d)
	}
	select {
	case <-idle:
		return ctx.Err()
	default:
		return pc.sleep(ctx, d)
	}
}

// giveTurnLocked gives request tok h's turn at now. The host keeps the
// turn's request (turnTok) until it reaches the gate, or for the hold
// (heldLocked), and gives no other request the turn meanwhile; it is not
// dropped (settled) either, however long the request waits for a Colly
// slot, up to maxClaim. A nil tok (a redirect hop) is not kept. pc.mu
// must be held.
func (pc *Pacer) giveTurnLocked(tok any, h *hostPace, now time.Time) {
	h.passAt = now
	if tok != nil {
		h.turnTok, h.turnSeq = tok, pc.left.Load()
	}
}

// settled reports whether h has nothing left to keep at now: no request
// claims it or waits for it, the request given its latest turn has
// reached the gate (or had it maxClaim), and a delay has passed since its
// latest start, response headers, turn and booked slot. Only then may its
// pace be dropped: a request of a host dropped earlier would find no pace
// at the gate and go at once, however recently the previous one went.
// pc.mu must be held.
func (pc *Pacer) settled(h *hostPace, now time.Time) bool {
	if h.busy || h.waiting.Load() > 0 || (h.turnTok != nil && now.Sub(h.passAt) < maxClaim) {
		return false
	}
	last := later(h.lastStart, h.doneAt, h.passAt, pc.at(h.latest.Load()))
	return !now.Before(last.Add(h.delay * pc.localFactor(h.key)))
}
