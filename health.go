package robotsext

// This file connects the Extension to the health of its Backend, whose
// every call (robots.txt records, paces, pauses) may fail: after a
// failure the Extension fetches and paces locally, for the hosts of the
// failing part of a backend.Scoper (a Redis Cluster node) or for all of
// them, then tries the Backend again (internal/health).

import (
	"context"

	"github.com/robotsext/robotsext/internal/health"
)

// newHealth builds e's health tracker of its Backend.
func (e *Extension) newHealth() *health.Tracker {
	return health.New(health.Config{
		Backend: e.cfg.backend,
		Now:     e.cfg.now,
		Logger:  e.cfg.logger,
		Failed:  func() { e.stats.backendErrors.Add(1) },
	})
}

// backendHealth is the Extension's view of its Backend, as the pacing
// (pacing.Health) and the robots.txt cache (lifecycle.Health) ask for it.
type backendHealth struct{ e *Extension }

func (h backendHealth) Up(host string) bool         { return h.e.health.Up(host) }
func (h backendHealth) Recovering(host string) bool { return h.e.health.Recovering(host) }
func (h backendHealth) Failed(err error)            { h.e.health.Failed(err) }
func (h backendHealth) Settle(ctx context.Context, err error) bool {
	return h.e.health.Settle(ctx, err)
}
