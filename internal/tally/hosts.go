package tally

// This file counts responses per host, in memory its caller bounds.

import (
	"sync"
	"sync/atomic"
)

// Hosts counts the responses of each host, by Class. Its caller bounds
// its memory: it drops a host's counts when it forgets the host (Forget),
// and when Add reports more hosts than it keeps, it sweeps the hosts it
// no longer knows (Sweep). The zero value counts nothing yet; it is safe
// for concurrent use.
type Hosts struct {
	hosts sync.Map     // host → *Counts
	n     atomic.Int64 // hosts in the map
	sweep sync.Mutex   // one sweep at a time
}

// Add counts one response of class c from host. It returns the number of
// hosts counted when host is new, and 0 when host was counted already.
func (h *Hosts) Add(host string, c Class) (hosts int64) {
	if t, ok := h.hosts.Load(host); ok {
		t.(*Counts)[c].Add(1)
		return 0
	}
	t, loaded := h.hosts.LoadOrStore(host, new(Counts))
	t.(*Counts)[c].Add(1)
	if loaded {
		return 0
	}
	return h.n.Add(1)
}

// Sweep drops the counts of every host keep reports false for. A sweep
// already under way makes it return at once.
func (h *Hosts) Sweep(keep func(host string) bool) {
	if !h.sweep.TryLock() {
		return
	}
	defer h.sweep.Unlock()
	h.hosts.Range(func(k, _ any) bool {
		if host := k.(string); !keep(host) {
			h.Forget(host)
		}
		return true
	})
}

// Forget drops host's counts.
func (h *Hosts) Forget(host string) {
	if _, ok := h.hosts.LoadAndDelete(host); ok {
		h.n.Add(-1)
	}
}

// Counts returns the classes counted for host, without those at 0; nil
// when host has none.
func (h *Hosts) Counts(host string) map[Class]uint64 {
	t, ok := h.hosts.Load(host)
	if !ok {
		return nil
	}
	return t.(*Counts).Map()
}
