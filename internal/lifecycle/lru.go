package lifecycle

// This file holds the bounded LRU of entries, the near-cache every lookup
// reads first.

import (
	"container/list"
	"sync"
	"sync/atomic"
	"time"
)

// lru is a bounded map from origin to entry that forgets the least
// recently used origin first, keeping both the number of origins and the
// bytes their entries retain within bounds. It is safe for concurrent use;
// mu is held only for map and list operations, never across I/O.
type lru struct {
	max      int
	maxBytes int64
	onEvict  func(*Entry) // called after mu is released; may be nil

	mu        sync.Mutex
	items     map[Origin]*list.Element // guarded by mu; values are *Entry
	order     list.List                // guarded by mu; front is most recent
	bytes     int64                    // guarded by mu; sum of the entries' sizes
	evictions uint64                   // guarded by mu

	// front is the entry the last locked get returned, while no put has
	// happened since: it is then the front of order, so a get of its
	// origin may return it without the lock, the map or the list, and the
	// order stays exact. Written under mu only; nil after a put.
	front atomic.Pointer[Entry]
}

func newLRU(max int, maxBytes int64, onEvict func(*Entry)) *lru {
	return &lru{max: max, maxBytes: maxBytes, onEvict: onEvict, items: make(map[Origin]*list.Element)}
}

// atFront returns o's entry when it is the front (the entry the last get
// returned, see front), else nil. It is small enough to be inlined: a
// crawl of one host costs no call, no lock and no hashing. The front is
// already the most recently used.
func (c *lru) atFront(o Origin) *Entry {
	if e := c.front.Load(); e != nil && e.Origin == o {
		return e
	}
	return nil
}

// get returns o's entry and marks it most recently used.
func (c *lru) get(o Origin) *Entry {
	if e := c.atFront(o); e != nil {
		return e
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
	e := el.Value.(*Entry)
	if c.front.Load() != e {
		c.front.Store(e)
	}
	c.mu.Unlock()
	return e
}

// peek returns o's entry without marking it used.
func (c *lru) peek(o Origin) *Entry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[o]; ok {
		return el.Value.(*Entry)
	}
	return nil
}

// has reports whether o is cached.
func (c *lru) has(o Origin) bool {
	c.mu.Lock()
	_, ok := c.items[o]
	c.mu.Unlock()
	return ok
}

// put stores e as its origin's entry, evicting least recently used origins
// not in use at now (see pins) until both bounds hold, or until only
// origins in use are left (only origins held, for the byte bound). An entry larger than the whole byte bound is
// not kept (any older entry of its origin is dropped too); put reports
// whether e was kept.
func (c *lru) put(e *Entry, now time.Duration) bool {
	var evicted []*Entry
	kept := e.Size <= c.maxBytes
	c.mu.Lock()
	c.front.Store(nil) // the front changes, or its entry is replaced
	if el, ok := c.items[e.Origin]; ok {
		old := el.Value.(*Entry)
		e.pins = old.pins // the origin's uses outlive its entries
		c.bytes -= old.Size
		if kept {
			el.Value = e
			c.bytes += e.Size
			c.order.MoveToFront(el)
		} else {
			c.order.Remove(el)
			delete(c.items, e.Origin)
			evicted = append(evicted, old)
		}
	} else if kept {
		c.items[e.Origin] = c.order.PushFront(e)
		c.bytes += e.Size
	}
	if e.pins == nil {
		e.pins = new(pins) // a new origin's, or one whose entry was not kept
	}
	// An origin in use is passed over (moved to the front) while any
	// other is left: first every origin in use; then, when the bytes are
	// still over their bound, only the origins held now, which their
	// requests retain anyway.
	for skipped, held := 0, false; c.order.Len() > c.max || c.bytes > c.maxBytes; {
		back := c.order.Back()
		if back == nil {
			break
		}
		if skipped >= c.order.Len() {
			if held || c.bytes <= c.maxBytes {
				break // every origin left is in use: the bounds wait for them
			}
			skipped, held = 0, true
		}
		if en := back.Value.(*Entry); en == e || en.pins.busy(now, held) { // e: its caller is about to use it
			c.order.MoveToFront(back)
			skipped++
			continue
		}
		old := c.order.Remove(back).(*Entry)
		delete(c.items, old.Origin)
		c.bytes -= old.Size
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

// remove drops o's entry, if any. It is not an eviction.
func (c *lru) remove(o Origin) {
	c.mu.Lock()
	c.front.Store(nil)
	if el, ok := c.items[o]; ok {
		c.bytes -= el.Value.(*Entry).Size
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
	c.items = make(map[Origin]*list.Element)
	c.order.Init()
	c.bytes = 0
	return n
}
