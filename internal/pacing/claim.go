package pacing

// This file is the wire claim a Backend that is a Claimer keeps for the
// fleet: the gate's call (confirm) claims the host fleet-wide until the
// request's response headers (or its error) come and it is unclaimed, so
// that the next start anywhere counts from then, which the server saw
// after the request, however late this worker ran before the wire.

import (
	"context"
	"time"
)

// WireClaim is how long a request's fleet-wide claim (Claimer.Claim) lasts
// when its Unclaim never comes (its worker died, or the Backend was away
// when it ended): the host waits for it that long at most. Every worker
// passes the same ttl, which lets a Backend tell a broken claim.
const WireClaim = 5 * time.Second

// claimShared makes one Claimer.Claim call for key and checks its answer as
// startShared does. The delay counts from the latest unclaim, which comes
// after the server saw the request, so it needs no gateMargin.
func (pc *Pacer) claimShared(ctx context.Context, key, btok string, delay time.Duration) (time.Duration, error) {
	pc.retryUnclaim(ctx, key)
	var w time.Duration
	var repaired bool
	err := pc.callShared(ctx, func() (err error) {
		w, repaired, err = pc.claimer.Claim(ctx, key, btok, delay, WireClaim)
		return err
	})
	return pc.checkShared(ctx, key, delay, w, repaired, err)
}

// fleetClaimed records that request tok claims host key for the fleet
// under btok.
func (pc *Pacer) fleetClaimed(tok any, key, btok string) {
	now := pc.now()
	pc.mu.Lock()
	keepGrant(pc.fleetClaims, tok, grant{key: key, token: btok, at: now})
	pc.mu.Unlock()
}

// Land unclaims the host request tok claimed for the fleet, if any: its
// answer (a redirect) came. A failed Unclaim is reported to Health and
// made again later (unclaim). The Unclaim is made even when ctx has ended,
// bounded by the Backend's own timeout.
func (pc *Pacer) Land(ctx context.Context, tok any) {
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
// it fails (reported to Health), or the backend is known to be away,
// f is kept in unclaimLater and unclaimed again before this worker's
// next call about the host (retryUnclaim): the fleet would otherwise wait
// for the claim to expire (WireClaim) after an outage that swallowed the
// Unclaim.
func (pc *Pacer) unclaim(ctx context.Context, f grant) {
	if pc.shared(f.key) {
		err := pc.claimer.Unclaim(ctx, f.key, f.token)
		if err == nil {
			return
		}
		failed(pc.health, err)
	}
	pc.mu.Lock()
	if pc.hosts[f.key] != nil { // a host no longer paced needs no Unclaim
		pc.unclaimLater[f.key] = f
	}
	pc.mu.Unlock()
}

// retryUnclaim makes again the Unclaim of host key that failed, if any;
// see unclaim.
func (pc *Pacer) retryUnclaim(ctx context.Context, key string) {
	pc.mu.Lock()
	f, ok := pc.unclaimLater[key]
	delete(pc.unclaimLater, key)
	pc.mu.Unlock()
	if ok {
		pc.unclaim(ctx, f)
	}
}

// Ended records that request tok ended (its response headers came, or it
// failed): its local claim ends, then its fleet-wide one, if any, and it
// is forgotten. It takes no lock while no host is paced and no request is
// tracked.
func (pc *Pacer) Ended(ctx context.Context, tok any) {
	if f, ok := pc.doneToken(tok); ok {
		pc.unclaim(context.WithoutCancel(ctx), f)
	}
}
