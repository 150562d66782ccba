package pacing

// This file is how long a host's turn (turn.go) stays its request's while
// the request has not reached the gate. Colly says nothing of a request
// that a later OnRequest callback aborts, so a turn cannot simply be held
// until its request comes; nor may it lapse while its request waits for
// one of Colly's slots, or the host's next request would leave the hook
// too and whichever reached the gate second would wait there, inside a
// slot. Colly hands its slots out in the order requests ask for them, so
// requests that left the hook after the turn's and reached the gate
// before it say that it is not waiting for a slot: it was aborted. The
// root counts the requests leaving the hook for the wire (Left) and
// those reaching the gate (Arrived), paced or not. Otherwise a turn is
// held for a delay, or twice the recent wait for a slot, while the slots
// look free, and while they look saturated (as many requests in flight
// as ever were) until such a sign, or maxClaim.

import (
	"math"
	"time"
)

const (
	// overtakeMargin is how many requests that left the hook after a
	// turn's must reach the gate before it to say that its request was
	// aborted: requests leaving at about the same time may ask for a slot
	// in another order (the OnRequest callbacks after the hook run in
	// between).
	overtakeMargin = 4
	// satMargin is how long the slots still look saturated after the
	// requests in flight fell below their peak: a slot freed is taken
	// again at once while requests queue for one.
	satMargin = 100 * time.Millisecond
	// slotWaitHalfLife is how fast the recent wait for a slot is
	// forgotten: a crawl whose slots are free again holds turns for a
	// delay again within seconds.
	slotWaitHalfLife = time.Second
)

// heldLocked returns how much longer h's turn stays the request's it was
// given to, for request tok at now, h at delay (0: not held, or tok's
// own). It is held a delay at least; then until more than overtakeMargin
// requests that left the hook after it have reached the gate (its
// request was aborted), and meanwhile for twice the recent wait for a
// slot (slotWaitLocked) while the slots look free, or for as long as they
// look saturated (saturatedLocked); never for maxClaim or more. pc.mu
// must be held.
func (pc *Pacer) heldLocked(h *hostPace, tok any, delay time.Duration, now time.Time) time.Duration {
	if h.turnTok == nil || h.turnTok == tok {
		return 0
	}
	age := now.Sub(h.passAt)
	switch {
	case age >= maxClaim:
		return 0
	case age < delay:
		return delay - age
	case pc.arrived.Load() > h.turnSeq+overtakeMargin:
		return 0 // requests that left after it came first: it was aborted
	case pc.saturatedLocked(now):
		return maxClaim - age
	}
	return max(2*pc.slotWaitLocked(now)-age, 0)
}

// saturatedLocked reports whether Colly's slots look all busy at now: as
// many requests are between the gate and their answer (Pacer.reqs) as
// ever were, or were within satMargin. pc.mu must be held.
func (pc *Pacer) saturatedLocked(now time.Time) bool {
	return pc.peakInFlight > 0 && (len(pc.reqs) >= pc.peakInFlight || now.Sub(pc.fullAt) < satMargin)
}

// inFlightLocked notes a request added to Pacer.reqs (gate.go), and
// leavingLocked one about to leave it, for saturatedLocked. pc.mu must
// be held.
func (pc *Pacer) inFlightLocked() {
	pc.peakInFlight = max(pc.peakInFlight, len(pc.reqs))
}

func (pc *Pacer) leavingLocked() {
	if len(pc.reqs) >= pc.peakInFlight {
		pc.fullAt = pc.now()
	}
}

// slotWaitLocked is the recent wait for a slot at now: the longest time
// a turn took from the hook to the gate, halved every slotWaitHalfLife
// since. pc.mu must be held.
func (pc *Pacer) slotWaitLocked(now time.Time) time.Duration {
	age := now.Sub(pc.slotWaitAt)
	if pc.slotWait <= 0 || age <= 0 {
		return max(pc.slotWait, 0)
	}
	return time.Duration(float64(pc.slotWait) * math.Exp2(-float64(age)/float64(slotWaitHalfLife)))
}

// reachedGateLocked records that request tok reached host h's gate at
// now. When tok holds h's turn, the turn is used: the time it took from
// the turn (the hook) to the gate, a wait for one of Colly's slots,
// feeds the recent wait, and requests waiting for the turn are woken. pc.mu must
// be held.
func (pc *Pacer) reachedGateLocked(h *hostPace, tok any, now time.Time) {
	if tok == nil || h.turnTok != tok {
		return
	}
	h.turnTok = nil
	pc.slotWait, pc.slotWaitAt = max(now.Sub(h.passAt), pc.slotWaitLocked(now)), now
	if h.idle != nil && !h.busy {
		close(h.idle)
		h.idle = nil
	}
}

// Left counts a request leaving the OnRequest hook for the wire (not one
// served locally), and Arrived one reaching the OnRequestHeaders hook:
// heldLocked compares the two. Both are one atomic add.
func (pc *Pacer) Left() { pc.left.Add(1) }

// Arrived: see Left.
func (pc *Pacer) Arrived() { pc.arrived.Add(1) }
