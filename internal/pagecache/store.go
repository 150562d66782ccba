package pagecache

// This file is the contract of a store of entries, and the in-memory one
// tests and single processes may use.

import (
	"context"
	"sync"
)

// Store keeps encoded entries by key. Implementations must be safe for
// concurrent use; a Store shared by a fleet (redisbackend's) is shared by
// processes too. Get reports ok false for a key it does not hold; an error
// is a failure of the store itself, which the Cache treats as a miss (and
// a failed Set as an entry not stored): the crawl goes on without it.
type Store interface {
	Get(ctx context.Context, key string) (entry []byte, ok bool, err error)
	Set(ctx context.Context, key string, entry []byte) error
	Delete(ctx context.Context, key string) error
}

// Memory is a Store in this process's memory, unbounded: for tests and
// short crawls. Its zero value is ready to use.
type Memory struct {
	mu sync.Mutex
	m  map[string][]byte // guarded by mu
}

// Get returns the entry stored under key.
func (m *Memory) Get(_ context.Context, key string) ([]byte, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, ok := m.m[key]
	return b, ok, nil
}

// Set stores entry under key.
func (m *Memory) Set(_ context.Context, key string, entry []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil {
		m.m = make(map[string][]byte)
	}
	m.m[key] = entry
	return nil
}

// Delete removes key.
func (m *Memory) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.m, key)
	return nil
}
