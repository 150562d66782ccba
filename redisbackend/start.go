package redisbackend

// This file paces each request's start at the server (backend.Starter
// and backend.Claimer) and renews fetch leases (backend.LeaseRenewer), one
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
			micros(futureSlack), micros(zeroMarkKeep), micros(paceMargin)).Int64Slice()
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

// Claim implements backend.Claimer with one script (claimScript) on the
// same pace key as Start, timed by Redis's clock. A claim that cannot have
// been written by this contract (one expiring more than ttl and a second
// ahead) is dropped, and repaired is true.
func (b *Backend) Claim(ctx context.Context, host, token string, delay, ttl time.Duration) (time.Duration, bool, error) {
	key := b.keys.pace(host)
	delay, ttl = max(delay, 0), max(ttl, 0)
	var res []int64
	err := b.do(ctx, "claim", key, func(ctx context.Context) error {
		var err error
		res, err = claimScript.Run(ctx, b.client, []string{key}, token, ceilDiv(delay, time.Microsecond),
			micros(futureSlack), micros(zeroMarkKeep), micros(paceMargin), ceilDiv(ttl, time.Microsecond)).Int64Slice()
		return err
	})
	if err != nil {
		return 0, false, err
	}
	if len(res) != 2 {
		return 0, false, fmt.Errorf("redisbackend: claim %s: script answered %v", key, res)
	}
	return time.Duration(max(res[0], 0)) * time.Microsecond, res[1] == 1, nil
}

// Unclaim implements backend.Claimer with one script (unclaimScript),
// which also records the claim's service time in the host's queue.
func (b *Backend) Unclaim(ctx context.Context, host, token string) error {
	key := b.keys.pace(host)
	return b.do(ctx, "unclaim", key, func(ctx context.Context) error {
		return unclaimScript.Run(ctx, b.client, []string{key, b.keys.queue(host)}, token, 0,
			micros(futureSlack), micros(zeroMarkKeep), micros(paceMargin)).Err()
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
