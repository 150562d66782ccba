package pacing

// This file ends the claim of a request the client gave up on: a timeout
// of the client's ends the request on this side only, and the server may
// still be working on it.

import (
	"context"
	"errors"
	"net"
)

// EndedErr is Ended for request tok, which failed with err before its
// response headers came. When err is a timeout (Colly's request timeout,
// a dial or header timeout), the host's claim ends as though its answer
// had come as late again as the request had been out: the next request
// passes no earlier than its delay after twice that time, so that a
// server slower than the client's timeout, likely still working on the
// request, is not sent the next one (a retry of it, say) right away.
func (pc *Pacer) EndedErr(ctx context.Context, tok any, err error) {
	if timedOut(err) && pc.npaced.Load() > 0 {
		pc.mu.Lock()
		if key, ok := pc.claims[tok]; ok {
			if h := pc.hosts[key]; h != nil && h.busy && h.claimant == tok {
				now := pc.now()
				h.doneAt = later(h.doneAt, now.Add(max(now.Sub(h.claimedAt), 0)))
			}
		}
		pc.mu.Unlock()
	}
	pc.Ended(ctx, tok)
}

// timedOut reports whether err says that time ran out, not that the
// request was refused or broken.
func timedOut(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded)
}
