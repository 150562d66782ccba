package pacing

// This file paces a host across a fleet through a Backend that implements
// Starter. A request asks the Backend to start from Wait, before Colly's
// LimitRule takes a parallelism slot, and waits there while the answer is
// "not yet"; right before the wire the gate asks once more with the same
// token, which confirms the start at the moment it really happens (a
// worker that became late pushes the fleet's next start back); with a
// Claimer that call also claims the host for the fleet (claim.go). It also
// keeps the rules that keep the fleet polite when the Backend misbehaves:
// every wait it returns is checked against the delay, stored state it had
// to repair is counted and logged, a failed call is answered by local
// pacing from this worker's own latest start, and for a while after an
// outage each worker keeps to its own share of the host's rate. A Backend
// with Reserve only is booked at the gate (bookShared).

import (
	"context"
	"errors"
	"time"
)

// anomalySlack is how much longer than the delay (plus gateMargin) a wait
// returned by Starter.Start may be before it is treated as corrupt state:
// the clocks of the worker and the backend may disagree a little.
const anomalySlack = time.Second

// shareAfterLocal is how long after this worker's latest local start on
// a host (paced at delay × fleet size while its part of the Backend
// failed) the worker keeps to that share on top of what the Backend
// grants: the other workers come back to the shared pace one at a time,
// each after its own probe, and may still pace the host locally until
// then. It spans the root's recovery (two cool-downs of 5 s).
const shareAfterLocal = 10 * time.Second

// grantsSweepAt is how many recorded grants make the Pacer drop those
// older than maxClaim (keepGrant).
const grantsSweepAt = 1024

// errFallback tells the caller to pace this request locally: the Backend
// failed or returned a wait that cannot be right.
var errFallback = errors.New("robotsext: pace locally")

// grant is a start the Backend granted to a request under token: in the
// OnRequest hook, to be confirmed at the gate with the same token
// (Pacer.grants), or at the gate by a Claimer, which the request claims
// host key for the fleet with until it ends (Pacer.fleetClaims).
type grant struct {
	key   string // the host's key (fleetClaims only)
	token string
	at    time.Time
}

// keepGrant stores g as request tok's in m. Once m has grantsSweepAt
// grants it first drops those older than maxClaim: a request aborted after
// its grant may never reach the place that takes it. pc.mu must be held.
func keepGrant(m map[any]grant, tok any, g grant) {
	if len(m) >= grantsSweepAt {
		for k, old := range m {
			if g.at.Sub(old.at) > maxClaim {
				delete(m, k)
			}
		}
	}
	m[tok] = g
}

// shared reports whether fleet pacing through a Starter is in force now
// for host key.
func (pc *Pacer) shared(key string) bool {
	return pc.starter != nil && up(pc.health, key)
}

// acquire waits until the Backend grants request tok a start on host, or
// the context ends. It runs in Wait, in the OnRequest hook, outside Colly's
// parallelism slots. Requests of this process to one host ask one at a
// time (h.acq), so that a queue of them costs one Backend call per delay,
// not one per queued request. Before each call it waits until the gate
// would find the host free here (localFree). When the Backend fails, the request is paced
// locally at the fleet's share instead. A nil tok (a redirect hop, which
// asks at the gate) asks nothing here.
// paced reports whether host had a pace to wait for.
func (pc *Pacer) acquire(ctx context.Context, host string, tok any) (paced bool, err error) {
	if tok == nil {
		return false, ctx.Err()
	}
	key := HostKey(host)
	pc.mu.Lock()
	h := pc.hosts[key]
	if h == nil {
		pc.mu.Unlock()
		return false, ctx.Err()
	}
	acq := h.acq
	h.waiting.Add(1)
	pc.mu.Unlock()
	defer h.waiting.Add(-1)
	select {
	case acq <- struct{}{}:
	case <-ctx.Done():
		return true, ctx.Err()
	}
	defer func() { <-acq }()

	if err := pc.keepShare(ctx, key); err != nil {
		return true, err
	}
	btok := pc.names.next()
	u := pc.random() // this start's jitter, as a share of the delay
	if pc.queuer != nil {
		err := pc.acquireQueued(ctx, key, tok, btok, u)
		if errors.Is(err, errFallback) {
			d, _ := pc.reserveLocal(host, pc.now, pc.fleetSize())
			return true, pc.sleep(ctx, d)
		}
		return true, err
	}
	for {
		delay := pc.delayOfKey(key)
		if delay == 0 {
			return true, ctx.Err() // the host is no longer paced
		}
		if err := pc.localFree(ctx, key); err != nil { // giveback.go
			return true, err
		}
		w, err := pc.startShared(ctx, key, btok, delay+jitterOf(delay, u))
		switch {
		case errors.Is(err, errFallback):
			d, _ := pc.reserveLocal(host, pc.now, pc.fleetSize())
			return true, pc.sleep(ctx, d)
		case err != nil:
			return true, err
		case w <= 0:
			pc.grantTo(tok, btok)
			return true, nil
		}
		if err := pc.sleep(ctx, w); err != nil {
			return true, err
		}
	}
}

