package pacing

// This file keeps each paced host's delay at the wire, where the server
// sees it. Wait books slots early (wait.go); the gate, run from Colly's
// OnRequestHeaders hook right before Client.Do, decides when a request
// may really go: at most one request per paced host is between the gate
// and its response headers (it claims the host), and the next one passes
// no earlier than the delay after those headers were seen.
//
// Why response headers: a request reaches the server before its response
// headers come back, so if request k+1 passes the gate at least delay
// after k's headers were seen, it reaches the server at least delay after
// k did, however late Go's transport goroutines run under CPU load. Gating
// on start times alone cannot promise that, because the time from the gate
// to the wire (dialling, scheduling) is not visible to a Colly hook.

import (
	"context"
	"errors"
	"net/url"
	"time"
)

// maxClaim bounds how long one request may claim a host: a claim older than
// this (a request whose end the Extension never saw) no longer blocks the
// next. Colly's request timeout (10 s by default) ends requests far sooner.
const maxClaim = 2 * time.Minute

// gateMargin widens the spacing of slots booked in a shared Backend, where
// workers cannot see each other's responses: 5% of the delay, at most
// 10 ms, for the time between a worker's gate and the wire.
func gateMargin(delay time.Duration) time.Duration {
	return min(delay/20, 10*time.Millisecond)
}

// Gate blocks until the request tok (with first URL u, for redirect hops)
// may go on the wire to host, then claims the host for it. It waits while
// another request of this process claims the host, then until delay has
// passed since the latest response headers and since the latest start;
// with a Backend it then books the fleet's next slot and waits for it,
// keeping its claim. It returns at once for hosts without a delay, with
// ctx's error when ctx ends first, with ErrPaused when a Queuer holds
// the request back for its host's fleet-wide back-off (the caller sends
// it back to wait in Backoff.Admit), and with ErrTurnTaken, once, when
// the request was granted its start in Wait and would now wait here for
// another request (giveback.go).
func (pc *Pacer) Gate(ctx context.Context, host string, tok any, u *url.URL) error {
	if pc.npaced.Load() == 0 {
		return nil
	}
	key := HostKey(host)
	for {
		pc.mu.Lock()
		h := pc.hosts[key]
		if h == nil && len(pc.tombs) > 0 {
			h = pc.reviveLocked(key) // tomb.go
		}
		if h == nil {
			// Not paced, but a redirect hop of this request may lead
			// into a paced host: remember it under its first URL.
			pc.trackLocked(tok, u)
			pc.mu.Unlock()
			return nil
		}
		now := pc.now()
		pc.reachedGateLocked(h, tok, now) // turnhold.go
		if h.busy && h.claimant != tok {
			age := now.Sub(h.claimedAt)
			if age < maxClaim {
				if pc.mayGiveBackLocked(ctx, h, tok) { // giveback.go
					pc.mu.Unlock()
					pc.doneToken(tok)
					return ErrTurnTaken
				}
				idle := h.idleLocked()
				pc.mu.Unlock()
				if err := waitIdle(ctx, idle, maxClaim-age); err != nil {
					return err
				}
				continue
			}
			pc.unclaimLocked(h, now) // its end was never seen
		}
		factor := pc.localFactor(key)
		delay := h.delay * factor
		start := later(now, h.lastStart.Add(delay), h.doneAt.Add(delay))
		if start.After(now) {
			if pc.mayGiveBackLocked(ctx, h, tok) {
				pc.mu.Unlock()
				pc.doneToken(tok)
				return ErrTurnTaken
			}
			pc.mu.Unlock()
			if err := pc.sleep(ctx, start.Sub(now)); err != nil {
				return err
			}
			continue
		}
		prev := h.lastStart
		h.busy, h.claimant, h.claimedAt = true, tok, now
		pc.started(h, now)
		if factor > 1 {
			h.localAt.Store(pc.instant(now)) // paced locally for the fleet
		}
		pc.claims[tok] = key
		pc.trackLocked(tok, u)
		delay = h.delay
		pc.mu.Unlock()
		if pc.shared(key) {
			// Confirm the start the Backend granted in the OnRequest
			// hook (or ask for one), keeping the claim.
			if err := pc.confirm(ctx, key, tok, delay, prev); errors.Is(err, ErrTurnTaken) {
				pc.giveBack(key, tok, prev)
				return err
			} else if err != nil {
				pc.doneToken(tok)
				return err
			}
			pc.restamp(key, tok)
			return nil
		}
		// With a backend, this process is ready: book the fleet's slot
		// now, with its jitter, keeping the claim, and go when it comes.
		if w, ok := pc.bookShared(ctx, host, delay+pc.jitter(delay)); ok && w > 0 {
			if err := pc.sleep(ctx, w); err != nil {
				pc.doneToken(tok)
				return err
			}
			pc.restamp(key, tok)
		}
		return nil
	}
}

