package pacing

// This file paces a host across a fleet through a Backend that is a
// backend.Queuer: the request that asks for this process (one per host at
// a time, as with a Starter) takes a ticket in the host's queue and comes
// back when its turn is near, rather than at every delay, so that a
// host's calls per request stay flat however many workers wait for it;
// at the gate it claims the wire with ClaimTurn. Each answer carries the
// host's fleet-wide back-off, which goes to the Backoff (fleetTurn): a
// request that the Backend holds back for a pause returns ErrPaused, and
// the caller sends it back to wait in Admit.

import (
	"context"
	"errors"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// ErrPaused is returned by Wait and Gate when the fleet's Backend holds
// the request back for its host's back-off (paused, or probed by another
// request): the request must wait in Backoff.Admit, which now knows of the
// pause, and ask again.
var ErrPaused = errors.New("robotsext: the host is paused for the fleet")

// turnGapCap bounds a recovery's gap, which a Queuer's wait may add per
// ticket ahead (pause.MaxFirstGap).
const turnGapCap = 5 * time.Second

// queued reports whether requests to host are paced through a Queuer now,
// whose answers carry the host's back-off: Admit then lets the request
// that asks for this process go on to Wait, which asks.
func (pc *Pacer) queued(host string) bool {
	return pc != nil && pc.queuer != nil && up(pc.health, HostKey(host)) && pc.Delay(host) > 0
}

// acquireQueued is acquire with a Queuer, for request tok (its btok in the
// Backend): it asks Queue with the request's ticket until granted, sleeping
// each wait between. The queue's step is the delay plus this start's jitter
// (u, a share of jitterShare), so that the fleet's starts do not fall in
// lock-step either. It returns errFallback when a call failed or an
// answer cannot be right, and ErrPaused when the Backend holds the
// request back for the host's back-off.
func (pc *Pacer) acquireQueued(ctx context.Context, key string, tok any, btok string, u float64) error {
	var ticket int64
	for {
		delay := pc.delayOfKey(key)
		if delay == 0 {
			return ctx.Err() // the host is no longer paced
		}
		if pc.backoff != nil && pc.backoff.pausedFor(key) {
			// Another request of this process learnt that the host is
			// paused: no need to ask.
			return ErrPaused
		}
		if err := pc.localFree(ctx, key); err != nil { // giveback.go
			return err
		}
		pc.retryUnclaim(ctx, key)
		var turn backend.Turn
		err := pc.callShared(ctx, func() (err error) {
			turn, err = pc.queuer.Queue(ctx, key, btok, ticket, delay+jitterOf(delay, u), WireClaim)
			return err
		})
		if err := pc.checkTurn(ctx, key, delay, turn, err); err != nil {
			return err
		}
		if held := pc.tellBackoff(key, tok, btok, turn.Pause); held {
			return ErrPaused
		}
		if turn.Wait <= 0 {
			pc.grantTo(tok, btok)
			return nil
		}
		ticket = turn.Ticket
		if err := pc.sleep(ctx, turn.Wait); err != nil {
			return err
		}
	}
}

// claimTurn makes one ClaimTurn call for key at the gate, for request tok
// under btok, and checks its answer: ErrPaused when the Backend holds the
// request back for the host's back-off, errFallback as claimShared.
func (pc *Pacer) claimTurn(ctx context.Context, key string, tok any, btok string, delay time.Duration) (time.Duration, error) {
	pc.retryUnclaim(ctx, key)
	var turn backend.Turn
	err := pc.callShared(ctx, func() (err error) {
		turn, err = pc.queuer.ClaimTurn(ctx, key, btok, delay, WireClaim)
		return err
	})
	if err == nil && pc.tellBackoff(key, tok, btok, turn.Pause) {
		return 0, ErrPaused
	}
	return pc.checkShared(ctx, key, delay, turn.Wait, turn.Repaired, err)
}

// checkTurn checks a Queue answer for key as checkShared does a Start's:
// a failed call or a wait longer than the queue allows (Ahead + 1 steps of
// at most twice the delay, and a recovery's gap, and anomalySlack) sends
// the request to local pacing (errFallback), a repair is counted. A wait
// for the host's pause is the Backoff's to bound.
func (pc *Pacer) checkTurn(ctx context.Context, key string, delay time.Duration, turn backend.Turn, err error) error {
	if err != nil { // reported by callShared
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return errFallback
	}
	if turn.Repaired {
		pc.repaired(key)
	}
	step := 2 * delay
	switch turn.Pause.Phase {
	case backend.PhasePaused:
		return nil
	case backend.PhaseProbing, backend.PhaseRecovering:
		step += turnGapCap
	}
	if limit := time.Duration(max(turn.Ahead, 0)+1)*step + anomalySlack; turn.Wait > limit {
		pc.anomaly(key, "the backend asked for a wait longer than the host's queue allows; paced locally instead", turn.Wait)
		return errFallback
	}
	return nil
}

// tellBackoff gives the host's back-off in a Queuer's answer to the
// Backoff, and reports whether the request is to wait for it in Admit
// (the host is paused, or probed by another request). Without a Backoff
// that shares the fleet's pauses (the back-off is off, or in shadow
// mode) nothing waits in Admit: the request sleeps the answer's wait
// where it asked, and asks again.
func (pc *Pacer) tellBackoff(key string, tok any, btok string, st backend.PauseState) (held bool) {
	if pc.backoff == nil {
		return false
	}
	pc.backoff.fleetTurn(key, tok, btok, st)
	return !pc.backoff.shadow && (st.Phase == backend.PhasePaused || (st.Phase == backend.PhaseProbing && !st.Probe))
}
