package backend

// This file is Memory's Queuer: each host's queue of tickets, kept in its
// pace, and the host's back-off read in the same step.

import (
	"context"
	"time"

	"github.com/robotsext/robotsext/internal/pause"
)

var _ Queuer = (*Memory)(nil)

// minQueueWait is the shortest wait Queue returns when it grants nothing.
const minQueueWait = time.Millisecond

// Queue implements Queuer.
func (m *Memory) Queue(ctx context.Context, host, token string, ticket int64, delay, ttl time.Duration) (Turn, error) {
	if err := ctx.Err(); err != nil {
		return Turn{}, err
	}
	delay, ttl = max(delay, 0), max(ttl, 0)
	now := m.lock()
	defer m.mu.Unlock()
	var t Turn
	p, known := m.paces[host]
	if known && (p.latest.After(now.Add(futureSlack)) || p.unclaimed.After(now.Add(futureSlack))) {
		// Broken times; the queue's numbers are kept, they cannot stall
		// anybody.
		p = memoryPace{issued: p.issued, served: p.served, queueTill: p.queueTill}
		known, t.Repaired = false, true
	}
	if p.claimedBy != "" && p.claimTill.After(now.Add(ttl+futureSlack)) {
		// A claim no caller could have made: dropped, as Claim drops it.
		p.claimedBy, p.claimTill, t.Repaired = "", time.Time{}, true
		m.keepPace(host, p, now)
	}
	step := delay + min(p.svc, delay)
	// ready is when the host became (or becomes) free for the next start;
	// the zero time when nothing holds it back.
	var ready time.Time
	blocked := false // another token probes the host
	s := m.pauseOf(host, now)
	if s != nil {
		switch {
		case s.Phase == pause.Paused && now.Before(s.Until):
			p.served = p.issued // the queue is emptied: everyone queues again after the pause
			m.keepPace(host, p, now)
			t.Wait = s.Until.Sub(now)
			t.Pause = PauseState{Phase: PhasePaused, Wait: t.Wait}
			return t, nil
		case s.Phase == pause.Paused || s.Phase == pause.Probing:
			if token != "" && (s.Probe == "" || s.Probe == token || !now.Before(s.ProbeUntil)) {
				s.Phase, s.Probe, s.ProbeUntil = pause.Probing, token, now.Add(pause.ProbeExpiry)
				t.Pause.Probe = true
			} else {
				blocked = true
				step = max(step, min(s.Pause/4, pause.MaxFirstGap))
				ready = now.Add(step)
			}
			t.Pause.Phase, t.Pause.Wait = PhaseProbing, max(s.ProbeUntil.Sub(now), 0)
		case s.Phase == pause.Recovering:
			next := s.Last.Add(s.Gap)
			t.Pause.Phase, t.Pause.Wait = PhaseRecovering, max(next.Sub(now), 0)
			// The gap holds the next start back; it halves with each
			// good answer, so the places behind are a step apart as
			// usual, and come back early rather than late.
			ready = later(ready, next)
		}
	}
	if blocked {
		// Waiting for another's probe: no place in the queue, which
		// would be dead once the request goes back to wait for the
		// probe's answer; it queues when it asks again.
		if ticket > 0 && ticket <= p.issued {
			t.Ticket = ticket
		}
		t.Wait = step
		m.keepPace(host, p, now)
		return t, nil
	}
	if ticket <= 0 || ticket > p.issued {
		p.issued++
		ticket = p.issued
	}
	t.Ticket = ticket
	ahead := max(ticket-p.served-1, 0)
	if known {
		ready = later(ready, p.unclaimed.Add(delay))
		if token == "" || p.token != token {
			ready = later(ready, p.latest.Add(delay))
			if !p.unclaimed.After(p.latest) { // not answered yet
				ready = later(ready, p.latest.Add(step))
			}
		}
		if p.claimedByOther(token, now) {
			// The next start comes a delay after an Unclaim still to
			// come: asking again sooner than a delay from now is no use.
			ready = later(ready, later(p.latest.Add(step), now.Add(delay)))
		}
	}
	turn := ready.Add(time.Duration(ahead) * step)
	if delay == 0 || !now.Before(turn) {
		if delay > 0 {
			p.delay = delay
		}
		p.latest, p.token, p.granted = now, token, now
		p.served = max(p.served, ticket)
		if s != nil && s.Phase == pause.Recovering {
			s.Last = now
		}
		m.keepPace(host, p, now)
		return t, nil
	}
	t.Wait, t.Ahead = max(turn.Sub(now), minQueueWait), ahead
	// The tickets given out must outlive the longest wait handed out.
	last := ready.Add(time.Duration(max(p.issued-p.served-1, 0)) * step)
	p.queueTill = later(p.queueTill, later(last, now.Add(t.Wait)).Add(MinPaceKeep))
	m.keepPace(host, p, now)
	return t, nil
}

// ClaimTurn implements Queuer.
func (m *Memory) ClaimTurn(ctx context.Context, host, token string, delay, ttl time.Duration) (Turn, error) {
	if err := ctx.Err(); err != nil {
		return Turn{}, err
	}
	now := m.lock()
	defer m.mu.Unlock()
	var t Turn
	if s := m.pauseOf(host, now); s != nil {
		switch {
		case s.Phase == pause.Paused && now.Before(s.Until):
			t.Wait = s.Until.Sub(now)
			t.Pause = PauseState{Phase: PhasePaused, Wait: t.Wait}
			return t, nil
		case s.Phase == pause.Paused || s.Phase == pause.Probing:
			if token == "" || (s.Probe != "" && s.Probe != token && now.Before(s.ProbeUntil)) {
				t.Wait = max(s.ProbeUntil.Sub(now), minQueueWait)
				t.Pause = PauseState{Phase: PhaseProbing, Wait: max(s.ProbeUntil.Sub(now), 0)}
				return t, nil
			}
			s.Phase, s.Probe, s.ProbeUntil = pause.Probing, token, now.Add(pause.ProbeExpiry)
			t.Pause = PauseState{Phase: PhaseProbing, Wait: pause.ProbeExpiry, Probe: true}
		case s.Phase == pause.Recovering:
			t.Pause = PauseState{Phase: PhaseRecovering, Wait: max(s.Last.Add(s.Gap).Sub(now), 0)}
		}
	}
	t.Wait, t.Repaired = m.claimLocked(host, token, max(delay, 0), max(ttl, 0), now)
	return t, nil
}
