package marks

// This file is the bounded set of forgotten visit marks.

import (
	"sync"
	"sync/atomic"
)

// Max bounds the marks a Forgotten keeps: past it, the oldest are
// remembered again (their URLs stay unfetched, as if never forgotten).
// Each costs a map entry of a few dozen octets.
const Max = 1 << 15

// Forgotten is a set of forgotten visit marks, at most Max of them. While
// it is empty, Has and Remember cost one atomic load and take no lock.
// The zero value is empty and ready; it is safe for concurrent use.
type Forgotten struct {
	// n counts the marks held: while it is 0, Has and Remember take no
	// lock.
	n atomic.Int64

	mu sync.Mutex
	// cur and old are the marks, guarded by mu: the newer generation and
	// the one before it. When cur holds Max/2, old is dropped and cur
	// becomes old, so that at most Max marks are kept.
	cur, old map[uint64]struct{}
}

// Len returns the number of marks held.
func (f *Forgotten) Len() int { return int(f.n.Load()) }

// Has reports whether id is a forgotten mark.
func (f *Forgotten) Has(id uint64) bool {
	if f.n.Load() == 0 {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.cur[id]; ok {
		return true
	}
	_, ok := f.old[id]
	return ok
}

// Remember drops id from the forgotten marks: its URL is visited again.
func (f *Forgotten) Remember(id uint64) {
	if f.n.Load() == 0 {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, m := range [2]map[uint64]struct{}{f.cur, f.old} {
		if _, ok := m[id]; ok {
			delete(m, id)
			f.n.Add(-1)
		}
	}
}

// Forget adds id to the forgotten marks, dropping the older generation
// when the newer is full.
func (f *Forgotten) Forget(id uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.cur[id]; ok {
		return
	}
	if _, ok := f.old[id]; ok {
		return
	}
	if len(f.cur) >= Max/2 {
		f.n.Add(-int64(len(f.old)))
		f.old, f.cur = f.cur, nil
	}
	if f.cur == nil {
		f.cur = make(map[uint64]struct{})
	}
	f.cur[id] = struct{}{}
	f.n.Add(1)
}
