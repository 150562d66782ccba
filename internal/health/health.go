// Package health tracks whether an Extension's Backend may be tried, for
// the pacing (pacing.Health) and the robots.txt cache (lifecycle.Health):
// after a failed call the Extension fetches and paces locally, then comes
// back to the shared state. A Backend made of parts that fail alone
// (backend.Scoper, such as the masters of a Redis Cluster) is tracked per
// part: a failing part costs only the hosts it serves, one probe a second
// tells when it answers again, and its hosts return to the shared state as
// soon as it does or another part serves them. The first failed call of a
// part that was answering is only a suspicion, which a probe sent at once
// settles (suspect.go): a call that timed out on a loaded machine does
// not send the part's hosts to local pacing while the other workers keep
// the shared pace. Any other Backend is tracked as a whole, with a
// cool-down.
package health

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotsext/robotsext/backend"
)

const (
	// Cooldown is how long the Extension answers locally after a call to
	// a Backend tracked as a whole failed, before it tries it again.
	Cooldown = 5 * time.Second

	// RecoveryShare is how long after a failure each worker keeps to its
	// own share of every paced host it concerns (delay × fleet size since
	// its own latest start) on top of what the Backend grants: the other
	// workers may still pace locally until their own fallback ends, and
	// the fleet's total must stay within the delay meanwhile. It spans
	// one cool-down of this worker and one of the latest of the others.
	RecoveryShare = 2 * Cooldown

	// ProbeEvery is how often a failing part of a backend.Scoper is asked
	// whether it answers again: one probe per part, whatever the calls
	// waiting for it.
	ProbeEvery = time.Second

	// probeTimeout bounds one probe.
	probeTimeout = 2 * time.Second

	// lateFailure is how long after a part (or the whole Backend)
	// answered a probe the failures of calls sent before it are only
	// counted: they were waiting on it while it was away, or failed with
	// the call that raised the suspicion (one stall of this process times
	// out every call in flight at once), and say nothing of it now.
	lateFailure = 500 * time.Millisecond
)

// Config is what a Tracker needs. Every field may be left zero.
type Config struct {
	// Backend is the Backend tracked; a backend.Scoper is tracked per
	// part.
	Backend backend.Backend
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// Logger takes the Warn when the Extension falls back and the Info
	// when it comes back; nil: slog.Default().
	Logger *slog.Logger
	// Failed is called once per failed call (Stats.BackendErrors).
	Failed func()
}

// Tracker is the Extension's view of its Backend's health. Make one with
// New; the zero Tracker tracks a Backend as a whole on the wall clock.
// It is safe for concurrent use.
type Tracker struct {
	cfg    Config
	scoper backend.Scoper
	spawn  func(func()) // runs a probe; nil: in a goroutine of its own (tests run it in place)

	downAt   atomic.Int64 // Now of the latest failure of the whole Backend, Unix ns; 0: none
	since    atomic.Int64 // Now of the first failure of the whole Backend's latest fallback, Unix ns
	failures atomic.Int64 // failed calls since the whole Backend's fallback began
	resumed  atomic.Bool  // the end of the whole Backend's latest fallback was logged

	nparts atomic.Int32 // len(parts), for the fast paths
	ndown  atomic.Int32 // parts down now
	mu     sync.Mutex
	parts  map[string]*part // failing or recovering parts, by scope; guarded by mu
	// whole is the whole Backend's suspicion, for a Scoper (which can
	// probe it: Probe with scope ""), until its probe answers; nil: none.
	// wholeCleared is when the latest one was found answering. Both are
	// guarded by mu.
	whole        *suspicion
	wholeCause   string
	wholeCleared time.Time
}

// part is one suspect, failing or recovering part of a Scoper.
type part struct {
	since     time.Time // the first failure
	back      time.Time // when it answered again; zero while down
	failures  int       // failed calls since
	probes    int       // failed probes since
	probing   bool      // a probe is out
	nextProbe time.Time
	// suspect is the suspicion a failed call raised while the part was
	// answering, until its probe answers (suspect.go); nil: the part is
	// down or recovering. cause is that call's error, for the Warn.
	suspect *suspicion
	cause   string
	// cleared: the part answered the suspicion's probe at back, so it
	// never failed; a failure within ProbeEvery of that is no new
	// suspicion but the part's failure.
	cleared bool
}

// New returns a Tracker of cfg.Backend.
func New(cfg Config) *Tracker {
	t := &Tracker{cfg: cfg}
	t.scoper, _ = cfg.Backend.(backend.Scoper)
	return t
}

func (t *Tracker) now() time.Time {
	if t.cfg.Now != nil {
		return t.cfg.Now()
	}
	return time.Now()
}

func (t *Tracker) log() *slog.Logger {
	if t.cfg.Logger != nil {
		return t.cfg.Logger
	}
	return slog.Default()
}

// Fallback reports whether some host is answered locally now: the whole
// Backend, or a part of it, failed and has not answered since.
func (t *Tracker) Fallback() bool { return !t.wholeUp() || t.ndown.Load() > 0 }

