package pacing

// This file paces the robots.txt requests themselves: a fetch of a paced
// host's robots.txt (after Forget, or on expiry) waits for the host's
// delay as any other request to the host does (PaceFetch), and a fetch
// this process made counts as the host's latest start, also fleet-wide
// (Fetched).

import "context"

// PaceFetch waits until a robots.txt request to host may go out: while
// another request of this process claims the host (gate.go), for its
// response headers, but at most one delay; then until delay after the
// latest request to the host started, after the latest response
// headers came and after the latest turn given (turn.go) (the delay times the fleet size while a Backend fails, as
// at the gate), plus a jitter of up to a tenth of it. It then records the
// request as the host's latest start, and returns at once for hosts
// without a delay. The wait for the claim
// is bounded because a redirect hop whose origin's robots.txt is fetched
// keeps its chain's claim until that fetch ends.
func (pc *Pacer) PaceFetch(ctx context.Context, host string) error {
	if pc.npaced.Load() == 0 {
		return ctx.Err()
	}
	key := HostKey(host)
	claimWait := false
	u := pc.random() // this start's jitter, as a share of the delay
	for {
		pc.mu.Lock()
		h := pc.hosts[key]
		if h == nil {
			pc.mu.Unlock()
			return ctx.Err()
		}
		now := pc.now()
		delay := h.delay * pc.localFactor(key)
		if h.busy && !claimWait && now.Sub(h.claimedAt) < maxClaim {
			claimWait = true
			idle := h.idleLocked()
			pc.mu.Unlock()
			if err := waitIdle(ctx, idle, delay); err != nil {
				return err
			}
			continue
		}
		gap := delay + jitterOf(delay, u)
		start := later(now, h.lastStart.Add(gap), h.doneAt.Add(gap), h.passAt.Add(gap))
		if !start.After(now) {
			pc.started(h, now)
			pc.mu.Unlock()
			return ctx.Err()
		}
		pc.mu.Unlock()
		if err := pc.sleep(ctx, start.Sub(now)); err != nil {
			return err
		}
	}
}

// Fetched records that this process sent host's robots.txt request, whose
// answer Loaded has just installed: with a working Backend it is the
// host's latest start fleet-wide, so that the fleet's first page waits the
// delay after it. A failed Backend call is reported to Health, unless ctx
// ended. Hosts without a delay cost nothing.
func (pc *Pacer) Fetched(ctx context.Context, host string) {
	if pc.backend == nil {
		return
	}
	d := pc.Delay(host)
	key := HostKey(host)
	if d <= 0 || !up(pc.health, key) {
		return
	}
	var err error
	if pc.starter != nil {
		err = pc.recordStart(ctx, key)
	} else {
		_, err = pc.backend.Reserve(ctx, key, d+gateMargin(d))
	}
	if err != nil && ctx.Err() == nil {
		failed(pc.health, err)
	}
}

// recordStart records, through the Starter, a start on host key that
// waits for nothing (the robots.txt request, the host's first request
// fleet-wide), and reports a pace the Backend had to repair on the way.
func (pc *Pacer) recordStart(ctx context.Context, key string) error {
	_, repaired, err := pc.starter.Start(ctx, key, pc.names.next(), 0)
	if err == nil && repaired {
		pc.repaired(key)
	}
	return err
}
