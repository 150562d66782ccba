package robotsext

// This file paces a host across a fleet through a Backend that implements
// Starter. A request asks the Backend to start from the OnRequest hook,
// before Colly's LimitRule takes a parallelism slot, and waits there while
// the answer is "not yet"; right before the wire the gate asks once more
// with the same token, which confirms the start at the moment it really
// happens (a worker that became late pushes the fleet's next start back).
// With a Claimer the gate's call also claims the host for the fleet until
// the request's response headers (or its error) come and it is unclaimed:
// the next start anywhere counts from then, which the server saw after
// the request, however late this worker ran before the wire (the wire
// claim). It also keeps the rules that keep the fleet polite when the Backend
// misbehaves: every wait it returns is checked against the delay, stored
// state it had to repair is counted and logged, a failed call is answered
// by local pacing from this worker's own latest start, and for a while
// after an outage each worker keeps to its own share of the host's rate.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"
	"time"
)

// anomalySlack is how much longer than the delay (plus gateMargin) a wait
// returned by Starter.Start may be before it is treated as corrupt state:
// the clocks of the worker and the backend may disagree a little.
const anomalySlack = time.Second

// recoveryShare is how long after a failed Backend call each worker keeps
// to its own share of every paced host (delay × fleet size since its own
// latest start) on top of what the Backend grants: the other workers may
// still pace locally until their own cool-down (backendCooldown) ends, and
// the fleet's total must stay within the delay meanwhile. It spans one
// cool-down of this worker and one of the latest of the others.
const recoveryShare = 2 * backendCooldown

// grantsSweepAt is how many recorded grants make the pacer drop those
// older than maxClaim (keepGrant).
const grantsSweepAt = 1024

// errFallback tells the caller to pace this request locally: the Backend
// failed or returned a wait that cannot be right.
var errFallback = errors.New("robotsext: pace locally")

// wireClaim is how long a request's fleet-wide claim (Claimer.Claim) lasts
// when its Unclaim never comes (its worker died, or the backend was away
// when it ended): the host waits for it that long at most. Every worker
// passes the same ttl, which lets a Backend tell a broken claim.
const wireClaim = 5 * time.Second

// grant is a start the Backend granted to a request under token: in the
// OnRequest hook, to be confirmed at the gate with the same token
// (pacer.grants), or at the gate by a Claimer, which the request claims
// host key for the fleet with until it ends (pacer.fleetClaims).
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

// shared reports whether fleet pacing through a Starter is in force now.
func (pc *pacer) shared() bool {
	return pc.starter != nil && (pc.backendUp == nil || pc.backendUp())
}

