package backend

// This file defines what a fleet of many workers needs beyond Claimer and
// Pauser: a queue per host, so that the requests waiting for one host ask
// the backend about once each instead of at every delay; the host's
// back-off reported with each answer, so that a pause is learnt from the
// calls requests make anyway; and a log of the pauses begun, read
// incrementally, for hosts whose requests make no call.

import (
	"context"
	"time"
)

// PausePhase is where a host is in its fleet-wide back-off (Pauser).
type PausePhase uint8

const (
	// PhaseHealthy: the host has no back-off state.
	PhaseHealthy PausePhase = iota
	// PhasePaused: no request may start before the pause ends.
	PhasePaused
	// PhaseProbing: the pause has ended; one request (the probe) may go,
	// the others wait for its answer.
	PhaseProbing
	// PhaseRecovering: the probe was answered well; starts are spaced by
	// a gap that halves with each good answer.
	PhaseRecovering
)

// String names the phase as Pauser's doc does.
func (p PausePhase) String() string {
	switch p {
	case PhasePaused:
		return "paused"
	case PhaseProbing:
		return "probing"
	case PhaseRecovering:
		return "recovering"
	default:
		return "healthy"
	}
}

// PauseState is a host's back-off as a Queuer saw it while answering.
type PauseState struct {
	Phase PausePhase
	// Wait is how long the phase still holds the host: the rest of the
	// pause (PhasePaused), until the probe expires (PhaseProbing), until
	// the next start of the recovery may go (PhaseRecovering); 0 when it
	// has passed or the host is healthy.
	Wait time.Duration
	// Probe reports that the token that asked is the host's probe: its
	// answer goes to Pauser.Answered under the same token (or, when it
	// is an overload, to Pauser.Pause).
	Probe bool
}

// Turn is a Queuer's answer to a request that asked to start (Queue) or
// to go on the wire (ClaimTurn).
type Turn struct {
	// Wait is 0 when the request may go now. Otherwise it may not yet,
	// and Wait is when to ask again.
	Wait time.Duration
	// Ticket is the request's place in the host's queue (Queue only), to
	// be given back when it asks again; 0 when the request holds none (a
	// pause emptied the queue, or the answer is ClaimTurn's).
	Ticket int64
	// Ahead is how many tickets before the request's own had not started
	// when it was answered (Queue only).
	Ahead int64
	// Repaired reports state the backend could not read and replaced, as
	// Starter's does.
	Repaired bool
	// Pause is the host's back-off, read in the same step as the pace:
	// the zero PauseState when it has none, or the backend is not a
	// Pauser.
	Pause PauseState
}

// Queuer is implemented by Claimers that keep, per host, a first-come
// first-served queue of the requests waiting to start, and that answer
// for the host's back-off in the same step when they are Pausers too. The
// package doc says what it buys and when the Extension uses it. A request
// asks Queue when it is ready (in the OnRequest hook) and again, with the
// ticket it was given, when its Wait has passed, until it is granted;
// right before the wire it calls ClaimTurn instead of Claim, and Unclaim
// once its response headers (or its error) came.
//
// A Queuer keeps, per host, besides a Claimer's state, the last ticket it
// gave out, the last one that started, and its service time: how long
// requests took from their start (Queue's grant, or the claim) to their
// Unclaim, erring short (it starts at 0; a
// shorter time replaces it, a longer one moves it an eighth of the way), so that
// queued requests come back early and ask once more rather than late,
// which would leave the host idle. A host's step is its delay plus its
// service time, the service time counted up to the delay. Queue, timed by
// the backend's clock:
//
//   - gives a request asking without a ticket (0), or with one the
//     backend no longer knows (its state expired or was repaired), the
//     next ticket; Ticket is the request's ticket;
//   - computes when the host is ready: at least delay after the latest
//     unclaim; unless token owns the latest start, at least delay after
//     it, and a step after it while it has not been answered (claimed or
//     not); and, while another token's claim is in force, not before a
//     step after the latest start nor before a delay from now (the next
//     start comes a delay after an Unclaim still to come);
//   - grants (Wait 0), recording (now, token) as the latest start as
//     Start does, when delay is 0 or when the request's turn has come:
//     the host's readiness plus one step per ticket ahead (Ahead: tickets
//     before the request's own that have not started). A ticket whose
//     request never comes back (it was cancelled, its worker died) thus
//     holds the queue back by a step at most;
//   - otherwise grants nothing, and Wait is until the turn (at least a
//     millisecond). Outside a back-off it is at most Ahead steps past the
//     host's readiness, itself at most a step away, so each waiting
//     request asks again about once, when its turn comes (twice when it
//     came early), rather than at every delay, however many wait.
//
// A Queuer that is also a Pauser answers, in the same step, for the
// host's back-off as Pauser.Ask would for token, and reports it in Pause:
//
//   - while the host is paused Queue grants nothing, Wait is the rest of
//     the pause, and the queue is emptied: Ticket is 0 and every ticket
//     given before counts as started, so the requests queue again after
//     the pause;
//   - once the pause has ended, the first token to ask (Queue, ClaimTurn
//     or Ask) becomes the probe (Pause.Probe) and goes through the pace
//     as any request; the others are not granted and take no ticket
//     (they go back to wait for the probe's answer, and queue when they
//     ask again), and Wait is the longer of a step and the recovery's
//     first gap;
//   - while the host recovers, its next start waits for the recovery's
//     gap as well as for its readiness (the places behind stay a step
//     apart: the gap halves with each good answer), and a grant counts
//     as the recovery's start.
//
// ClaimTurn is Claim, in the same step refusing the wire while the host
// is paused (Wait is the rest of the pause) or probed by another token
// (Wait is until that probe expires; the caller goes back to Queue or
// Ask), making token the probe when the pause has ended and nobody
// probes, and reporting the back-off in Pause. It does not hold back a
// recovering host: Queue spaced the request's start. Unclaim also
// records the service time of the claim it ends, when the claim's start
// is the host's latest.
type Queuer interface {
	Claimer
	// Queue asks for request token's turn to start on host, with the
	// ticket an earlier answer gave it (0 the first time); ttl is the one
	// the caller gives ClaimTurn, by which a claim that cannot be right
	// is told (as Claim tells it: it is dropped, and Repaired is true);
	// see the type's doc.
	Queue(ctx context.Context, host, token string, ticket int64, delay, ttl time.Duration) (Turn, error)
	// ClaimTurn is Claim reporting the host's back-off, and refusing
	// while it is paused or probed by another token; see the type's doc.
	ClaimTurn(ctx context.Context, host, token string, delay, ttl time.Duration) (Turn, error)
}

// PauseWatcher is implemented by Pausers that log each pause they start,
// so that every worker learns of the fleet's new pauses, hosts its
// requests make no Backend call about included, with a read whose cost
// does not grow with the number of hosts paused (Pauser.Paused lists
// them all, up to a bound, at each call).
type PauseWatcher interface {
	Pauser
	// PausesSince returns hosts whose back-off began after cursor, at
	// most max of them, the cursor to give next, and whether more are to
	// be read now. The cursor "" starts a full read: every host with a
	// back-off state, page by page; the calls after it return the pauses
	// begun since the read started (those it did not already list). A cursor the backend can no longer follow (its log no
	// longer reaches back to it, or its state was lost) starts a full
	// read again. A host may be returned more than once. A call when no
	// pause began since cursor costs one cheap read, however many hosts
	// are paused.
	PausesSince(ctx context.Context, cursor string, max int) (hosts []string, next string, more bool, err error)
}
