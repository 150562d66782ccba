package backend

// This file is Memory's Pauser: each host's back-off, kept with the
// state machine the Extension runs locally (internal/pause).

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/robotsext/robotsext/internal/pause"
)

var _ PauseWatcher = (*Memory)(nil)

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
	if started {
		m.logPauseLocked(host)
	}
	return max(s.Until.Sub(now), 0), started, capped, false, nil
}

// memoryPauseLog is how many of the latest pauses begun the log keeps; a
// reader further behind reads every paused host again.
const memoryPauseLog = 4096

// logPauseLocked logs that host's pause began. m.mu must be held.
func (m *Memory) logPauseLocked(host string) {
	if len(m.pauseLog) == memoryPauseLog {
		copy(m.pauseLog, m.pauseLog[1:])
		m.pauseLog = m.pauseLog[:memoryPauseLog-1]
	}
	m.pauseLog = append(m.pauseLog, host)
	m.pauseSeq++
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

// PausesSince implements PauseWatcher. Its cursors are "log:<n>", every
// pause up to the n-th logged, and "all:<i>:<n>", a full read at the i-th
// host (in order) that goes on with the log after the n-th.
func (m *Memory) PausesSince(ctx context.Context, cursor string, n int) ([]string, string, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", false, err
	}
	if n < 1 {
		return nil, cursor, false, nil
	}
	now := m.lock()
	defer m.mu.Unlock()
	kind, nums := parseCursor(cursor)
	seen, at, full := m.pauseSeq, uint64(0), true
	switch {
	case kind == "log" && len(nums) == 1:
		// A cursor past the log, or one the log no longer reaches, reads
		// everything again.
		if nums[0] <= m.pauseSeq && nums[0] >= m.pauseSeq-uint64(len(m.pauseLog)) {
			seen, full = nums[0], false
		}
	case kind == "all" && len(nums) == 2 && nums[1] <= m.pauseSeq:
		at, seen = nums[0], nums[1]
	}
	if full {
		var hosts []string
		for host := range m.pausesLocked() {
			if m.pauseOf(host, now) != nil {
				hosts = append(hosts, host)
			}
		}
		slices.Sort(hosts)
		from := int(min(at, uint64(len(hosts))))
		page := hosts[from:min(from+n, len(hosts))]
		if from+len(page) < len(hosts) {
			return page, fmt.Sprintf("all:%d:%d", from+len(page), seen), true, nil
		}
		return page, fmt.Sprintf("log:%d", seen), m.pauseSeq > seen, nil
	}
	newer := m.pauseLog[len(m.pauseLog)-int(m.pauseSeq-seen):]
	page := slices.Clone(newer[:min(n, len(newer))])
	seen += uint64(len(page))
	return page, fmt.Sprintf("log:%d", seen), seen < m.pauseSeq, nil
}

// parseCursor splits a PausesSince cursor into its kind and numbers; nums
// is nil when one is not a number.
func parseCursor(cursor string) (kind string, nums []uint64) {
	parts := strings.Split(cursor, ":")
	for _, p := range parts[1:] {
		v, err := strconv.ParseUint(p, 10, 64)
		if err != nil {
			return parts[0], nil
		}
		nums = append(nums, v)
	}
	return parts[0], nums
}
