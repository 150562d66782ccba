// Package pause is the state machine of one host's back-off: the host
// asked for less (429, 503, a run of 5xx), so it is paused; when the pause
// ends one request probes it; a good answer returns it to its normal pace
// step by step, another overload answer doubles the pause. The Extension
// keeps one State per paced host in memory, and backend.Memory keeps the
// fleet's; both run this code, so the two cannot drift apart.
package pause

import "time"

// Phase is where a host is in its back-off.
type Phase uint8

const (
	// Healthy: no pause; requests go at the host's normal pace.
	Healthy Phase = iota
	// Paused: no request may start before Until.
	Paused
	// Probing: the pause has ended; one request (Probe) may go, the
	// others wait for its answer.
	Probing
	// Recovering: the probe was answered; requests start at least Gap
	// apart, and Gap halves with each good answer until it is below
	// MinGap, when the host is Healthy again.
	Recovering
)

// String names the phase.
func (p Phase) String() string {
	switch p {
	case Paused:
		return "paused"
	case Probing:
		return "probing"
	case Recovering:
		return "recovering"
	default:
		return "healthy"
	}
}

const (
	// ProbeExpiry is how long a probe on the wire may go unanswered
	// before another request may probe instead: a probe whose worker
	// died is never answered.
	ProbeExpiry = 30 * time.Second
	// ProbeReach is how long, beyond two of its host's delays (its wait
	// for its pace), a probe let go before the wire may take to reach it
	// (Reach) before another request may probe instead: a probe aborted
	// by a later OnRequest callback never reaches the wire, and Colly
	// says nothing of it.
	ProbeReach = 2 * time.Second
	// MinGap ends the recovery: once the spacing of starts would fall
	// below it, the host is Healthy.
	MinGap = 10 * time.Millisecond
	// MaxFirstGap bounds the first spacing of the recovery, which is a
	// quarter of the pause that ended.
	MaxFirstGap = 5 * time.Second
	// StaleAfter is how long a state may lie idle past its Next time
	// (no request asked, no answer came) before its keeper drops it: the
	// host is then treated as in good health, and memory stays bounded by
	// the hosts that asked for less lately.
	StaleAfter = 5 * time.Minute
)

// State is one host's back-off. The zero value is Healthy. T is the type
// of the tokens that name requests (a pointer in one process, a string in
// a Backend); the zero T names no request. State is not safe for
// concurrent use: its owner guards it.
type State[T comparable] struct {
	Phase Phase
	// Until is the end of the current (or latest) pause.
	Until time.Time
	// Pause is the length of the latest pause, which the next failure
	// after it doubles.
	Pause time.Duration
	// Probe names the probe in flight (Probing); ProbeUntil is when it
	// expires.
	Probe      T
	ProbeUntil time.Time
	// Gap is the spacing of starts while Recovering; Last is the latest
	// start granted then.
	Gap  time.Duration
	Last time.Time
}

// Signal records an overload answer at now: retryAfter is the answer's
// Retry-After (0 when none or unusable), base the length of a first pause
// without one, limit the cap. A Healthy host is paused for retryAfter, or
// base without one. A failure while Probing or Recovering (the host was
// tried again and is still overloaded) doubles the latest pause, or takes
// retryAfter when that is longer. A failure while Paused is an answer to a
// request sent before the pause: it extends the pause to retryAfter from
// now, if that is later, and starts nothing. started reports a new pause
// (to count and log), d its length and capped that limit cut it.
func (s *State[T]) Signal(now time.Time, retryAfter, base, limit time.Duration) (d time.Duration, started, capped bool) {
	var zero T
	switch {
	case s.Phase == Paused && now.Before(s.Until):
		if retryAfter > 0 {
			d = min(retryAfter, limit)
			if until := now.Add(d); until.After(s.Until) {
				s.Until = until
			}
		}
		return s.Until.Sub(now), false, false
	case s.Phase == Probing || s.Phase == Recovering:
		d = max(2*s.Pause, retryAfter)
	case s.Phase == Paused: // ended, not yet probed: a late answer
		d = max(s.Pause, retryAfter)
	default:
		d = retryAfter
	}
	if d <= 0 {
		d = base
	}
	if d > limit {
		d, capped = limit, true
	}
	s.Phase, s.Until, s.Pause = Paused, now.Add(d), d
	s.Probe, s.ProbeUntil, s.Gap, s.Last = zero, time.Time{}, 0, time.Time{}
	return d, true, capped
}

