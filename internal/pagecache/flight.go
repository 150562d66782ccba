package pagecache

// This file keeps one request of a key on the wire at a time: a request
// that finds another of its key out waits until that one's entry is
// stored or dropped, then looks again (often a fresh hit), so that
// concurrent misses of one URL cost the site one request. When that
// answer was not stored (it may not be), the waiters go out at once, side
// by side, as they would without the cache: not one after another.

import (
	"context"
	"time"
)

// flightWait bounds a wait for another request's entry: a caller that
// never reads nor closes its body holds its flight open, and the requests
// waiting on it then go out after this long.
const flightWait = 10 * time.Second

// flight is the request of a key that is out.
type flight struct {
	ch   chan struct{} // closed when it lands
	kept bool          // an entry was stored: written before ch is closed, read after
}

// waitFlight waits for f to land, for at most flightWait: kept reports
// that its entry was stored (look again), false that it was not or that
// the wait ran out (go out). The error is ctx's, when it ends first.
func waitFlight(ctx context.Context, f *flight) (kept bool, err error) {
	t := time.NewTimer(flightWait)
	defer t.Stop()
	select {
	case <-f.ch:
		return f.kept, nil
	case <-t.C:
		return false, nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

// join returns the flight of key already out, to wait on, and nil; or
// nil and the caller's own flight, having made it that request: it then
// calls land with it once its entry is stored or dropped.
func (c *Cache) join(key string) (wait, own *flight) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.flights[key]; ok {
		return f, nil
	}
	own = &flight{ch: make(chan struct{})}
	c.flights[key] = own
	return nil, own
}

// land ends the flight own of key, which kept (stored) its entry or not:
// the requests waiting on it look again, or go out. A nil own (a request
// that went out without a flight) lands nothing.
func (c *Cache) land(key string, own *flight, kept bool) {
	if own == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.flights[key] != own {
		return // landed already
	}
	delete(c.flights, key)
	own.kept = kept
	close(own.ch)
}
