package backend

// This file is Memory's Pauser: each host's back-off, kept with the
// state machine the Extension runs locally (internal/pause).

import (
	"context"
	"slices"
	"time"

	"github.com/robotsext/robotsext/internal/pause"
)

var _ Pauser = (*Memory)(nil)

// pausesLocked returns m's back-off states, creating the map. m.mu must be held.
func (m *Memory) pausesLocked() map[string]*pause.State[string] {
	if m.pauses == nil {
		m.pauses = make(map[string]*pause.State[string])
	}
	return m.pauses
}

// pauseOf returns host's back-off state at now, dropping a stale one; nil
// when it has none. m.mu must be held.
func (m *Memory) pauseOf(host string, now time.Time) *pause.State[string] {
	s := m.pausesLocked()[host]
	if s != nil && s.Stale(now) {
		delete(m.pauses, host)
		return nil
	}
	return s
}

// Pause implements Pauser.
func (m *Memory) Pause(ctx context.Context, host string, retryAfter, base, limit time.Duration) (time.Duration, bool, bool, bool, error) {
	if err := ctx.Err(); err != nil {
		return 0, false, false, false, err
	}
	now := m.lock()
	defer m.mu.Unlock()
	s := m.pauseOf(host, now)
	if s == nil {
		s = &pause.State[string]{}
		m.pauses[host] = s
	}
	_, started, capped := s.Signal(now, max(retryAfter, 0), max(base, time.Millisecond), max(limit, time.Millisecond))
	return max(s.Until.Sub(now), 0), started, capped, false, nil
}

// Ask implements Pauser.
func (m *Memory) Ask(ctx context.Context, host, token string) (time.Duration, bool, bool, bool, error) {
	if err := ctx.Err(); err != nil {
		return 0, false, false, false, err
	}
	now := m.lock()
	defer m.mu.Unlock()
	s := m.pauseOf(host, now)
	if s == nil {
		return 0, false, true, false, nil
	}
	wait, probe, _ := s.Ask(now, token)
	return wait, probe, false, false, nil
}

// Answered implements Pauser.
func (m *Memory) Answered(ctx context.Context, host, token string) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	now := m.lock()
	defer m.mu.Unlock()
	s := m.pauseOf(host, now)
	if s == nil {
		return true, nil
	}
	if s.Answered(now, token) {
		delete(m.pauses, host)
		return true, nil
	}
	return false, nil
}

// Paused implements Pauser.
func (m *Memory) Paused(ctx context.Context, n int) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := m.lock()
	defer m.mu.Unlock()
	var hosts []string
	for host := range m.pausesLocked() {
		if m.pauseOf(host, now) != nil {
			hosts = append(hosts, host)
		}
	}
	slices.Sort(hosts)
	if len(hosts) > n {
		hosts = hosts[:max(n, 0)]
	}
	return hosts, nil
}