// confirm asks the Backend, at the gate, to start request tok on host now,
// with the token of its grant when it has one; it waits (keeping its local
// claim on the host, at most about a delay) while the Backend says "not
// yet". With a Claimer the start also claims the host for the fleet until
// the request ends (Ended) or is redirected (Land). A request granted its
// start in Wait that the Backend refuses now gives its turn back instead
// of waiting (ErrTurnTaken; giveback.go). When the Backend fails it waits
// instead until delay × fleet size after prev, this worker's own latest
// start before this one. It returns the context's error when ctx ends
// first.
func (pc *Pacer) confirm(ctx context.Context, key string, tok any, delay time.Duration, prev time.Time) error {
	btok := pc.takeGrant(tok)
	granted := btok != ""
	if !granted {
		btok = pc.names.next()
	}
	for {
		var w time.Duration
		var err error
		switch {
		case pc.queuer != nil:
			w, err = pc.claimTurn(ctx, key, tok, btok, delay)
		case pc.claimer != nil:
			w, err = pc.claimShared(ctx, key, btok, delay)
		default:
			w, err = pc.startShared(ctx, key, btok, delay)
		}
		switch {
		case errors.Is(err, errFallback):
			d := prev.Add(delay * time.Duration(pc.fleetSize())).Sub(pc.now())
			if d <= 0 {
				return nil
			}
			return pc.sleep(ctx, d)
		case err != nil:
			return err
		case w <= 0:
			if pc.claimer != nil {
				pc.fleetClaimed(tok, key, btok)
			}
			return nil
		case granted && ctx.Err() == nil && pc.givingBack(key):
			return ErrTurnTaken // another request took the host since the grant (giveback.go)
		}
		if err := pc.sleep(ctx, w); err != nil {
			return err
		}
	}
}

// startShared makes one Starter.Start call for key and checks its answer.
// It returns errFallback when the call failed (reported to Health) or
// its wait is longer than any state the Backend may rightly keep (counted
// and logged as an anomaly), and the context's error when ctx ended.
// Starts are spaced by the delay plus gateMargin, for the time between a
// worker's gate and the wire, which the other workers cannot see; with a
// Claimer they are spaced by the delay alone, since the claim at the gate
// waits for the previous request's answer.
func (pc *Pacer) startShared(ctx context.Context, key, btok string, delay time.Duration) (time.Duration, error) {
	spacing := delay
	if pc.claimer == nil {
		spacing += gateMargin(delay)
	} else {
		pc.retryUnclaim(ctx, key)
	}
	var w time.Duration
	var repaired bool
	err := pc.callShared(ctx, func() (err error) {
		w, repaired, err = pc.starter.Start(ctx, key, btok, spacing)
		return err
	})
	return pc.checkShared(ctx, key, delay, w, repaired, err)
}

// callShared makes call, a Backend call for a request's pace, and reports
// its failure to Health. When that failure is the first of a part of the
// Backend that was answering until then, a probe sent at once settles it
// (Health.Settle) and, if the part answers, the call is made once more: a
// call that timed out on a machine short of CPU does not send the host to
// local pacing while the rest of the fleet keeps the shared pace.
func (pc *Pacer) callShared(ctx context.Context, call func() error) error {
	for again := false; ; again = true {
		err := call()
		if err == nil || ctx.Err() != nil {
			return err
		}
		failed(pc.health, err)
		if again || !settle(pc.health, ctx, err) {
			return err
		}
	}
}

