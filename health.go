package robotsext

// This file tracks the health of the Backend, whose every call (robots.txt
// records, paces, pauses) may fail: after a failure the Extension fetches
// and paces locally for a cool-down, then tries the Backend again.

import "time"

const (
	// backendCooldown is how long the Extension answers locally after a
	// Backend call failed, before it tries the backend again.
	backendCooldown = 5 * time.Second

	// recoveryShare is how long after a failed Backend call each worker
	// keeps to its own share of every paced host (delay × fleet size since
	// its own latest start) on top of what the Backend grants: the other
	// workers may still pace locally until their own cool-down ends, and
	// the fleet's total must stay within the delay meanwhile. It spans one
	// cool-down of this worker and one of the latest of the others.
	recoveryShare = 2 * backendCooldown
)

// backendFailed records a failed Backend call.
func (e *Extension) backendFailed(err error) {
	e.stats.backendErrors.Add(1)
	now := e.cfg.now().UnixNano()
	was := e.backendDownAt.Swap(now)
	if was == 0 || time.Duration(now-was) > backendCooldown {
		e.cfg.logger.Warn("robotsext: backend failed; fetching and pacing locally for a while", "error", err.Error(), "retry_in", backendCooldown)
	}
}

// backendUp reports whether the backend may be tried: no failure within
// backendCooldown.
func (e *Extension) backendUp() bool {
	at := e.backendDownAt.Load()
	return at == 0 || time.Duration(e.cfg.now().UnixNano()-at) > backendCooldown
}

// backendRecovering reports whether a Backend call failed within
// recoveryShare: each worker then keeps to its own share of every paced
// host (pacing.Health).
func (e *Extension) backendRecovering() bool {
	at := e.backendDownAt.Load()
	return at != 0 && time.Duration(e.cfg.now().UnixNano()-at) <= recoveryShare
}

// backendHealth is the Extension's view of its Backend, as the pacing
// (pacing.Health) and the robots.txt cache (lifecycle.Health) ask for it:
// the cool-down after a failure (backendUp), the recovery after it
// (backendRecovering) and the failure itself (backendFailed).
type backendHealth struct{ e *Extension }

func (h backendHealth) Up() bool         { return h.e.backendUp() }
func (h backendHealth) Recovering() bool { return h.e.backendRecovering() }
func (h backendHealth) Failed(err error) { h.e.backendFailed(err) }
