// Package ledger remembers keys for a while, each to be used once: the
// redirect handler's record of the hops it re-issued, so that a retry of
// one of them is not re-issued a second time.
package ledger

import (
	"sync"
	"time"
)

// Ledger remembers keys by the time they were claimed, by the caller's
// clock. An entry is removed when it is used and expires after Memory; a
// full ledger (Max entries younger than that) remembers no more. It is
// safe for concurrent use; the zero Ledger remembers nothing for no time
// (set Memory and Max), and a nil *Ledger remembers nothing.
type Ledger[K comparable] struct {
	Memory time.Duration // how long an entry is remembered
	Max    int           // the most entries remembered

	mu sync.Mutex
	at map[K]time.Time // when each key was claimed; guarded by mu
}

// Claim reports whether k is to be used now: yes, and k is remembered as
// of now, unless k was claimed within Memory, which is then forgotten.
func (l *Ledger[K]) Claim(k K, now time.Time) bool {
	if l == nil {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if at, ok := l.at[k]; ok {
		delete(l.at, k)
		if now.Sub(at) < l.Memory {
			return false
		}
	}
	if l.at == nil {
		l.at = make(map[K]time.Time)
	}
	if len(l.at) >= l.Max {
		for old, at := range l.at {
			if now.Sub(at) >= l.Memory {
				delete(l.at, old)
			}
		}
		if len(l.at) >= l.Max {
			return true
		}
	}
	l.at[k] = now
	return true
}

// Claimed restarts k's memory at now, if k is remembered.
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

// Forget drops k.
func (l *Ledger[K]) Forget(k K) {
	if l == nil {
		return
	}
	l.mu.Lock()
	delete(l.at, k)
	l.mu.Unlock()
}

// Len is the number of keys remembered.
func (l *Ledger[K]) Len() int {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.at)
}