// Ask asks at now whether request tok may start. wait is 0 when it may;
// probe then reports that tok is the probe. Otherwise the caller waits
// wait (at most) and asks again; onProbe reports that the wait is for
// another request's probe, which the caller may cut short when that is
// answered.
func (s *State[T]) Ask(now time.Time, tok T) (wait time.Duration, probe, onProbe bool) {
	var zero T
	switch s.Phase {
	case Paused:
		if now.Before(s.Until) {
			return s.Until.Sub(now), false, false
		}
		s.Phase = Probing
		fallthrough
	case Probing:
		if s.Probe == zero || s.Probe == tok || !now.Before(s.ProbeUntil) {
			s.Probe, s.ProbeUntil = tok, now.Add(ProbeExpiry)
			return 0, true, false
		}
		return s.ProbeUntil.Sub(now), false, true
	case Recovering:
		if next := s.Last.Add(s.Gap); now.Before(next) {
			return next.Sub(now), false, false
		}
		s.Last = now
	}
	return 0, false, false
}

// Reach bounds the wait for the wire of probe tok, let go before it: it
// expires at until unless it asks again first (Ask, when it reaches the
// wire, gives it ProbeExpiry from then). Nothing changes for a request
// that is not the probe, or an expiry already earlier.
func (s *State[T]) Reach(tok T, until time.Time) {
	var zero T
	if s.Phase == Probing && tok != zero && s.Probe == tok && until.Before(s.ProbeUntil) {
		s.ProbeUntil = until
	}
}

// Answered records at now a good answer (anything but an overload signal)
// to request tok: the probe's starts the recovery, a recovering host's
// halves the spacing. healthy reports that the host is Healthy now.
func (s *State[T]) Answered(now time.Time, tok T) (healthy bool) {
	var zero T
	switch s.Phase {
	case Probing:
		if tok != s.Probe || tok == zero {
			return false
		}
		s.Phase, s.Probe, s.ProbeUntil = Recovering, zero, time.Time{}
		s.Gap, s.Last = min(s.Pause/4, MaxFirstGap), now
	case Recovering:
		s.Gap /= 2
	default:
		return s.Phase == Healthy
	}
	if s.Gap < MinGap {
		*s = State[T]{}
		return true
	}
	return false
}

// Withdrawn records that request tok, the probe, will bring no answer
// for a reason that is not the host's (its sender gave up: the crawler's
// own context ended). The host stays Probing with no probe out, so that
// the next request to ask is the probe; nothing is doubled. It reports
// whether tok was the probe.
func (s *State[T]) Withdrawn(tok T) bool {
	var zero T
	if s.Phase != Probing || tok == zero || s.Probe != tok {
		return false
	}
	s.Probe, s.ProbeUntil = zero, time.Time{}
	return true
}

// Next is the earliest a request may start, as far as the state knows:
// the pause's end, the next recovering start, or now.
func (s *State[T]) Next(now time.Time) time.Time {
	switch s.Phase {
	case Paused:
		if s.Until.After(now) {
			return s.Until
		}
	case Probing:
		if s.ProbeUntil.After(now) {
			return s.ProbeUntil
		}
	case Recovering:
		if n := s.Last.Add(s.Gap); n.After(now) {
			return n
		}
	}
	return now
}

// Stale reports whether the state has lain idle for StaleAfter past the
// latest time it named (the pause's end, the probe's expiry, the latest
// recovering start), so that its keeper may drop it.
func (s *State[T]) Stale(now time.Time) bool {
	var end time.Time
	switch s.Phase {
	case Healthy:
		return true
	case Paused:
		end = s.Until
	case Probing:
		end = s.ProbeUntil
	case Recovering:
		end = s.Last.Add(s.Gap)
	}
	return !now.Before(end.Add(StaleAfter))
}
