package health

import "time"

// wholeFailed records a failed call of the whole Backend: the Extension
// answers locally for Cooldown from it. The first failure of a fallback
// is logged at Warn. A Backend that can be probed (a Scoper) is first
// suspect, as a part is (suspect.go): a probe sent at once settles it.
func (t *Tracker) wholeFailed(err error) {
	if t.scoper != nil && t.wholeSuspect(err) {
		return
	}
	t.wholeDown(err.Error(), "")
}

// wholeDown begins the whole Backend's fallback, or counts a failure in
// it; probeErr is a suspicion's failed probe, "" for none.
func (t *Tracker) wholeDown(cause, probeErr string) {
	now := t.now().UnixNano()
	was := t.downAt.Swap(now)
	if was == 0 || time.Duration(now-was) > Cooldown {
		t.failures.Store(1)
		t.since.Store(now)
		t.resumed.Store(false)
		attrs := []any{"cause", cause, "retry_in", Cooldown.String()}
		if probeErr != "" {
			attrs = append(attrs, "probe", probeErr)
		}
		t.log().Warn("robotsext: backend failed; fetching and pacing locally for a while", attrs...)
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
