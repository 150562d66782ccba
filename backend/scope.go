package backend

import (
	"context"
	"errors"
)

// Scoper is implemented by a Backend made of parts that fail alone, such
// as the masters of a Redis Cluster: a part that fails costs only the
// hosts it serves. The Extension then keeps the fallback (local robots.txt
// fetches and local pacing) to the hosts of the failing part, asks that
// part whether it answers again about once a second (Probe), and returns
// its hosts to the shared state as soon as it does, or as soon as another
// part serves them (a replica promoted in its place). A Backend that is
// not a Scoper fails as a whole.
type Scoper interface {
	// Scope names the part of the backend that serves host's state now,
	// such as the address of the node holding the host's slot; "" when
	// it cannot tell (the whole backend). It makes no call and is cheap:
	// it is asked on the paced path while some part is failing.
	Scope(host string) string
	// Probe reports whether the part named scope answers now: nil when it
	// does, or when it serves no host any more (its hosts moved to
	// another part), and the error otherwise; with scope "", whether the
	// backend as a whole answers (a call that failed with an error that
	// names no part may be the call's alone). It makes a few calls at
	// most, each bounded as any other call of the Backend.
	Probe(ctx context.Context, scope string) error
}

// ScopeError is an error of a Scoper's call confined to one part of the
// backend, named by Scope as Scoper.Scope names it. Errors that are not
// ScopeErrors concern the whole backend.
type ScopeError struct {
	Scope string // the part that failed
	Err   error  // what failed
}

// Error returns the error's message.
func (e *ScopeError) Error() string { return e.Err.Error() }

// Unwrap returns the error the part failed with.
func (e *ScopeError) Unwrap() error { return e.Err }

// ScopeOf returns the part of the backend err is confined to (a
// ScopeError's Scope anywhere in its chain), "" for the whole backend.
func ScopeOf(err error) string {
	var se *ScopeError
	if errors.As(err, &se) {
		return se.Scope
	}
	return ""
}
