package pacing

import (
	"context"
	"time"
)

// Clock is the time the pacing runs on. Now reads it; Sleep waits d on it
// or until ctx is done, returning ctx.Err() then. A nil field is the real
// clock's. Tests give clocks they move by hand, so that no test of the
// pacing waits for the wall clock.
type Clock struct {
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
}

// settled returns c with the real clock's functions in its nil fields.
func (c Clock) settled() Clock {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Sleep == nil {
		c.Sleep = SleepReal
	}
	return c
}

// SleepReal waits d on the real clock, or until ctx is done: Clock's
// Sleep when none is given, and the root's for its own real waits.
func SleepReal(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitIdle waits for idle to close, for d on the real clock, or for ctx to
// end. d only bounds a wait whose end another goroutine normally signals.
func waitIdle(ctx context.Context, idle <-chan struct{}, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-idle:
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// later returns the latest of its times.
func later(t time.Time, ts ...time.Time) time.Time {
	for _, u := range ts {
		if u.After(t) {
			t = u
		}
	}
	return t
}
