package robotsext

// This file paces a host across a fleet through a Backend that implements
// Starter. A request asks the Backend to start from the OnRequest hook,
// before Colly's LimitRule takes a parallelism slot, and waits there while
// the answer is "not yet"; right before the wire the gate asks once more
// with the same token, which confirms the start at the moment it really
// happens (a worker that became late pushes the fleet's next start back).
// With a Holder the gate's call also holds the host for the fleet until
// the request's response headers (or its error) come and the hold is
// released: the next start anywhere counts from then, which the server
// saw after the request, however late this worker ran before the wire.
// It also holds the rules that keep the fleet polite when the Backend
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
// older than maxHold (keepGrant).
const grantsSweepAt = 1024

// errFallback tells the caller to pace this request locally: the Backend
// failed or returned a wait that cannot be right.
var errFallback = errors.New("robotsext: pace locally")

// wireHold is how long a request's fleet-wide hold (Holder.Hold) lasts
// when its release never comes (its worker died, or the backend was away
// when it ended): the host waits for it that long at most. Every worker
// passes the same hold, which lets a Backend tell a broken one.
const wireHold = 5 * time.Second

// grant is a start the Backend granted to a request under token: in the
// OnRequest hook, to be confirmed at the gate with the same token
// (pacer.grants), or at the gate by a Holder, which holds host key for the
// fleet until the request ends (pacer.flights).
type grant struct {
	key   string // the host's key (flights only)
	token string
	at    time.Time
}

// keepGrant stores g as request tok's in m. Once m holds grantsSweepAt
// grants it first drops those older than maxHold: a request aborted after
// its grant may never reach the place that takes it. pc.mu must be held.
func keepGrant(m map[any]grant, tok any, g grant) {
	if len(m) >= grantsSweepAt {
		for k, old := range m {
			if g.at.Sub(old.at) > maxHold {
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
// with the token of its grant when it has one; it waits (holding the
// host, at most about a delay) while the Backend says "not yet". With a
// Holder the start also holds the host for the fleet until the request
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
		if pc.holder != nil {
			w, err = pc.holdShared(ctx, key, btok, delay)
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
			if pc.holder != nil {
				pc.flew(tok, key, btok)
			}
			return nil
		}
		if err := pc.sleep(ctx, w); err != nil {
			return err
		}
	}
}

// holdShared makes one Holder.Hold call for key and checks its answer as
// startShared does. The delay counts from the latest release, which comes
// after the server saw the request released, so it needs no gateMargin.
func (pc *pacer) holdShared(ctx context.Context, key, btok string, delay time.Duration) (time.Duration, error) {
	pc.retryRelease(ctx, key)
	w, repaired, err := pc.holder.Hold(ctx, key, btok, delay, wireHold)
	return pc.checkShared(ctx, key, delay, w, repaired, err)
}

// startShared makes one Starter.Start call for key and checks its answer.
// It returns errFallback when the call failed (reported through onErr) or
// its wait is longer than any state the Backend may rightly hold (counted
// and logged as an anomaly), and the context's error when ctx ended.
// Starts are spaced by the delay plus gateMargin, for the time between a
// worker's gate and the wire, which the other workers cannot see; with a
// Holder they are spaced by the delay alone, since the hold at the gate
// waits for the previous request's answer.
func (pc *pacer) startShared(ctx context.Context, key, btok string, delay time.Duration) (time.Duration, error) {
	spacing := delay
	if pc.holder == nil {
		spacing += gateMargin(delay)
	} else {
		pc.retryRelease(ctx, key)
	}
	w, repaired, err := pc.starter.Start(ctx, key, btok, spacing)
	return pc.checkShared(ctx, key, delay, w, repaired, err)
}

// checkShared checks the answer (w, repaired, err) of a Start or Hold
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

// flew records that request tok holds host key for the fleet under btok.
func (pc *pacer) flew(tok any, key, btok string) {
	now := pc.now()
	pc.mu.Lock()
	keepGrant(pc.flights, tok, grant{key: key, token: btok, at: now})
	pc.mu.Unlock()
}

// land releases the fleet-wide hold request tok has, if any: its answer
// (a redirect) came. A failed release is reported through onErr and made
// again later (release). The release is made even when ctx has ended,
// bounded by the Backend's own timeout.
func (pc *pacer) land(ctx context.Context, tok any) {
	if pc.holder == nil {
		return
	}
	pc.mu.Lock()
	f, ok := pc.flights[tok]
	if ok {
		delete(pc.flights, tok)
	}
	pc.mu.Unlock()
	if ok {
		pc.release(context.WithoutCancel(ctx), f)
	}
}

// release makes the Holder.Release call for the hold f. When it fails
// (reported through onErr), or the backend is known to be away, f is kept
// as the host's unreleased hold and released again before this worker's
// next call about the host (retryRelease): the fleet would otherwise wait
// for the hold to expire (wireHold) after an outage that swallowed the
// release.
func (pc *pacer) release(ctx context.Context, f grant) {
	if pc.shared() {
		err := pc.holder.Release(ctx, f.key, f.token)
		if err == nil {
			return
		}
		if pc.onErr != nil {
			pc.onErr(err)
		}
	}
	pc.mu.Lock()
	if pc.hosts[f.key] != nil { // a host no longer paced needs no release
		pc.unreleased[f.key] = f
	}
	pc.mu.Unlock()
}

// retryRelease releases again the hold of host key whose release failed,
// if any; see release.
func (pc *pacer) retryRelease(ctx context.Context, key string) {
	pc.mu.Lock()
	f, ok := pc.unreleased[key]
	delete(pc.unreleased, key)
	pc.mu.Unlock()
	if ok {
		pc.release(ctx, f)
	}
}

// ended records that request tok ended: its local hold is released
// (doneToken), then its fleet-wide one, if any. It takes no lock when no
// host is paced.
func (pc *pacer) ended(ctx context.Context, tok any) {
	if f, ok := pc.doneToken(tok); ok {
		pc.release(context.WithoutCancel(ctx), f)
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
