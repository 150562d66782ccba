package pacing

// This file is the first stage of the pace: the wait, in the OnRequest
// hook, for a request's slot at its host.

import (
	"context"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// Wait blocks until a page request to host may be sent, or ctx is done,
// and returns ctx's error then: until its booked slot, then for its
// host's turn (turn.go), so that the gate lets it go at once. It is called from the OnRequest hook for
// the request tok, which will go out, and for a redirect hop with a nil
// tok. While no host has a delay it costs one atomic load. With a Backend
// that is a Starter, the request asks it for a start here, before
// Colly's parallelism slots, and confirms it at the gate (fleet.go). With
// a Queuer, Wait returns ErrPaused when the Backend holds the request
// back for its host's fleet-wide back-off: the caller waits in
// Backoff.Admit, then calls Wait again (queue.go). A
// slot given up because ctx ended is not handed back: the crawl is being
// cancelled, and a host paced too slowly is never impolite.
func (pc *Pacer) Wait(ctx context.Context, host string, tok any) error {
	if pc.npaced.Load() == 0 {
		return ctx.Err() // nothing is paced: no lock, no clock
	}
	return pc.wait(ctx, host, tok, pc.nowInstant)
}

// WaitAt is Wait for a caller that has read the Pacer's clock already and
// waited for nothing since: now is that reading, as an offset from
// Config.Epoch, and a slot booked here counts from it. It saves the
// OnRequest hook a second reading of the clock.
func (pc *Pacer) WaitAt(ctx context.Context, host string, tok any, now time.Duration) error {
	if pc.npaced.Load() == 0 {
		return ctx.Err()
	}
	return pc.wait(ctx, host, tok, func() int64 { return int64(now) })
}

// wait is Wait once some host has a delay, with the clock read by now as
// an instant when a slot is booked here.
func (pc *Pacer) wait(ctx context.Context, host string, tok any, now func() int64) error {
	if pc.starter != nil && pc.shared(HostKey(host)) { // the host's key only for a fleet
		t0 := pc.now()
		paced, err := pc.acquire(ctx, host, tok)
		if paced && err == nil && pc.observe != nil {
			pc.observe(pc.now().Sub(t0))
		}
		return err
	}
	var n int64 // the instant the slot was booked as of
	d, h := pc.book(host, func() int64 { n = now(); return n })
	if h == nil {
		return ctx.Err() // not paced here (or booked at the gate)
	}
	if d > 0 {
		err := pc.sleep(ctx, d)
		h.waiting.Add(-1) // book counted the request among the host's waiters
		if err != nil {
			return err
		}
	}
	w, err := pc.turn(ctx, h, tok, pc.at(n+int64(d))) // turn.go: what the gate would wait for, before Colly's slots
	if pc.observe != nil {
		pc.observe(d + w)
	}
	return err
}

// reserve gives the next request to host a start slot as of now and returns
// how long it must wait for it (0: go at once). A host without a delay is
// not paced.
func (pc *Pacer) reserve(host string, now time.Time) time.Duration {
	d, _ := pc.reserveSlot(host, func() int64 { return pc.instant(now) }, 1, false)
	return d
}

// reserveLocal books a local slot, the delay multiplied by factor plus
// its jitter after the latest one, and returns the wait and whether the
// host is paced. The clock is read only for paced hosts, which keeps
// hosts without a delay off it.
func (pc *Pacer) reserveLocal(host string, clock func() time.Time, factor int) (time.Duration, bool) {
	d, h := pc.reserveSlot(host, func() int64 { return pc.instant(clock()) }, factor, false)
	return d, h != nil
}

// reserveSlot is reserveLocal, with the clock read as an instant; it
// returns the host's pace, nil when the host is not paced. With waits, a
// request that must wait is also counted among the host's waiters, and
// the caller takes it off (hostPace.waiting) when its wait ends. It takes
// Pacer.mu at most once, to find the host's pace when the latest lookup
// was for another host (see lookup and book.go).
func (pc *Pacer) reserveSlot(host string, now func() int64, factor int, waits bool) (time.Duration, *hostPace) {
	h := pc.lookup(host)
	if h == nil {
		return 0, nil
	}
	n := now()
	delay := time.Duration(h.pace.Load()) * time.Duration(max(factor, 1))
	if factor > 1 {
		h.localAt.Store(n) // paced locally for the fleet
	}
	return h.book(n, delay+pc.jitter(delay), waits), h
}

// Unbook gives back the slots booked ahead for host: the host was just
// paused (the back-off), and the requests that booked them wait for the
// pause and book again, or are sent again and book anew. Without it the
// first request after the pause would wait behind every slot booked
// before it. The pace counts from the latest start again; the gate still
// keeps the delay between starts at the wire.
func (pc *Pacer) Unbook(host string) {
	if pc.npaced.Load() == 0 {
		return
	}
	pc.mu.Lock()
	if h := pc.hosts[HostKey(host)]; h != nil {
		h.latest.Store(pc.instant(h.lastStart))
	}
	pc.mu.Unlock()
}

// book reserves the next slot for host, the clock read by now, and returns the wait and the
// host's pace (nil: not paced here); a request that must wait is counted
// among the host's waiters (see reserveSlot).
// With a working Backend the hook books nothing: the fleet's slot is
// booked at the gate, once this process is ready to send (see gate.go).
// While the Backend fails, slots are booked locally at the delay times
// the fleet size.
func (pc *Pacer) book(host string, now func() int64) (time.Duration, *hostPace) {
	factor := 1
	if pc.backend != nil {
		if up(pc.health, HostKey(host)) {
			return 0, nil // booked at the gate
		}
		factor = pc.fleetSize()
	}
	return pc.reserveSlot(host, now, factor, true)
}

// localFactor is what host key's local delay is multiplied by: the fleet
// size while a Backend is configured but failing for the host, else 1.
func (pc *Pacer) localFactor(key string) time.Duration {
	if pc.backend != nil && !up(pc.health, key) {
		return time.Duration(pc.fleetSize())
	}
	return 1
}

// fleetSize is the number of workers sharing the Backend as it last said,
// at least 1.
func (pc *Pacer) fleetSize() int {
	if fs, ok := pc.backend.(backend.FleetSizer); ok && fs != nil {
		return max(fs.FleetSize(), 1)
	}
	return 1
}

// HopWait is what a redirect hop to host must wait for its slot and its
// turn (turn.go), without booking them: 0 for hosts without a delay. With a Backend it is an upper
// bound (the local view plus one delay for the rest of the fleet).
func (pc *Pacer) HopWait(host string) time.Duration {
	if pc.npaced.Load() == 0 {
		return 0
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	h := pc.hosts[HostKey(host)]
	if h == nil {
		return 0
	}
	now := pc.now()
	w := later(now, pc.at(h.latest.Load()).Add(h.delay), h.lastStart.Add(h.delay), h.doneAt.Add(h.delay), h.passAt.Add(h.delay)).Sub(now)
	if pc.backend != nil {
		w = max(w, h.delay)
	}
	return w
}
