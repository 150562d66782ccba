package redisbackend

// This file lets an operator read what the fleet holds: the origins with a
// record, and one origin's record and lease. The robotsadmin command
// (cmd/robotsadmin) is built on it; Forget (the purge) is the Forgetter's.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext/backend"
)

// OriginState is what Redis holds for one origin, as Inspect reads it.
type OriginState struct {
	// Origin is the origin, as "https://example.com".
	Origin string
	// Record is the stored record; nil when none is stored or it cannot
	// be decoded (Corrupt).
	Record *backend.Record
	// Corrupt is true when a record is stored that this package cannot
	// decode (damaged, or written by a later version).
	Corrupt bool
	// RecordTTL is how long Redis keeps the record; 0 without one.
	RecordTTL time.Duration
	// LeaseHolder is the token of the worker fetching robots.txt now ("":
	// nobody). Tokens begin with the holder's worker id (WithWorkerID).
	LeaseHolder string
	// LeaseTTL is how long the holder keeps the lease unless it renews it.
	LeaseTTL time.Duration
	// Pause is the host's back-off (backend.Pauser): "" in good health,
	// "paused", "probing" or "recovering" after it asked for less, or
	// "unreadable" (the next call repairs it). PauseEnds is, by Redis's
	// clock, when the pause ends (paused), the probe expires (probing) or
	// the next start of the recovery may go (recovering).
	Pause     string
	PauseEnds time.Time
}

// Inspect reads origin's record and lease in one round trip. origin is in
// the Extension's form: scheme, lower-case host, port only when not the
// default ("https://example.com", "http://[::1]:8080").
func (b *Backend) Inspect(ctx context.Context, origin string) (OriginState, error) {
	st := OriginState{Origin: origin}
	recKey, leaseKey := b.keys.record(origin), b.keys.lease(origin)
	pauseKey := b.keys.pause(hostOfOrigin(origin))
	var (
		raw, holder, ps  *redis.StringCmd
		recTTL, leaseTTL *redis.DurationCmd
	)
	err := b.do(ctx, "inspect", recKey, func(ctx context.Context) error {
		_, err := b.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			raw, recTTL = p.Get(ctx, recKey), p.PTTL(ctx, recKey)
			holder, leaseTTL = p.Get(ctx, leaseKey), p.PTTL(ctx, leaseKey)
			ps = p.Get(ctx, pauseKey)
			return nil
		})
		if errors.Is(err, redis.Nil) {
			err = nil // a missing key is an answer here
		}
		return err
	})
	if err != nil {
		return st, err
	}
	if body, err := raw.Bytes(); err == nil {
		st.RecordTTL = max(recTTL.Val(), 0)
		if st.Record, err = decodeRecord(body); err != nil {
			st.Record, st.Corrupt = nil, true
		}
	}
	if tok, err := holder.Result(); err == nil {
		st.LeaseHolder, st.LeaseTTL = tok, max(leaseTTL.Val(), 0)
	}
	if v, err := ps.Result(); err == nil {
		st.Pause, st.PauseEnds = readPause(v)
	} else if !errors.Is(err, redis.Nil) {
		st.Pause = "unreadable" // a key of another type
	}
	return st, nil
}

// readPause reads a pause key's value as pausePrelude writes it.
func readPause(v string) (phase string, ends time.Time) {
	var ph int
	var until, length, probeUntil, gap, last int64
	if _, err := fmt.Sscanf(v, "%d %d %d %d %d %d", &ph, &until, &length, &probeUntil, &gap, &last); err != nil {
		return "unreadable", time.Time{}
	}
	switch ph {
	case 1:
		return "paused", time.UnixMicro(until)
	case 2:
		return "probing", time.UnixMicro(probeUntil)
	case 3:
		return "recovering", time.UnixMicro(last + gap)
	}
	return "unreadable", time.Time{}
}

// Origins calls fn with each origin that has a record under the
// Backend's prefix, in no particular order, scanning the key space in
// batches (SCAN, every master of a Cluster) so that a large fleet state
// does not block Redis. It stops at fn's first error and returns it.
func (b *Backend) Origins(ctx context.Context, fn func(origin string) error) error {
	if b.client == nil {
		return ErrNoClient
	}
	match := globEscape(b.cfg.prefix) + "{*}:rec:*"
	scan := func(ctx context.Context, c redis.UniversalClient) error {
		it := c.Scan(ctx, 0, match, 512).Iterator()
		for it.Next(ctx) {
			if o, ok := b.keys.originOfRecord(it.Val()); ok {
				if err := fn(o); err != nil {
					return err
				}
			}
		}
		return it.Err()
	}
	if cc, ok := b.client.(*redis.ClusterClient); ok {
		return cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return scan(ctx, c) })
	}
	return scan(ctx, b.client)
}

// originOfRecord returns the origin a record key names.
func (k keys) originOfRecord(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, k.prefix)
	if !ok {
		return "", false
	}
	i := strings.Index(rest, "}:rec:")
	if i < 0 || !strings.HasPrefix(rest, "{") {
		return "", false
	}
	origin := rest[i+len("}:rec:"):]
	if k.record(origin) != key {
		return "", false // not a key this package wrote
	}
	return origin, true
}

// globEscape escapes the characters SCAN's MATCH pattern treats specially.
func globEscape(s string) string {
	if !strings.ContainsAny(s, `*?[]\`) {
		return s
	}
	var sb strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]\`, r) {
			sb.WriteByte('\\')
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

// HasState reports whether anything at all is stored under the Backend's
// prefix (a record, a lease, a pace or the fleet set): false usually means
// a wrong prefix.
func (b *Backend) HasState(ctx context.Context) (bool, error) {
	if b.client == nil {
		return false, ErrNoClient
	}
	found := false
	err := b.do(ctx, "scan", b.cfg.prefix+"*", func(ctx context.Context) error {
		n, err := b.client.Exists(ctx, b.keys.fleet()).Result()
		if err != nil || n > 0 {
			found = n > 0
			return err
		}
		it := b.client.Scan(ctx, 0, globEscape(b.cfg.prefix)+"{*", 1000).Iterator()
		found = it.Next(ctx)
		return it.Err()
	})
	if err != nil {
		return false, fmt.Errorf("redisbackend: look for keys under %q: %w", b.cfg.prefix, err)
	}
	return found, nil
}
