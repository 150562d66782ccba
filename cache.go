package robotsext

// This file keeps the robots.txt in force per origin: a bounded LRU cache of
// immutable entries, and the rules that turn one fetch plus the previous
// entry into the next entry (stale copies, backoff).

import (
	"container/list"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotsext/robotsext/internal/robotstxt"
)

// entry is the robots.txt in force for one origin. It is built by newEntry
// and never modified afterwards, so it may be read without a lock; a fetch
// stores a new entry in its place.
type entry struct {
	origin   origin
	robots   *Robots   // the latest answer
	outcome  Outcome   // what decides: OutcomeOK while a stale copy is in force
	policy   *Policy   // the rules in force, nil unless outcome is OutcomeOK
	stale    bool      // policy is the last good copy, kept while unreachable
	good     *Robots   // the last good answer (validators for revalidation), or nil
	goodAt   time.Time // when good was last fetched or confirmed by a 304
	failures int       // unreachable answers in a row
	override bool      // WithOverride covers the origin
	expires  time.Time // when to fetch again
	size     int64     // bytes the entry retains, for WithCacheMemory

	// sel is policy's groups for selToken, resolved once when the entry is
	// installed, so that a check costs no group lookup.
	sel      robotstxt.Selection
	selToken string
}

// entryOverhead estimates what an entry and its Robots retain besides the
// policies: the structs, the URL strings and the LRU's bookkeeping.
const entryOverhead = 512

// entrySize estimates the bytes en retains: its policies (once each) and
// the fixed overhead.
func entrySize(en *entry) int64 {
	n := int64(entryOverhead) + policyBytes(en.policy)
	if en.good != nil && en.good.Policy != en.policy {
		n += policyBytes(en.good.Policy)
	}
	if en.robots != nil {
		n += int64(len(en.robots.URL) + len(en.robots.FinalURL) + len(en.robots.ETag) + len(en.robots.LastModified))
	}
	return n
}

// policyBytes is the heap a parsed policy retains, 0 for nil.
func policyBytes(p *Policy) int64 {
	if p == nil {
		return 0
	}
	return p.memSize()
}

// newEntry combines a fetch with the entry it replaces (nil if none).
// A good copy confirmed within MaxStale keeps deciding while the origin is
// unreachable, until MaxStale has passed since it was last confirmed.
func newEntry(o origin, prev *entry, r *Robots) *entry {
	e := &entry{origin: o, robots: r, outcome: r.Outcome, expires: r.Expires}
	switch r.Outcome {
	case OutcomeOK:
		e.policy, e.good, e.goodAt = r.Policy, r, r.FetchedAt
	case OutcomeUnreachable:
		e.failures = 1
		if prev != nil {
			e.failures = prev.failures + 1
			if prev.good != nil && r.FetchedAt.Sub(prev.goodAt) <= MaxStale {
				e.outcome, e.policy, e.stale = OutcomeOK, prev.good.Policy, true
				e.good, e.goodAt = prev.good, prev.goodAt
				if end := prev.goodAt.Add(MaxStale); end.Before(e.expires) {
					e.expires = end
				}
			}
		}
	}
	e.size = entrySize(e)
	return e
}

// lru is a bounded map from origin to entry that forgets the least
// recently used origin first, keeping both the number of origins and the
// bytes their entries retain within bounds. It is safe for concurrent use;
// mu is held only for map and list operations, never across I/O.
type lru struct {
	max      int
	maxBytes int64
	onEvict  func(*entry) // called after mu is released; may be nil

	mu        sync.Mutex
	items     map[origin]*list.Element // guarded by mu; values are *entry
	order     list.List                // guarded by mu; front is most recent
	bytes     int64                    // guarded by mu; sum of the entries' sizes
	evictions uint64                   // guarded by mu

	// front is the entry the last locked get returned, while no put has
	// happened since: it is then the front of order, so a get of its
	// origin may return it without the lock, the map or the list, and the
	// order stays exact. Written under mu only; nil after a put.
	front atomic.Pointer[entry]
}

func newLRU(max int, maxBytes int64, onEvict func(*entry)) *lru {
	return &lru{max: max, maxBytes: maxBytes, onEvict: onEvict, items: make(map[origin]*list.Element)}
}

// get returns o's entry and marks it most recently used.
func (c *lru) get(o origin) *entry {
	if e := c.front.Load(); e != nil && e.origin == o {
		return e // a crawl of one host: no lock, no hashing
	}
	c.mu.Lock()
	el, ok := c.items[o]
	if !ok {
		c.mu.Unlock()
		return nil
	}
	if c.order.Front() != el {
		c.order.MoveToFront(el)
	}
	e := el.Value.(*entry)
	if c.front.Load() != e {
		c.front.Store(e)
	}
	c.mu.Unlock()
	return e
}

// peek returns o's entry without marking it used.
func (c *lru) peek(o origin) *entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[o]; ok {
		return el.Value.(*entry)
	}
	return nil
}

// has reports whether o is cached.
func (c *lru) has(o origin) bool {
	c.mu.Lock()
	_, ok := c.items[o]
	c.mu.Unlock()
	return ok
}

// put stores e as its origin's entry, evicting least recently used origins
// until both bounds hold. An entry larger than the whole byte bound is not
// kept (any older entry of its origin is dropped too); put reports whether
// e was kept.
func (c *lru) put(e *entry) bool {
	var evicted []*entry
	kept := e.size <= c.maxBytes
	c.mu.Lock()
	c.front.Store(nil) // the front changes, or its entry is replaced
	if el, ok := c.items[e.origin]; ok {
		old := el.Value.(*entry)
		c.bytes -= old.size
		if kept {
			el.Value = e
			c.bytes += e.size
			c.order.MoveToFront(el)
		} else {
			c.order.Remove(el)
			delete(c.items, e.origin)
			evicted = append(evicted, old)
		}
	} else if kept {
		c.items[e.origin] = c.order.PushFront(e)
		c.bytes += e.size
	}
	for c.order.Len() > c.max || c.bytes > c.maxBytes {
		back := c.order.Back()
		if back == nil {
			break
		}
		old := c.order.Remove(back).(*entry)
		delete(c.items, old.origin)
		c.bytes -= old.size
		c.evictions++
		evicted = append(evicted, old)
	}
	c.mu.Unlock()
	if c.onEvict != nil {
		for _, old := range evicted {
			c.onEvict(old)
		}
	}
	return kept
}

// counts returns the number of cached origins, the bytes they retain and
// the number of evictions so far.
func (c *lru) counts() (n int, bytes int64, evictions uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len(), c.bytes, c.evictions
}

// remove drops o's entry, if any. It is not an eviction: the host's pace
// stays.
func (c *lru) remove(o origin) {
	c.mu.Lock()
	c.front.Store(nil)
	if el, ok := c.items[o]; ok {
		c.bytes -= el.Value.(*entry).size
		c.order.Remove(el)
		delete(c.items, o)
	}
	c.mu.Unlock()
}

// clear drops every entry and returns how many there were.
func (c *lru) clear() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.front.Store(nil)
	n := c.order.Len()
	c.items = make(map[origin]*list.Element)
	c.order.Init()
	c.bytes = 0
	return n
}