// checkShared checks the answer (w, repaired, err) of a Start or Claim
// call for key, made through callShared, which reported a failure: see
// startShared.
func (pc *Pacer) checkShared(ctx context.Context, key string, delay, w time.Duration, repaired bool, err error) (time.Duration, error) {
	spacing := delay + gateMargin(delay)
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, errFallback
	}
	if repaired {
		pc.repaired(key)
	}
	if w > spacing+anomalySlack {
		pc.anomaly(key, "the backend asked for a wait longer than the host's delay; paced locally instead", w)
		return 0, errFallback
	}
	return w, nil
}

// repaired reports that the Backend found the pace of host key unreadable
// or in the future and replaced it: an anomaly (counted, and logged once
// per host).
func (pc *Pacer) repaired(key string) {
	pc.anomaly(key, "the backend's pace for the host was unreadable or in the future and was replaced", 0)
}

// anomaly counts shared state that cannot be right and logs it at Warn,
// once per host.
func (pc *Pacer) anomaly(key, what string, wait time.Duration) {
	pc.nanomalies.Add(1)
	pc.mu.Lock()
	warn := false
	if h := pc.hosts[key]; h != nil && !h.anomalyWarned {
		h.anomalyWarned, warn = true, true
	}
	pc.mu.Unlock()
	if warn {
		attrs := []any{"host", key}
		if wait > 0 {
			attrs = append(attrs, "wait", wait)
		}
		pc.logger.Warn("robotsext: "+what, attrs...)
	}
}

// keepShare waits, while the fleet recovers from a Backend outage on host
// key (Health.Recovering) or within shareAfterLocal of this worker's
// latest local start on it, until delay × fleet size after this worker's
// latest start on the host: the hand-over from local to shared pacing
// carries that start, which the Backend never saw, and the other workers
// may still pace the host locally.
func (pc *Pacer) keepShare(ctx context.Context, key string) error {
	rec := recovering(pc.health, key)
	pc.mu.Lock()
	h := pc.hosts[key]
	var d time.Duration
	if h != nil && (rec || (h.localAt.Load() != 0 && pc.nowInstant()-h.localAt.Load() <= int64(shareAfterLocal))) {
		d = h.lastStart.Add(h.delay * time.Duration(pc.fleetSize())).Sub(pc.now())
	}
	pc.mu.Unlock()
	if d <= 0 {
		return nil
	}
	return pc.sleep(ctx, d)
}

// grantTo records that request tok was granted a start under btok.
func (pc *Pacer) grantTo(tok any, btok string) {
	now := pc.now()
	pc.mu.Lock()
	keepGrant(pc.grants, tok, grant{token: btok, at: now})
	pc.mu.Unlock()
}

// takeGrant returns and forgets the token of request tok's grant, "" when
// it has none.
func (pc *Pacer) takeGrant(tok any) string {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	g, ok := pc.grants[tok]
	if !ok {
		return ""
	}
	delete(pc.grants, tok)
	return g.token
}

// bookShared books host's next start in the backend, spaced by delay plus
// gateMargin, and returns the wait; ok is false when there is no working
// backend (or it just failed), and the caller paces locally.
func (pc *Pacer) bookShared(ctx context.Context, host string, delay time.Duration) (wait time.Duration, ok bool) {
	if pc.backend == nil || !up(pc.health, HostKey(host)) {
		return 0, false
	}
	spacing := delay + gateMargin(delay)
	var w time.Duration
	err := pc.callShared(ctx, func() (err error) {
		w, err = pc.backend.Reserve(ctx, HostKey(host), spacing)
		return err
	})
	if err != nil {
		return 0, false
	}
	// Each worker books at the gate, one request per host at a time, so
	// the fleet has at most one booking per worker ahead of this one.
	if w > spacing*time.Duration(pc.fleetSize())+anomalySlack {
		pc.anomaly(HostKey(host), "the backend asked for a wait longer than the fleet's bookings allow; paced locally instead", w)
		return 0, false
	}
	return w, true
}
