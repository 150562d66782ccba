package lifecycle

// This file keeps an origin's entry while requests for it are pending, so
// that a crawl over more hosts than the cache's bounds fetches each host's
// robots.txt once, and a re-fetch never re-books its queued requests.

import (
	"sync/atomic"
	"time"
)

// InUseAfter is how long an origin stays in use after its last request left
// the root's OnRequest hook: the request's wait for a Colly slot and its
// time on the wire (Colly's default timeout is 10 s). A request that ends
// sooner, or is aborted by a later callback, needs no word of its end:
// the time lapses by itself, so no seam can leave an origin in use.
const InUseAfter = 2 * time.Minute

// pins is what tells whether an origin is in use: the requests holding it
// now (Pin to Unpin, in one call of the hook) and when its time in use
// after them ends. It is updated with atomics only; the LRU reads it when
// it looks for an origin to evict.
type pins struct {
	held  atomic.Int32
	until atomic.Int64 // the end of its time in use, as a Cache clock offset
}

// busy reports whether the origin is in use at now: held, or, unless
// heldOnly, within InUseAfter of its last Unpin.
func (p *pins) busy(now time.Duration, heldOnly bool) bool {
	return p != nil && (p.held.Load() > 0 || !heldOnly && time.Duration(p.until.Load()) > now)
}

// Pin marks en's origin in use until Unpin: the LRU evicts it neither for
// its count nor for its bytes (the requests retain the entry anyway). It takes no lock and allocates nothing;
// an entry not cached (larger than the byte bound) is not pinned.
func (c *Cache) Pin(en *Entry) {
	if en != nil && en.pins != nil {
		en.pins.held.Add(1)
	}
}

// Unpin ends a Pin of en, the origin staying in use for InUseAfter from
// the latest clock reading any Get was given (GetAt's now, kept to the
// second): the hook reads no clock for it, and a request that waited in
// the hook while others were looked up counts from about when it left.
// Meanwhile the LRU evicts the origin for its count only once nothing else
// is left to evict, and for its bytes only once nothing but held origins
// is.
func (c *Cache) Unpin(en *Entry) {
	if en == nil || en.pins == nil {
		return
	}
	// Stored when it moves on by a second or more: requests to one host
	// write its cache line seldom.
	if end := c.seen.Load() + int64(InUseAfter); end > en.pins.until.Load()+int64(time.Second) {
		en.pins.until.Store(end)
	}
	en.pins.held.Add(-1)
}

// see keeps now, a GetAt's clock reading, as the latest, when it moved on
// by a second or more: Unpin's clock.
func (c *Cache) see(now time.Duration) {
	if int64(now) > c.seen.Load()+int64(time.Second) {
		c.seen.Store(int64(now))
	}
}
