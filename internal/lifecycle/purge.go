package lifecycle

// This file follows a Forgetter Backend's purge log: every Cache sharing
// it reads the log at a bounded rate and drops the origins another worker
// forgot, so that their next request fetches robots.txt again.

import (
	"context"
	"sync/atomic"
	"time"
)

// PurgePoll is how often a Cache with a Forgetter Backend reads its purge
// log: another worker's Forget reaches this one's near-cache within about
// this long (while requests flow; the poll rides on them).
const PurgePoll = 2 * time.Second

// purgeWatch is a Cache's position in its Forgetter's purge log.
type purgeWatch struct {
	next   atomic.Int64 // Config.Now (UnixNano) when the log is due
	cursor atomic.Pointer[string]
}

// maybePurge starts a read of the purge log in the background when one is
// due; only the caller that moves the due time on starts it.
func (c *Cache) maybePurge(now time.Time) {
	due := c.purges.next.Load()
	if now.UnixNano() < due || !c.purges.next.CompareAndSwap(due, now.Add(PurgePoll).UnixNano()) {
		return
	}
	go c.readPurges()
}

// readPurges reads the purge log from the cursor and drops the origins
// it names from the cache (all of them when the log was cut).
func (c *Cache) readPurges() {
	parent := context.Background()
	if c.cfg.Context != nil {
		parent = c.cfg.Context()
	}
	ctx, cancel := context.WithTimeout(parent, PurgePoll)
	defer cancel()
	cursor := ""
	if p := c.purges.cursor.Load(); p != nil {
		cursor = *p
	}
	origins, next, all, err := c.forgetter.Purges(ctx, cursor)
	if err != nil {
		if ctx.Err() == nil && c.cfg.Health != nil {
			c.cfg.Health.Failed(err)
		}
		return
	}
	if cursor != "" {
		switch {
		case all:
			n := c.lru.clear()
			c.refetch.forgetAll()
			c.cfg.Logger.Info("robotsext: the backend's purge log was cut; dropped every near-cached robots.txt", "origins", n)
		case c.cfg.Origin != nil:
			for _, s := range origins {
				if o, ok := c.cfg.Origin(s); ok {
					c.drop(o)
				}
			}
		}
	}
	c.purges.cursor.Store(&next)
}