// acquire waits until the Backend grants request tok a start on host, or
// the context ends. It runs in the OnRequest hook, outside Colly's
// parallelism slots. Requests of this process to one host ask one at a
// time (h.acq), so that a queue of them costs one Backend call per delay,
// not one per queued request. When the Backend fails, the request is paced
// locally at the fleet's share instead. A nil tok (a redirect hop, which
// asks at the gate) asks nothing here.
// paced reports whether host had a pace to wait for.
func (pc *pacer) acquire(ctx context.Context, host string, tok any) (paced bool, err error) {
	if tok == nil {
		return false, ctx.Err()
	}
	key := hostKey(host)
	pc.mu.Lock()
	h := pc.hosts[key]
	if h == nil {
		pc.mu.Unlock()
		return false, ctx.Err()
	}
	acq := h.acq
	h.waiting++
	pc.mu.Unlock()
	defer pc.waiter(key, -1)
	select {
	case acq <- struct{}{}:
	case <-ctx.Done():
		return true, ctx.Err()
	}
	defer func() { <-acq }()

	if err := pc.keepShare(ctx, key); err != nil {
		return true, err
	}
	btok := pc.newToken()
	for {
		delay := pc.delayOfKey(key)
		if delay == 0 {
			return true, ctx.Err() // the host is no longer paced
		}
		w, err := pc.startShared(ctx, key, btok, delay)
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
// yet". With a Claimer the start also claims the host for the fleet until the request
// ends (ended) or is redirected (land). When the Backend fails it waits
// instead until delay × fleet size after prev, this worker's own latest
// start before this one. It returns the context's error when ctx ends
// first.
func (pc *pacer) confirm(ctx context.Context, key string, tok any, delay time.Duration, prev time.Time) error {
	btok := pc.takeGrant(tok)
	if btok == "" {
		btok = pc.newToken()
	}
	for {
		var w time.Duration
		var err error
		if pc.claimer != nil {
			w, err = pc.claimShared(ctx, key, btok, delay)
		} else {
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
		}
		if err := pc.sleep(ctx, w); err != nil {
			return err
		}
	}
}

// claimShared makes one Claimer.Claim call for key and checks its answer as
// startShared does. The delay counts from the latest unclaim, which comes
// after the server saw the request, so it needs no gateMargin.
func (pc *pacer) claimShared(ctx context.Context, key, btok string, delay time.Duration) (time.Duration, error) {
	pc.retryUnclaim(ctx, key)
	w, repaired, err := pc.claimer.Claim(ctx, key, btok, delay, wireClaim)
	return pc.checkShared(ctx, key, delay, w, repaired, err)
}

// startShared makes one Starter.Start call for key and checks its answer.
// It returns errFallback when the call failed (reported through onErr) or
// its wait is longer than any state the Backend may rightly keep (counted
// and logged as an anomaly), and the context's error when ctx ended.
// Starts are spaced by the delay plus gateMargin, for the time between a
// worker's gate and the wire, which the other workers cannot see; with a
// Claimer they are spaced by the delay alone, since the claim at the gate
// waits for the previous request's answer.
func (pc *pacer) startShared(ctx context.Context, key, btok string, delay time.Duration) (time.Duration, error) {
	spacing := delay
	if pc.claimer == nil {
		spacing += gateMargin(delay)
	} else {
		pc.retryUnclaim(ctx, key)
	}
	w, repaired, err := pc.starter.Start(ctx, key, btok, spacing)
	return pc.checkShared(ctx, key, delay, w, repaired, err)
}

// checkShared checks the answer (w, repaired, err) of a Start or Claim
// call for key: see startShared.
func (pc *pacer) checkShared(ctx context.Context, key string, delay, w time.Duration, repaired bool, err error) (time.Duration, error) {
	spacing := delay + gateMargin(delay)
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		if pc.onErr != nil {
			pc.onErr(err)
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

// recordStart records, through the Starter, a start on host key that
// waits for nothing (the robots.txt request, the host's first request
// fleet-wide), and reports a pace the Backend had to repair on the way.
func (pc *pacer) recordStart(ctx context.Context, key string) error {
	_, repaired, err := pc.starter.Start(ctx, key, pc.newToken(), 0)
	if err == nil && repaired {
		pc.repaired(key)
	}
	return err
}

// repaired reports that the Backend found the pace of host key unreadable
// or in the future and replaced it: an anomaly (counted, and logged once
// per host).
func (pc *pacer) repaired(key string) {
	pc.anomaly(key, "the backend's pace for the host was unreadable or in the future and was replaced", 0)
}

// anomaly counts shared state that cannot be right and logs it at Warn,
// once per host.
func (pc *pacer) anomaly(key, what string, wait time.Duration) {
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

// keepShare waits, while the fleet recovers from a Backend outage (see
// recoveryShare), until delay × fleet size after this worker's latest
// start on host key.
func (pc *pacer) keepShare(ctx context.Context, key string) error {
	if pc.recovering == nil || !pc.recovering() {
		return nil
	}
	pc.mu.Lock()
	h := pc.hosts[key]
	var d time.Duration
	if h != nil {
		d = h.lastStart.Add(h.delay * time.Duration(pc.fleetSize())).Sub(pc.now())
	}
	pc.mu.Unlock()
	if d <= 0 {
		return nil
	}
	return pc.sleep(ctx, d)
}

// delayOfKey returns the delay of the host with key, 0 when not paced.
func (pc *pacer) delayOfKey(key string) time.Duration {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if h := pc.hosts[key]; h != nil {
		return h.delay
	}
	return 0
}

// grantTo records that request tok was granted a start under btok.
func (pc *pacer) grantTo(tok any, btok string) {
	now := pc.now()
	pc.mu.Lock()
	keepGrant(pc.grants, tok, grant{token: btok, at: now})
	pc.mu.Unlock()
}

// takeGrant returns and forgets the token of request tok's grant, "" when
// it has none.
func (pc *pacer) takeGrant(tok any) string {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	g, ok := pc.grants[tok]
	if !ok {
		return ""
	}
	delete(pc.grants, tok)
	return g.token
}

// fleetClaimed records that request tok claims host key for the fleet
// under btok.
func (pc *pacer) fleetClaimed(tok any, key, btok string) {
	now := pc.now()
	pc.mu.Lock()
	keepGrant(pc.fleetClaims, tok, grant{key: key, token: btok, at: now})
	pc.mu.Unlock()
}

// land unclaims the host request tok claimed for the fleet, if any: its
// answer (a redirect) came. A failed Unclaim is reported through onErr and
// made again later (unclaim). The Unclaim is made even when ctx has ended,
// bounded by the Backend's own timeout.
func (pc *pacer) land(ctx context.Context, tok any) {
	if pc.claimer == nil {
		return
	}
	pc.mu.Lock()
	f, ok := pc.fleetClaims[tok]
	if ok {
		delete(pc.fleetClaims, tok)
	}
	pc.mu.Unlock()
	if ok {
		pc.unclaim(context.WithoutCancel(ctx), f)
	}
}

// unclaim makes the Claimer.Unclaim call for the fleet-wide claim f. When
// it fails (reported through onErr), or the backend is known to be away,
// f is kept in unclaimLater and unclaimed again before this worker's
// next call about the host (retryUnclaim): the fleet would otherwise wait
// for the claim to expire (wireClaim) after an outage that swallowed the
// Unclaim.
func (pc *pacer) unclaim(ctx context.Context, f grant) {
	if pc.shared() {
		err := pc.claimer.Unclaim(ctx, f.key, f.token)
		if err == nil {
			return
		}
		if pc.onErr != nil {
			pc.onErr(err)
		}
	}
	pc.mu.Lock()
	if pc.hosts[f.key] != nil { // a host no longer paced needs no Unclaim
		pc.unclaimLater[f.key] = f
	}
	pc.mu.Unlock()
}

// retryUnclaim makes again the Unclaim of host key that failed, if any;
// see unclaim.
func (pc *pacer) retryUnclaim(ctx context.Context, key string) {
	pc.mu.Lock()
	f, ok := pc.unclaimLater[key]
	delete(pc.unclaimLater, key)
	pc.mu.Unlock()
	if ok {
		pc.unclaim(ctx, f)
	}
}

// ended records that request tok ended: its local claim ends (doneToken),
// then its fleet-wide one, if any. It takes no lock when no
// host is paced.
func (pc *pacer) ended(ctx context.Context, tok any) {
	if f, ok := pc.doneToken(tok); ok {
		pc.unclaim(context.WithoutCancel(ctx), f)
	}
}

// newToken returns a token no other request of the fleet uses: this
// pacer's random prefix and a sequence number.
func (pc *pacer) newToken() string {
	return pc.tokPrefix + strconv.FormatUint(pc.tokSeq.Add(1), 36)
}

// newTokenPrefix returns 8 random bytes in hex and a dash.
func newTokenPrefix() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:]) + "-"
}
