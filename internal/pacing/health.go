package pacing

import "context"

// Health is what the pacing is told of its Backend by the Extension, which
// tracks every Backend call (robots.txt records too): whether the Backend
// may be tried now for a host, whether the fleet is still recovering from
// a recent failure there, and where to report a failed call. A Backend
// made of parts that fail alone (backend.Scoper) is judged per part: a
// host is answered locally only while the part serving it fails. A nil
// Health is a Backend that is always up.
type Health interface {
	// Up reports whether the Backend may be tried now for host key;
	// while it says no, the pacing paces and pauses the host locally.
	Up(key string) bool
	// Recovering reports whether a Backend call failed recently enough,
	// for host key's part of the Backend, that other workers may still
	// pace it locally: each worker then keeps to its own share of the
	// host, on top of what the Backend grants.
	Recovering(key string) bool
	// Failed reports a failed Backend call, which starts the fallback of
	// the part it failed in (of the whole Backend, for an error that is
	// not a backend.ScopeError), or a suspicion of it when the part was
	// answering until then.
	Failed(err error)
	// Settle is called after Failed, before the caller answers locally:
	// while the part the call failed in is suspect, it waits for the
	// verdict of the probe sent at once, or for ctx, and reports whether
	// the part answered: the caller then makes its call once more.
	Settle(ctx context.Context, err error) bool
}

// up reports whether the Backend of h may be tried now for host key.
func up(h Health, key string) bool { return h == nil || h.Up(key) }

// recovering reports whether h says the fleet is recovering on host key.
func recovering(h Health, key string) bool { return h != nil && h.Recovering(key) }

// failed reports err to h, if any.
func failed(h Health, err error) {
	if h != nil {
		h.Failed(err)
	}
}

// settle asks h whether the call that failed with err may be made once
// more (Health.Settle); without h it may not.
func settle(h Health, ctx context.Context, err error) bool {
	return h != nil && h.Settle(ctx, err)
}