// Up reports whether the Backend may be tried now for host (a host key,
// or an origin's host; "": for no host in particular).
func (t *Tracker) Up(host string) bool {
	if !t.wholeUp() {
		return false
	}
	if t.ndown.Load() == 0 || host == "" || t.scoper == nil {
		return true
	}
	scope := t.scoper.Scope(host)
	t.mu.Lock()
	due := t.probeDueLocked()
	p := t.parts[scope]
	up := scope == "" || p == nil || !p.back.IsZero() || p.suspect != nil
	t.mu.Unlock()
	for _, s := range due {
		t.run(func() { t.probe(s) })
	}
	return up
}

// Recovering reports whether a failure concerning host happened within
// RecoveryShare: each worker then keeps to its own share of the host.
func (t *Tracker) Recovering(host string) bool {
	if t.wholeRecovering() {
		return true
	}
	if t.nparts.Load() == 0 || host == "" || t.scoper == nil {
		return false
	}
	scope := t.scoper.Scope(host)
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.parts[scope]
	return p != nil && !p.cleared && (p.back.IsZero() || t.now().Sub(p.back) <= RecoveryShare)
}

// Failed records a failed call. For a part that was answering it raises
// a suspicion, which a probe sent at once settles (suspect.go): the part's
// fallback begins only if the probe fails too. For a part suspect or
// failing already the call is counted only (a call that was waiting on
// it does not extend the fallback). An error that is not a
// backend.ScopeError begins the whole Backend's fallback.
func (t *Tracker) Failed(err error) {
	if t.cfg.Failed != nil {
		t.cfg.Failed()
	}
	scope := backend.ScopeOf(err)
	if scope == "" || t.scoper == nil {
		t.wholeFailed(err)
		return
	}
	now := t.now()
	t.mu.Lock()
	p := t.parts[scope]
	switch {
	case p != nil && (p.back.IsZero() || p.suspect != nil):
		p.failures++
		t.mu.Unlock()
		return
	case p != nil && now.Sub(p.back) < lateFailure:
		t.mu.Unlock()
		return // sent before the part answered again
	case p != nil && p.cleared && now.Sub(p.back) < ProbeEvery:
		// It answered a probe a moment ago and fails again: no second
		// suspicion, the part fails.
		t.parts[scope] = &part{since: now, failures: 1, nextProbe: now.Add(ProbeEvery), cause: err.Error()}
		t.downLocked(scope, t.parts[scope], "")
		t.mu.Unlock()
		return
	}
	if t.parts == nil {
		t.parts = map[string]*part{}
	}
	if p == nil {
		t.nparts.Add(1)
	}
	t.parts[scope] = &part{since: now, failures: 1, probing: true, cause: err.Error(), suspect: &suspicion{done: make(chan struct{})}}
	t.mu.Unlock()
	t.run(func() { t.probe(scope) })
}

// downLocked starts part p's fallback: its hosts are fetched and paced
// locally until it answers. probeErr is the probe's error when a
// suspicion's probe failed, "" otherwise. t.mu must be held.
func (t *Tracker) downLocked(scope string, p *part, probeErr string) {
	t.ndown.Add(1)
	attrs := []any{"node", scope, "cause", p.cause, "probe_every", ProbeEvery.String()}
	if probeErr != "" {
		attrs = append(attrs, "probe", probeErr)
	}
	t.log().Warn("robotsext: a backend node failed; the hosts it serves are fetched and paced locally until it answers", attrs...)
}

// run runs f, a probe: in a goroutine of its own, or in place when tests
// set spawn.
func (t *Tracker) run(f func()) {
	if t.spawn != nil {
		t.spawn(f)
		return
	}
	go f()
}

// probeDueLocked returns the failing parts whose probe's turn has come,
// marked as probed, and forgets parts whose recovery is over. t.mu must
// be held.
func (t *Tracker) probeDueLocked() (due []string) {
	now := t.now()
	for scope, p := range t.parts {
		switch {
		case p.suspect != nil:
			// Its probe is out.
		case !p.back.IsZero():
			if now.Sub(p.back) > RecoveryShare {
				delete(t.parts, scope)
				t.nparts.Add(-1)
			}
		case !p.probing && !now.Before(p.nextProbe):
			p.probing = true
			due = append(due, scope)
		}
	}
	return due
}

// ask probes scope ("": the whole Backend) within probeTimeout; with
// twice, a probe that fails is made once more, a suspicion's second
// chance (suspect.go).
func (t *Tracker) ask(scope string, twice bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	err := t.scoper.Probe(ctx, scope)
	if err != nil && twice && ctx.Err() == nil {
		err = t.scoper.Probe(ctx, scope)
	}
	return err
}

// probe asks the part scope whether it answers, and ends its fallback
// when it does.
func (t *Tracker) probe(scope string) {
	err := t.ask(scope, t.suspect(scope))
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.parts[scope]
	if p == nil || !p.back.IsZero() {
		return
	}
	p.probing = false
	if p.suspect != nil {
		t.settleLocked(scope, p, now, err)
		return
	}
	if err != nil {
		p.probes++
		p.nextProbe = now.Add(ProbeEvery)
		return
	}
	p.back = now
	t.ndown.Add(-1)
	t.log().Info("robotsext: a backend node answers again, or another node serves its hosts; they share the fleet's robots.txt and pace again",
		"node", scope, "fallback_lasted", now.Sub(p.since).Round(time.Millisecond).String(),
		"failed_calls", p.failures, "failed_probes", p.probes)
}
