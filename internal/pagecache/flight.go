package pagecache

// This file keeps one request of a key on the wire at a time: a request
// that finds another of its key out waits until that one's entry is
// stored or dropped, then looks again (often a fresh hit), so that
// concurrent misses of one URL cost the site one request.

import (
	"context"
	"time"
)

// flightWait bounds a wait for another request's entry: a caller that
// never reads nor closes its body holds its flight open, and the requests
// waiting on it then go out after this long.
const flightWait = 10 * time.Second

// waitFlight waits for the flight ch to land, for at most flightWait; the
// error is ctx's, when it ends first.
func waitFlight(ctx context.Context, ch <-chan struct{}) error {
	t := time.NewTimer(flightWait)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// join returns the channel of the request of key already out, to wait on;
// or nil, having made the caller that request: it then calls land(key)
// once its entry is stored or dropped.
func (c *Cache) join(key string) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ch, ok := c.flights[key]; ok {
		return ch
	}
	c.flights[key] = make(chan struct{})
	return nil
}

// land ends the flight of key: the requests waiting on it look again.
func (c *Cache) land(key string) {
	c.mu.Lock()
	ch, ok := c.flights[key]
	delete(c.flights, key)
	c.mu.Unlock()
	if ok {
		close(ch)
	}
}
