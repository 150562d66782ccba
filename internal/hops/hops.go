// Package hops remembers the requests whose deferred redirect hop a
// redirect handler re-issued (the root's redirect.go), so that the hop of
// a retry of one of them is not re-issued a second time.
package hops

import (
	"sync"
	"time"
)

// Re-issued hops are remembered for Memory, and at most Max of them per
// Ledger: long enough for a retry that went out before it could be
// recognised to come back deferred in turn (it is sent at once, or after
// one Crawl-delay of its own host when a synchronous collector fetched
// the hop first), small enough to cost at most some hundreds of
// kilobytes.
const (
	Memory = 2 * time.Minute
	Max    = 4096
)

// Ledger remembers the requests (by their key K) whose deferred hop was
// re-issued, by the caller's clock. An entry is removed when it is used
// and expires after Memory; a full Ledger (Max entries younger than
// that) remembers no more. It is safe for concurrent use; a nil *Ledger
// remembers nothing, and the zero Ledger is empty.
type Ledger[K comparable] struct {
	mu sync.Mutex
	at map[K]time.Time // guarded by mu: when the hop was re-issued
}

// Claim reports whether the hop of request k is to be re-issued now: yes,
// and k is remembered as of now, unless k's hop was re-issued within
// Memory, which is then forgotten.
func (l *Ledger[K]) Claim(k K, now time.Time) bool {
	if l == nil {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if at, ok := l.at[k]; ok {
		delete(l.at, k)
		if now.Sub(at) < Memory {
			return false
		}
	}
	if l.at == nil {
		l.at = make(map[K]time.Time)
	}
	if len(l.at) >= Max {
		for old, at := range l.at {
			if now.Sub(at) >= Memory {
				delete(l.at, old)
			}
		}
		if len(l.at) >= Max {
			return true
		}
	}
	l.at[k] = now
	return true
}

// Claimed restarts k's memory at now, if k is remembered: the hop was
// re-issued, and a synchronous collector has fetched it meanwhile.
func (l *Ledger[K]) Claimed(k K, now time.Time) {
	if l == nil {
		return
	}
	l.mu.Lock()
	if _, ok := l.at[k]; ok {
		l.at[k] = now
	}
	l.mu.Unlock()
}

// Forget drops k: its hop was not re-issued after all.
func (l *Ledger[K]) Forget(k K) {
	if l == nil {
		return
	}
	l.mu.Lock()
	delete(l.at, k)
	l.mu.Unlock()
}

// Len returns the number of requests remembered.
func (l *Ledger[K]) Len() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.at)
}
