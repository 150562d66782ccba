package health

import "time"

// wholeFailed records a failed call of the whole Backend: the Extension
// answers locally for Cooldown from it. The first failure of a fallback
// is logged at Warn.
func (t *Tracker) wholeFailed(err error) {
	now := t.now().UnixNano()
	was := t.downAt.Swap(now)
	if was == 0 || time.Duration(now-was) > Cooldown {
		t.failures.Store(1)
		t.since.Store(now)
		t.resumed.Store(false)
		t.log().Warn("robotsext: backend failed; fetching and pacing locally for a while",
			"cause", err.Error(), "retry_in", Cooldown.String())
		return
	}
	t.failures.Add(1)
}

// wholeUp reports whether the whole Backend may be tried: no failure
// within Cooldown. The first time it says yes after a fallback, it logs
// at Info how long the fallback lasted and how many calls failed.
func (t *Tracker) wholeUp() bool {
	at := t.downAt.Load()
	if at == 0 {
		return true
	}
	down := time.Duration(t.now().UnixNano() - at)
	if down <= Cooldown {
		return false
	}
	if t.resumed.CompareAndSwap(false, true) {
		lasted := time.Duration(t.now().UnixNano() - t.since.Load())
		t.log().Info("robotsext: trying the backend again after a fallback",
			"fallback_lasted", lasted.Round(time.Millisecond).String(), "failed_calls", t.failures.Load())
	}
	return true
}

// wholeRecovering reports whether a call of the whole Backend failed
// within RecoveryShare.
func (t *Tracker) wholeRecovering() bool {
	at := t.downAt.Load()
	return at != 0 && time.Duration(t.now().UnixNano()-at) <= RecoveryShare
}
