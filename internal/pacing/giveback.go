package pacing

// This file keeps a fleet's paced request out of Colly's LimitRule slots
// while its host is taken. With a working Starter, Wait asks the Backend
// for a start before the slot (fleet.go), and the gate confirms it right
// before the wire. Between the two the request waits for a slot, and
// meanwhile the host may have been taken: the grant ran out (a Queuer's
// step, a Starter's delay) and another request of the fleet started, or
// one of this process claims the host. The gate would then wait, inside
// the slot, for that request's answer and the delay after it. Instead,
// a request the Backend granted its start gives its turn back: the gate
// returns ErrTurnTaken without claiming anything, and the caller sends the
// request again to wait in the OnRequest hook (or, when it cannot, calls
// the gate again, which then waits as before: a request gives its turn
// back once). Wait first waits, outside the slot, until no request of this
// process claims the host and the delay has passed since its latest start
// and answer here, so that a Backend that has forgotten a claim (WireClaim
// ran out under a slow answer) cannot grant a turn the gate would refuse.

import (
	"context"
	"errors"
	"time"
)

// ErrTurnTaken is returned by Gate when the request was granted its start
// in Wait and its host has been taken since, while it waited for its
// LimitRule slot: the caller sends it again, to wait in the OnRequest
// hook, outside the slot, or calls Gate again, which then waits.
var ErrTurnTaken = errors.New("robotsext: the host's turn was taken while the request waited for its slot")

// maxGiveBacks is how many turns in a row a host's requests may give
// back at the gate before the next one waits there instead: a Backend
// that grants starts its Claim then refuses cannot send requests round
// for ever.
const maxGiveBacks = 8

// mayGiveBackLocked reports whether request tok, which would wait at the
// gate of host h, gives its turn back instead: the host is paced by the
// fleet, tok was granted its start in Wait, and h's requests have not
// given back maxGiveBacks turns in a row. It forgets tok's grant, so that
// tok gives back once. pc.mu must be held.
func (pc *Pacer) mayGiveBackLocked(ctx context.Context, h *hostPace, tok any) bool {
	if _, ok := pc.grants[tok]; !ok || tok == nil || ctx.Err() != nil || h.givenBack >= maxGiveBacks || !pc.shared(h.key) {
		return false
	}
	delete(pc.grants, tok)
	h.givenBack++
	return true
}

// giveBack undoes request tok's claim on host key, which the Backend has
// just refused (confirm): the host's latest start here is prev again, and
// a request waiting for the claim is woken. The claim's end is not an
// answer: the host's latest answer stays.
func (pc *Pacer) giveBack(key string, tok any, prev time.Time) {
	pc.mu.Lock()
	if h := pc.hosts[key]; h != nil && h.busy && h.claimant == tok {
		delete(pc.claims, tok)
		h.busy, h.claimant, h.lastStart = false, nil, prev
		h.givenBack++
		if h.idle != nil {
			close(h.idle)
			h.idle = nil
		}
	}
	pc.mu.Unlock()
	pc.doneToken(tok)
}

// localFree waits until no request of this process claims host key and
// the host's delay has passed since its latest start and answer here,
// or ctx ends: what the gate checks before it asks the Backend.
func (pc *Pacer) localFree(ctx context.Context, key string) error {
	for {
		idle, wait, ok := pc.localHold(key)
		var err error
		switch {
		case !ok:
			return ctx.Err()
		case idle != nil:
			err = waitIdle(ctx, idle, wait)
		case wait > 0:
			err = pc.sleep(ctx, wait)
		default:
			return ctx.Err()
		}
		if err != nil {
			return err
		}
	}
}

// localHold returns what holds host key back here now: a request's
// claim (idle is closed when it ends, waited for wait at most), or the
// delay after the host's latest start and answer (wait, 0 when it has
// passed); ok is false when the host is not paced.
func (pc *Pacer) localHold(key string) (idle <-chan struct{}, wait time.Duration, ok bool) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	h := pc.hosts[key]
	if h == nil {
		return nil, 0, false
	}
	now := pc.now()
	if age := now.Sub(h.claimedAt); h.busy && age < maxClaim {
		return h.idleLocked(), maxClaim - age, true
	}
	return nil, later(now, h.lastStart.Add(h.delay), h.doneAt.Add(h.delay)).Sub(now), true
}

// givingBack reports whether host key's requests may still give their
// turn back (maxGiveBacks).
func (pc *Pacer) givingBack(key string) bool {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	h := pc.hosts[key]
	return h != nil && h.givenBack < maxGiveBacks
}
