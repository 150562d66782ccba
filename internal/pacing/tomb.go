package pacing

// This file keeps, for a while, the pace of a host that Forget dropped.
// Forget runs when the robots.txt cache evicts the host's last origin; a
// request that found the origin cached just before may reach Wait only
// after, and would find no pace: with another such request beside it,
// both went at once. Such a request revives the pace from its tomb (as
// settled when it was dropped: its latest start at least a delay ago), so
// that it is paced as before; the revived pace is marked forgotten, and a
// later sweep drops it once settled, unless the host's robots.txt is
// loaded again meanwhile (which removes the tomb).

import "time"

// tombsSweepAt is how many tombs make the Pacer drop those older than
// maxClaim, which no request still past the cache can need.
const tombsSweepAt = 1024

// tomb is what a dropped pace leaves.
type tomb struct {
	delay     time.Duration
	byDefault bool
	last      time.Time // its latest start, answer, turn or booked slot
	at        time.Time // when it was dropped
}

// bury keeps h's pace as a tomb, dropped at now. pc.mu must be held.
func (pc *Pacer) bury(h *hostPace, now time.Time) {
	if len(pc.tombs) >= tombsSweepAt {
		for k, t := range pc.tombs {
			if now.Sub(t.at) >= maxClaim {
				delete(pc.tombs, k)
			}
		}
	}
	last := later(h.lastStart, h.doneAt, h.passAt, pc.at(h.latest.Load()))
	pc.tombs[h.key] = tomb{delay: h.delay, byDefault: h.byDefault, last: last, at: now}
}

// reviveLocked brings back host key's pace from its tomb, if it has one
// younger than maxClaim, and returns it (nil otherwise). pc.mu must be
// held.
func (pc *Pacer) reviveLocked(key string) *hostPace {
	t, ok := pc.tombs[key]
	if !ok {
		return nil
	}
	delete(pc.tombs, key)
	now := pc.now()
	if now.Sub(t.at) >= maxClaim {
		return nil
	}
	h := &hostPace{key: key, delay: t.delay, byDefault: t.byDefault, lastStart: t.last, doneAt: t.last,
		loadedAt: now, forgotten: true, acq: make(chan struct{}, 1)}
	h.latest.Store(pc.instant(t.last))
	h.pace.Store(int64(t.delay))
	pc.hosts[key] = h
	pc.doomed++
	pc.npaced.Store(int64(len(pc.hosts)))
	return h
}
