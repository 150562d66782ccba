// Package closing ends the waits of an owner that can be closed: a
// context that ends at Close, bound to the context each wait runs under,
// so that a wait ends when either does. The owner is the root's
// Extension; its pace, back-off, held requests and fetches wait here.
package closing

import (
	"context"
	"reflect"
	"sync/atomic"
	"time"
)

// Closer is one owner's closing. Its methods are safe for concurrent use;
// a nil Closer never closes.
type Closer struct {
	closed atomic.Bool
	ctx    context.Context // ends at Close
	cancel context.CancelFunc
	parent context.Context // the context most waits run under, and
	bound  context.Context // it ended at Close too; nil when Go cannot compare parent
}

// New returns an open Closer whose waits run mostly under parent (the
// collector's context): those are bound once, here, so that they
// allocate nothing.
func New(parent context.Context) *Closer {
	c := &Closer{}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	if parent != nil && reflect.TypeOf(parent).Comparable() {
		c.parent = parent
		c.bound, _ = Bound(parent, c.ctx) // released by Close
	}
	return c
}

// Close closes c and wakes every wait bound to it. It reports whether
// this call closed it (false: it was closed already).
func (c *Closer) Close() bool {
	if c == nil || c.closed.Swap(true) {
		return false
	}
	c.cancel()
	return true
}

// Closed reports whether c was closed.
func (c *Closer) Closed() bool { return c != nil && c.closed.Load() }

// Context returns the context that ends at Close (nil for a nil c).
func (c *Closer) Context() context.Context {
	if c == nil {
		return nil
	}
	return c.ctx
}

// Bind returns ctx, ended at Close too, and what releases it: call it
// when the wait is over.
func (c *Closer) Bind(ctx context.Context) (context.Context, func()) {
	if c == nil {
		return ctx, func() {}
	}
	if c.bound != nil && ctx == c.parent { // the same type is comparable: New checked it
		return c.bound, func() {}
	}
	return Bound(ctx, c.ctx)
}

// Sleep returns sleep, each of whose waits Close ends too (with the
// error of a context that ended).
func (c *Closer) Sleep(sleep func(ctx context.Context, d time.Duration) error) func(ctx context.Context, d time.Duration) error {
	return func(ctx context.Context, d time.Duration) error {
		ctx, stop := c.Bind(ctx)
		defer stop()
		return sleep(ctx, d)
	}
}

// Bound returns ctx, ended also when closing ends (never when closing is
// nil), and stop, which releases what Bound took: call it when the wait
// is over. It allocates: Bind spares the usual context that.
func Bound(ctx, closing context.Context) (_ context.Context, stop func()) {
	if closing == nil {
		return ctx, func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	unhook := context.AfterFunc(closing, cancel)
	return ctx, func() { unhook(); cancel() }
}
