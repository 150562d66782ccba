package redisbackend

// This file paces each request's start at the server (backend.Starter
// and backend.Holder) and renews fetch leases (backend.LeaseRenewer), one
// script each.

import (
	"context"
	"fmt"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// futureSlack is how far past Redis's clock a host's latest start may
// lie before Start treats it as broken and replaces it, as
// backend.Starter asks.
const futureSlack = time.Second

// Start implements backend.Starter with one script (startScript) timed by
// Redis's clock (TIME), never the caller's. The host's pace key holds the
// latest start granted, the latest positive delay and the token it was
// granted to. A value Start cannot read (garbage, a key of another type,
// a start more than a second ahead of Redis's clock) is replaced in the
// same script, and repaired is true. Delays are rounded up to the
// microsecond, so a gap is never shortened. The key expires once its
// start is older than the longer of the delay and backend.MinPaceKeep,
// plus a second.
func (b *Backend) Start(ctx context.Context, host, token string, delay time.Duration) (time.Duration, bool, error) {
	key := b.keys.pace(host)
	var res []int64
	err := b.do(ctx, "start", key, func(ctx context.Context) error {
		var err error
		res, err = startScript.Run(ctx, b.client, []string{key}, token, ceilDiv(delay, time.Microsecond),
			micros(futureSlack), micros(zeroMarkHold), micros(paceMargin)).Int64Slice()
		return err
	})
	if err != nil {
		return 0, false, err
	}
	if len(res) != 2 {
		return 0, false, fmt.Errorf("redisbackend: start %s: script answered %v", key, res)
	}
	return time.Duration(max(res[0], 0)) * time.Microsecond, res[1] == 1, nil
}

// Hold implements backend.Holder with one script (holdScript) on the
// same pace key as Start, timed by Redis's clock. A hold that cannot have
// been written by this contract (one expiring more than hold and a second
// ahead) is dropped, and repaired is true.
func (b *Backend) Hold(ctx context.Context, host, token string, delay, hold time.Duration) (time.Duration, bool, error) {
	key := b.keys.pace(host)
	delay, hold = max(delay, 0), max(hold, 0)
	var res []int64
	err := b.do(ctx, "hold", key, func(ctx context.Context) error {
		var err error
		res, err = holdScript.Run(ctx, b.client, []string{key}, token, ceilDiv(delay, time.Microsecond),
			micros(futureSlack), micros(zeroMarkHold), micros(paceMargin), ceilDiv(hold, time.Microsecond)).Int64Slice()
		return err
	})
	if err != nil {
		return 0, false, err
	}
	if len(res) != 2 {
		return 0, false, fmt.Errorf("redisbackend: hold %s: script answered %v", key, res)
	}
	return time.Duration(max(res[0], 0)) * time.Microsecond, res[1] == 1, nil
}

// Release implements backend.Holder with one script (releaseScript).
func (b *Backend) Release(ctx context.Context, host, token string) error {
	key := b.keys.pace(host)
	return b.do(ctx, "release", key, func(ctx context.Context) error {
		return releaseScript.Run(ctx, b.client, []string{key}, token, 0,
			micros(futureSlack), micros(zeroMarkHold), micros(paceMargin)).Err()
	})
}

// Renew implements backend.LeaseRenewer: one script extends the lease's
// TTL to ttl when l's token still holds it.
func (b *Backend) Renew(ctx context.Context, origin string, l backend.Lease, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if ttl <= 0 {
		return fmt.Errorf("redisbackend: lease ttl %v must be positive", ttl)
	}
	if l.Token == "" {
		return fmt.Errorf("redisbackend: renew %s: %w (empty token)", origin, backend.ErrLeaseLost)
	}
	key := b.keys.lease(origin)
	var renewed int64
	err := b.do(ctx, "renew", key, func(ctx context.Context) error {
		var err error
		renewed, err = renewScript.Run(ctx, b.client, []string{key}, l.Token, ceilDiv(ttl, time.Millisecond)).Int64()
		return err
	})
	if err != nil {
		return err
	}
	if renewed != 1 {
		return fmt.Errorf("redisbackend: renew %s: %w", origin, backend.ErrLeaseLost)
	}
	return nil
}
