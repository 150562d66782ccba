package pacing

// Health is what the pacing is told of its Backend by the Extension, which
// tracks every Backend call (robots.txt records too): whether the Backend
// may be tried now, whether the fleet is still recovering from a recent
// failure, and where to report a failed call. A nil Health is a Backend
// that is always up.
type Health interface {
	// Up reports whether the Backend may be tried now; while it says
	// no, the pacing paces and pauses locally.
	Up() bool
	// Recovering reports whether a Backend call failed recently enough
	// that other workers may still pace locally: each worker then keeps
	// to its own share of every paced host, on top of what the Backend
	// grants.
	Recovering() bool
	// Failed reports a failed Backend call, which starts the Extension's
	// cool-down (Up then says no for a while).
	Failed(err error)
}

// up reports whether the Backend of h may be tried now.
func up(h Health) bool { return h == nil || h.Up() }

// recovering reports whether h says the fleet is recovering.
func recovering(h Health) bool { return h != nil && h.Recovering() }

// failed reports err to h, if any.
func failed(h Health, err error) {
	if h != nil {
		h.Failed(err)
	}
}
