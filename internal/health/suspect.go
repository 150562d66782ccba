package health

// This file settles a suspicion: the first failed call of a part that was
// answering (or of the whole Backend, when it can be probed) may be the
// part's failure (a node killed, paused, cut off) or
// the call's alone (no answer within the timeout on a machine short of
// CPU, while the node serves the other workers). A probe sent at once
// tells them apart. Meanwhile the part's hosts keep the shared state, and
// a request whose call failed waits for the verdict (Settle) and calls
// again when the part answers: were it paced locally while the other
// workers keep the shared pace, the host would get both paces at once.

import (
	"context"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// suspicion is a part's pending verdict. answered is written before done
// is closed and read only after.
type suspicion struct {
	done     chan struct{}
	answered bool
}

// suspect reports whether part scope is suspect: its probe is a
// suspicion's, which gets a second chance when the first fails, since on
// a machine short of CPU a probe may time out as the call did.
func (t *Tracker) suspect(scope string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.parts[scope]
	return p != nil && p.suspect != nil
}

// wholeSuspect raises the whole Backend's suspicion for a failed call,
// or counts the call in the one pending or just cleared (a call failing
// within lateFailure of the answer was sent before it), and reports
// whether it did: it does not when the Backend is failing already, or
// answered a probe less than ProbeEvery ago (the failure is then the
// Backend's).
func (t *Tracker) wholeSuspect(err error) bool {
	if !t.wholeUp() {
		return false
	}
	now := t.now()
	t.mu.Lock()
	switch {
	case t.whole != nil, !t.wholeCleared.IsZero() && now.Sub(t.wholeCleared) < lateFailure:
		t.mu.Unlock()
		t.failures.Add(1)
		return true
	case !t.wholeCleared.IsZero() && now.Sub(t.wholeCleared) < ProbeEvery:
		t.mu.Unlock()
		return false
	}
	t.whole, t.wholeCause = &suspicion{done: make(chan struct{})}, err.Error()
	t.failures.Store(1)
	t.mu.Unlock()
	t.run(t.probeWhole)
	return true
}

// probeWhole settles the whole Backend's suspicion: it answered, and
// never failed; or its fallback begins.
func (t *Tracker) probeWhole() {
	err := t.ask("", true)
	now := t.now()
	t.mu.Lock()
	s, cause := t.whole, t.wholeCause
	t.whole = nil
	if err == nil {
		t.wholeCleared = now
	}
	t.mu.Unlock()
	defer close(s.done)
	if err == nil {
		s.answered = true
		t.log().Debug("robotsext: a backend call failed but the backend answers; its hosts keep the fleet's robots.txt and pace",
			"cause", cause, "failed_calls", t.failures.Load())
		return
	}
	n := t.failures.Load()
	t.wholeDown(cause, err.Error())
	t.failures.Store(n)
}

// settleLocked ends part p's suspicion with its probe's answer err: the
// part answered, and it never failed; or its fallback begins. t.mu must be
// held.
func (t *Tracker) settleLocked(scope string, p *part, now time.Time, err error) {
	s := p.suspect
	p.suspect = nil
	defer close(s.done)
	if err == nil {
		s.answered = true
		p.back, p.cleared = now, true
		t.log().Debug("robotsext: a backend call failed but its node answers; its hosts keep the fleet's robots.txt and pace",
			"node", scope, "cause", p.cause, "failed_calls", p.failures)
		return
	}
	p.probes++
	p.nextProbe = now.Add(ProbeEvery)
	t.downLocked(scope, p, err.Error())
}

// Settle is called after a failed call with its error, before the caller
// answers locally. While the part the call failed in is suspect, it waits
// for the probe's verdict, or for ctx, and reports whether the part
// answered: the caller then makes its call once more instead of answering
// locally. It reports false at once for an error of the whole Backend and
// for a part that is failing.
func (t *Tracker) Settle(ctx context.Context, err error) bool {
	if t.scoper == nil {
		return false
	}
	scope := backend.ScopeOf(err)
	if scope == "" {
		return t.settleWhole(ctx)
	}
	t.mu.Lock()
	p := t.parts[scope]
	if p == nil || p.suspect == nil {
		answers := p == nil || !p.back.IsZero()
		t.mu.Unlock()
		return answers
	}
	s := p.suspect
	t.mu.Unlock()
	select {
	case <-s.done:
		return s.answered
	case <-ctx.Done():
		return false
	}
}

// settleWhole is Settle for an error of the whole Backend.
func (t *Tracker) settleWhole(ctx context.Context) bool {
	t.mu.Lock()
	s := t.whole
	t.mu.Unlock()
	if s == nil {
		return t.wholeUp()
	}
	select {
	case <-s.done:
		return s.answered
	case <-ctx.Done():
		return false
	}
}
