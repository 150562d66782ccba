package pacing

// This file books a paced host's next start without the Pacer's lock: a
// host's latest booked start is one atomic word, an instant, and a
// booking moves it on with a compare-and-swap. The lock is taken only to
// find a host's pace when the latest booking was for another host, so a
// paced request takes it at most once in the OnRequest hook, and not at
// all in a run of requests to one host. The gate (gate.go) and the rest
// keep Pacer.mu as before; they raise the instant, never lower it, but
// for Unbook, which gives the booked slots back.

import "time"

// instant returns t as an offset from the Pacer's epoch, on its clock:
// the form of hostPace.latest.
func (pc *Pacer) instant(t time.Time) int64 { return int64(t.Sub(pc.epoch)) }

// at returns the time of the instant n.
func (pc *Pacer) at(n int64) time.Time { return pc.epoch.Add(time.Duration(n)) }

// nowInstant reads the Pacer's clock as an instant. On the real clock it
// reads the monotonic clock alone (time.Since), about half of what
// time.Now costs, which also reads the wall clock.
func (pc *Pacer) nowInstant() int64 {
	if pc.realClock {
		return int64(time.Since(pc.epoch))
	}
	return pc.instant(pc.now())
}

// lookup returns host's pace (nil: not paced). The pace the latest lookup
// found is served without the lock when host is its key as given (a
// lower-case name, no trailing dot: the usual form); otherwise it is
// found under Pacer.mu, and becomes the one served next.
func (pc *Pacer) lookup(host string) *hostPace {
	if h := pc.last.Load(); h != nil && h.key == host {
		return h
	}
	pc.mu.Lock()
	key := HostKey(host)
	h := pc.hosts[key]
	if h == nil && len(pc.tombs) > 0 {
		h = pc.reviveLocked(key) // tomb.go
	}
	if h != nil {
		pc.last.Store(h) // under mu, so that drop cannot miss it
	}
	pc.mu.Unlock()
	return h
}

// book books h's next start, gap after the latest one and no earlier
// than now (instants both), and returns the wait for it. With waits, a
// request that must wait is counted among h's waiters.
func (h *hostPace) book(now int64, gap time.Duration, waits bool) time.Duration {
	for {
		old := h.latest.Load()
		start := max(now, old+int64(gap))
		if h.latest.CompareAndSwap(old, start) {
			if waits && start > now {
				h.waiting.Add(1)
			}
			return time.Duration(start - now)
		}
	}
}

// raise moves h's latest start on to n, if n is later.
func (h *hostPace) raise(n int64) {
	for {
		old := h.latest.Load()
		if n <= old || h.latest.CompareAndSwap(old, n) {
			return
		}
	}
}

// started records that a request to h passed the gate (or a paced fetch
// went) at now: the latest start, and the latest slot when no later one
// is booked. Pacer.mu must be held.
func (pc *Pacer) started(h *hostPace, now time.Time) {
	h.lastStart = now
	h.raise(pc.instant(now))
}
