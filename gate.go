package robotsext

// This file holds each paced host's delay at the wire, where the server
// sees it. The OnRequest hook books slots early (delay.go); the gate, run
// from Colly's OnRequestHeaders hook right before Client.Do, decides when
// a request may really go: at most one request per paced host is between
// the gate and its response headers (the host's hold), and the next one
// passes no earlier than the delay after those headers were seen.
//
// Why response headers: a request reaches the server before its response
// headers come back, so if request k+1 passes the gate at least delay
// after k's headers were seen, it reaches the server at least delay after
// k did, however late Go's transport goroutines run under CPU load. Gating
// on start times alone cannot promise that, because the time from the gate
// to the wire (dialling, scheduling) is not visible to a Colly hook.

import (
	"context"
	"net/url"
	"time"
)

// maxHold bounds how long one request may hold a host: a hold older than
// this (a request whose end the Extension never saw) no longer blocks the
// next. Colly's request timeout (10 s by default) ends requests far sooner.
const maxHold = 2 * time.Minute

// gateMargin widens the spacing of slots booked in a shared Backend, where
// workers cannot see each other's responses: 5% of the delay, at most
// 10 ms, for the time between a worker's gate and the wire.
func gateMargin(delay time.Duration) time.Duration {
	return min(delay/20, 10*time.Millisecond)
}

// gate blocks until the request tok (with URL u, for redirect hops) may go
// on the wire to host, then takes the host's hold for it. It waits while
// another request of this process holds the host, then until delay has
// passed since the latest response headers and since the latest start;
// with a Backend it then books the fleet's next slot and waits for it,
// holding the host. It returns at once for hosts without a delay, and with
// ctx's error when ctx ends first.
func (pc *pacer) gate(ctx context.Context, host string, tok any, u *url.URL) error {
	if pc.npaced.Load() == 0 {
		return nil
	}
	key := hostKey(host)
	for {
		pc.mu.Lock()
		h := pc.hosts[key]
		if h == nil {
			// Not paced, but a redirect hop of this request may lead
			// into a paced host: remember it under its first URL.
			pc.trackLocked(tok, u)
			pc.mu.Unlock()
			return nil
		}
		now := pc.now()
		if h.busy && h.holder != tok {
			held := now.Sub(h.heldAt)
			if held < maxHold {
				if h.idle == nil {
					h.idle = make(chan struct{})
				}
				idle := h.idle
				pc.mu.Unlock()
				if err := waitIdle(ctx, idle, maxHold-held); err != nil {
					return err
				}
				continue
			}
			pc.releaseLocked(h, now) // its end was never seen
		}
		delay := h.delay * pc.localFactor()
		start := later(now, h.lastStart.Add(delay), h.doneAt.Add(delay))
		if start.After(now) {
			pc.mu.Unlock()
			if err := pc.sleep(ctx, start.Sub(now)); err != nil {
				return err
			}
			continue
		}
		prev := h.lastStart
		h.busy, h.holder, h.heldAt = true, tok, now
		h.lastStart, h.latest = now, later(h.latest, now)
		pc.holds[tok] = key
		pc.trackLocked(tok, u)
		delay = h.delay
		pc.mu.Unlock()
		if pc.shared() {
			// Confirm the start the Backend granted in the OnRequest
			// hook (or ask for one), holding the host.
			if err := pc.confirm(ctx, key, tok, delay, prev); err != nil {
				pc.doneToken(tok)
				return err
			}
			pc.restamp(key, tok)
			return nil
		}
		// With a backend, this process is ready: book the fleet's slot
		// now, holding the host, and go when it comes.
		if w, ok := pc.bookShared(ctx, host, delay); ok && w > 0 {
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
// holds it: the request waited at the gate and starts only now.
func (pc *pacer) restamp(key string, tok any) {
	pc.mu.Lock()
	if h := pc.hosts[key]; h != nil && h.holder == tok {
		now := pc.now()
		h.lastStart, h.latest = now, later(h.latest, now)
	}
	pc.mu.Unlock()
}

// waitIdle waits for idle to close, for d, or for ctx to end.
func waitIdle(ctx context.Context, idle <-chan struct{}, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// trackLocked remembers request tok under its first URL u, so that a
// redirect hop of it (whose via[0] has that URL) is known as tok. pc.mu
// must be held.
func (pc *pacer) trackLocked(tok any, u *url.URL) {
	if u == nil {
		return
	}
	if _, ok := pc.reqs[tok]; !ok {
		pc.reqs[tok] = u
		pc.byURL[u] = tok
		pc.ntracked.Store(int64(len(pc.reqs)))
	}
}

// tokenOf returns the token of the request whose first URL is u, or u
// itself when the request was not seen.
func (pc *pacer) tokenOf(u *url.URL) any {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if tok, ok := pc.byURL[u]; ok {
		return tok
	}
	return u
}

// done records that a response (its headers) came from host: the host's
// hold, if any, is released.
func (pc *pacer) done(host string) {
	if pc.npaced.Load() == 0 {
		return
	}
	pc.mu.Lock()
	if h := pc.hosts[hostKey(host)]; h != nil && h.busy {
		pc.releaseLocked(h, pc.now())
	}
	pc.mu.Unlock()
}

// doneToken records that request tok ended (its response headers came, or
// it failed): the hold it has, on whatever host, is released, and it is
// forgotten. It returns the fleet-wide hold tok had, for ended.
func (pc *pacer) doneToken(tok any) (f grant, flying bool) {
	if pc.npaced.Load() == 0 && pc.ntracked.Load() == 0 {
		return grant{}, false
	}
	pc.mu.Lock()
	delete(pc.grants, tok)
	if f, flying = pc.flights[tok]; flying {
		delete(pc.flights, tok)
	}
	if key, ok := pc.holds[tok]; ok {
		if h := pc.hosts[key]; h != nil && h.busy && h.holder == tok {
			pc.releaseLocked(h, pc.now())
		}
		delete(pc.holds, tok)
	}
	if u, ok := pc.reqs[tok]; ok {
		delete(pc.reqs, tok)
		if pc.byURL[u] == tok {
			delete(pc.byURL, u)
		}
		pc.ntracked.Store(int64(len(pc.reqs)))
	}
	pc.mu.Unlock()
	return f, flying
}

// releaseLocked ends h's hold at now; the holder stays tracked until
// doneToken. pc.mu must be held.
func (pc *pacer) releaseLocked(h *hostPace, now time.Time) {
	delete(pc.holds, h.holder)
	h.busy, h.holder = false, nil
	h.doneAt = later(h.doneAt, now)
	if h.idle != nil {
		close(h.idle)
		h.idle = nil
	}
}

// drop removes host key's pace, waking any request waiting for its hold.
// pc.mu must be held.
func (pc *pacer) drop(key string) {
	if h := pc.hosts[key]; h != nil && h.busy {
		pc.releaseLocked(h, pc.now())
	}
	delete(pc.hosts, key)
	delete(pc.unreleased, key)
}
