package pacing

// This file reads the back-off back, for Extension.Origin and Stats.

import (
	"time"

	"github.com/robotsext/robotsext/internal/pause"
)

// BackoffInfo is what the Backoff reports of one host's pause.
type BackoffInfo struct {
	Phase   pause.Phase // Paused, Probing or Recovering
	Cause   Cause       // the latest pause's
	Until   time.Time   // the earliest a request may start, as far as the pause knows
	Waiting int         // requests waiting in Admit for the host now
}

// Info returns host's pause at now; ok is false when the host is in good
// health.
func (b *Backoff) Info(host string, now time.Time) (p BackoffInfo, ok bool) {
	if b.active.Load() == 0 {
		return p, false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	h := b.hosts[HostKey(host)]
	if h == nil || h.st.Phase == pause.Healthy {
		return p, false
	}
	return BackoffInfo{Phase: h.st.Phase, Cause: h.cause, Until: h.st.Next(now), Waiting: h.waiting}, true
}

// BackoffCounts is a snapshot of a Backoff's counters.
type BackoffCounts struct {
	Pauses  [MaxCauses]uint64 // pauses started, by Cause
	Capped  uint64            // pauses BackoffConfig.Max cut short
	Probes  uint64            // probes sent, one per host and pause
	Waited  uint64            // requests that waited in Admit
	Refused uint64            // requests Admit refused
	Waiting int64             // requests waiting in Admit now
	Paused  int               // hosts paused, probed or recovering now
}

// Counts returns the counters. It is safe to call at any time.
func (b *Backoff) Counts() BackoffCounts {
	c := BackoffCounts{
		Capped: b.capped.Load(), Probes: b.probesSent.Load(),
		Waited: b.waited.Load(), Refused: b.refused.Load(),
		Waiting: b.waitingNow.Load(), Paused: b.pausedHosts(),
	}
	for i := range b.pauses {
		c.Pauses[i] = b.pauses[i].Load()
	}
	return c
}

// pausedHosts counts the hosts paused, probed or recovering now.
func (b *Backoff) pausedHosts() (n int) {
	if b.active.Load() == 0 {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, h := range b.hosts {
		if h.st.Phase != pause.Healthy {
			n++
		}
	}
	return n
}