// restamp moves host key's latest start to now when request tok still
// claims it: the request waited at the gate and starts only now. The
// host's run of turns given back ends (giveback.go).
func (pc *Pacer) restamp(key string, tok any) {
	pc.mu.Lock()
	if h := pc.hosts[key]; h != nil && h.claimant == tok {
		pc.started(h, pc.now())
		h.givenBack = 0
	}
	pc.mu.Unlock()
}

// trackLocked remembers request tok under its first URL u, so that a
// redirect hop of it (whose via[0] has that URL) is known as tok. pc.mu
// must be held.
func (pc *Pacer) trackLocked(tok any, u *url.URL) {
	if u == nil {
		return
	}
	if _, ok := pc.reqs[tok]; !ok {
		pc.reqs[tok] = u
		pc.byURL[u] = tok
		pc.ntracked.Store(int64(len(pc.reqs)))
		pc.inFlightLocked() // turnhold.go
	}
}

// TokenOf returns the token of the request whose first URL is u, or u
// itself when the request was not seen: a redirect hop is known by its
// chain's first URL.
func (pc *Pacer) TokenOf(u *url.URL) any {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if tok, ok := pc.byURL[u]; ok {
		return tok
	}
	return u
}

// Done records that a response (its headers) came from host: the host's
// claim, if any, ends.
func (pc *Pacer) Done(host string) {
	if pc.npaced.Load() == 0 {
		return
	}
	pc.mu.Lock()
	if h := pc.hosts[HostKey(host)]; h != nil && h.busy {
		pc.unclaimLocked(h, pc.now())
	}
	pc.mu.Unlock()
}

// doneToken records that request tok ended (its response headers came, or
// it failed): its claim, on whatever host, ends, and it is forgotten. It
// returns the fleet-wide claim tok had, for Ended.
func (pc *Pacer) doneToken(tok any) (f grant, fleet bool) {
	if pc.npaced.Load() == 0 && pc.ntracked.Load() == 0 {
		return grant{}, false
	}
	pc.mu.Lock()
	delete(pc.grants, tok)
	if f, fleet = pc.fleetClaims[tok]; fleet {
		delete(pc.fleetClaims, tok)
	}
	if key, ok := pc.claims[tok]; ok {
		if h := pc.hosts[key]; h != nil && h.busy && h.claimant == tok {
			pc.unclaimLocked(h, pc.now())
		}
		delete(pc.claims, tok)
	}
	if u, ok := pc.reqs[tok]; ok {
		pc.leavingLocked() // turnhold.go
		delete(pc.reqs, tok)
		if pc.byURL[u] == tok {
			delete(pc.byURL, u)
		}
		pc.ntracked.Store(int64(len(pc.reqs)))
	}
	pc.mu.Unlock()
	return f, fleet
}

// unclaimLocked ends h's claim at now; the claimant stays tracked until
// doneToken. pc.mu must be held.
func (pc *Pacer) unclaimLocked(h *hostPace, now time.Time) {
	delete(pc.claims, h.claimant)
	h.busy, h.claimant = false, nil
	h.doneAt = later(h.doneAt, now)
	if h.idle != nil {
		close(h.idle)
		h.idle = nil
	}
}

// drop removes host key's pace, waking any request waiting for its claim.
// pc.mu must be held.
func (pc *Pacer) drop(key string) {
	if h := pc.hosts[key]; h != nil && h.busy {
		pc.unclaimLocked(h, pc.now())
	}
	if h := pc.hosts[key]; h != nil {
		pc.last.CompareAndSwap(h, nil) // a booking in flight may still use it, as if booked just before
		h.dropped = true
	}
	delete(pc.hosts, key)
	delete(pc.unclaimLater, key)
}

// idleLocked returns the channel closed when h's claim ends, making it
// for the first request to wait for it. pc.mu must be held.
func (h *hostPace) idleLocked() <-chan struct{} {
	if h.idle == nil {
		h.idle = make(chan struct{})
	}
	return h.idle
}
