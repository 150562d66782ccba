package robotsext

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"
)

// MemoryBackend is a Backend held in this process's memory. Extensions
// given the same MemoryBackend share robots.txt records and each host's
// pace as a fleet sharing Redis would; it is also the reference the
// backendtest contract is checked against. (Collectors of one process
// usually need no Backend at all: Attach them to one Extension.)
//
// Expired records, leases and paces are dropped as the backend is used, so
// its memory follows the origins of the last MaxStale at most. The zero
// value is ready to use and safe for concurrent use.
type MemoryBackend struct {
	now func() time.Time // nil: time.Now; tests replace it before first use

	mu      sync.Mutex
	records map[string]*Record     // guarded by mu
	leases  map[string]memoryLease // guarded by mu
	paces   map[string]memoryPace  // guarded by mu
	ops     int                    // guarded by mu; calls since the last sweep
}

type memoryLease struct {
	token string
	until time.Time
}

type memoryPace struct {
	latest time.Time     // the latest start booked
	delay  time.Duration // the latest positive delay booked
}

// until is when p stops mattering: a request after it starts at once.
func (p memoryPace) until() time.Time { return p.latest.Add(p.delay) }

// memorySweepEvery is how many calls pass between sweeps of expired state.
const memorySweepEvery = 4096

// NewMemoryBackend returns an empty MemoryBackend.
func NewMemoryBackend() *MemoryBackend { return &MemoryBackend{} }

func (m *MemoryBackend) clock() time.Time {
	if m.now != nil {
		return m.now()
	}
	return time.Now()
}

// lock takes mu, creates the maps and sweeps now and then. It returns the
// backend's time.
func (m *MemoryBackend) lock() time.Time {
	m.mu.Lock()
	now := m.clock()
	if m.records == nil {
		m.records = make(map[string]*Record)
		m.leases = make(map[string]memoryLease)
		m.paces = make(map[string]memoryPace)
	}
	if m.ops++; m.ops >= memorySweepEvery {
		m.ops = 0
		for k, r := range m.records {
			if now.After(r.KeepUntil()) {
				delete(m.records, k)
			}
		}
		for k, l := range m.leases {
			if !now.Before(l.until) {
				delete(m.leases, k)
			}
		}
		for k, p := range m.paces {
			if !now.Before(p.until()) {
				delete(m.paces, k)
			}
		}
	}
	return now
}

// Load implements Backend.
func (m *MemoryBackend) Load(ctx context.Context, origin string) (*Record, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	now := m.lock()
	defer m.mu.Unlock()
	r := m.records[origin]
	if r != nil && now.After(r.KeepUntil()) {
		delete(m.records, origin)
		return nil, nil
	}
	return r, nil
}

// Lease implements Backend.
func (m *MemoryBackend) Lease(ctx context.Context, origin string, ttl time.Duration) (Lease, bool, time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return Lease{}, false, 0, err
	}
	if ttl <= 0 {
		return Lease{}, false, 0, fmt.Errorf("robotsext: lease ttl %v must be positive", ttl)
	}
	token := newLeaseToken()
	now := m.lock()
	defer m.mu.Unlock()
	if l, held := m.leases[origin]; held && now.Before(l.until) {
		return Lease{}, false, l.until.Sub(now), nil
	}
	m.leases[origin] = memoryLease{token: token, until: now.Add(ttl)}
	return Lease{Token: token}, true, 0, nil
}

// Store implements Backend.
func (m *MemoryBackend) Store(ctx context.Context, origin string, l Lease, rec *Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if rec == nil {
		return fmt.Errorf("robotsext: Store of a nil record for %s", origin)
	}
	now := m.lock()
	defer m.mu.Unlock()
	held, ok := m.leases[origin]
	if !ok || held.token != l.Token || !now.Before(held.until) {
		return fmt.Errorf("%w: %s", ErrLeaseLost, origin)
	}
	delete(m.leases, origin)
	m.records[origin] = rec
	return nil
}

// Reserve implements Backend.
func (m *MemoryBackend) Reserve(ctx context.Context, host string, delay time.Duration) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if delay < 0 {
		delay = 0
	}
	now := m.lock()
	defer m.mu.Unlock()
	p := m.paces[host]
	start := now
	if t := p.latest.Add(delay); t.After(start) {
		start = t
	}
	p.latest = start
	if delay > 0 {
		p.delay = delay
	}
	if p.until().After(now) {
		m.paces[host] = p
	} else {
		delete(m.paces, host)
	}
	return start.Sub(now), nil
}

// newLeaseToken returns 16 random bytes in hex.
func newLeaseToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}
