package redisbackend

// This file lets an operator read what the fleet holds: the origins with a
// record, and one origin's record and lease. The robotsadmin command
// (cmd/robotsadmin) is built on it; Forget (the purge) is the Forgetter's.

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"
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

// Inspect reads origin's record and lease, and its host's pause, in one
// round trip. origin is in
// the Extension's form: scheme, lower-case host, port only when not the
// default ("https://example.com", "http://[::1]:8080").
func (b *Backend) Inspect(ctx context.Context, origin string) (OriginState, error) {
	sts, err := b.InspectMany(ctx, []string{origin})
	if err != nil {
		return OriginState{Origin: origin}, err
	}
	return sts[0], nil
}

// InspectMany reads the records and leases of many origins in one
// pipelined round trip, bounded like every call by WithTimeout: it is how
// an operator's tool reads a large fleet page by page (see ScanOrigins)
// rather than one origin at a time. The states come in the order of
// origins.
func (b *Backend) InspectMany(ctx context.Context, origins []string) ([]OriginState, error) {
	if len(origins) == 0 {
		return nil, nil
	}
	type reads struct {
		raw, holder, pause *redis.StringCmd
		recTTL, leaseTTL   *redis.DurationCmd
	}
	rs := make([]reads, len(origins))
	key := b.keys.record(origins[0])
	if len(origins) > 1 {
		key = fmt.Sprintf("%s and %d more", key, len(origins)-1)
	}
	err := b.do(ctx, "inspect", key, func(ctx context.Context) error {
		// Pipelined's own error is the first command's, perhaps a
		// redis.Nil or a pause key of another type: each command's error
		// is looked at below instead.
		cmds, _ := b.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			for i, o := range origins {
				recKey, leaseKey := b.keys.record(o), b.keys.lease(o)
				rs[i].raw, rs[i].recTTL = p.Get(ctx, recKey), p.PTTL(ctx, recKey)
				rs[i].holder, rs[i].leaseTTL = p.Get(ctx, leaseKey), p.PTTL(ctx, leaseKey)
				rs[i].pause = p.Get(ctx, b.keys.pause(hostOfOrigin(o)))
			}
			return nil
		})
		pauses := make(map[redis.Cmder]bool, len(rs))
		for _, r := range rs {
			pauses[r.pause] = true
		}
		var err error
		for _, c := range cmds {
			if pauses[c] && isWrongType(c.Err()) {
				continue // a pause key of another type reads as unreadable
			}
			if err == nil && c.Err() != nil && !errors.Is(c.Err(), redis.Nil) {
				err = c.Err() // Pipelined returns the first error, perhaps a redis.Nil
			}
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	sts := make([]OriginState, len(origins))
	for i, r := range rs {
		st := OriginState{Origin: origins[i]}
		if body, err := r.raw.Bytes(); err == nil {
			st.RecordTTL = max(r.recTTL.Val(), 0)
			if st.Record, err = decodeRecord(body); err != nil {
				st.Record, st.Corrupt = nil, true
			}
		}
		if tok, err := r.holder.Result(); err == nil {
			st.LeaseHolder, st.LeaseTTL = tok, max(r.leaseTTL.Val(), 0)
		}
		if v, err := r.pause.Result(); err == nil {
			st.Pause, st.PauseEnds = readPause(v)
		} else if !errors.Is(err, redis.Nil) {
			st.Pause = "unreadable" // a key of another type
		}
		sts[i] = st
	}
	return sts, nil
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
// Backend's prefix, in no particular order, as ScanOrigins finds them.
// It stops at fn's first error and returns it.
func (b *Backend) Origins(ctx context.Context, fn func(origin string) error) error {
	return b.ScanOrigins(ctx, "", func(page []string) error {
		for _, o := range page {
			if err := fn(o); err != nil {
				return err
			}
		}
		return nil
	})
}

// ErrBadHostPattern is returned by ScanOrigins for a host pattern it cannot
// use: malformed (path.Match syntax) or holding a brace, which Redis would
// read as the end of the key's hash tag.
var ErrBadHostPattern = errors.New("redisbackend: bad host pattern")

// scanCount is the COUNT hint of each SCAN call: about how many keys Redis
// looks at per call, and so per page of ScanOrigins.
const scanCount = 1000

// ScanOrigins calls fn with each page of origins that have a record under
// the Backend's prefix, in no particular order, scanning the key space in
// batches (SCAN, every master of a Cluster) so that a large fleet state
// does not block Redis. Each SCAN call is bounded by WithTimeout, not the
// whole scan, so a million origins take as long as they take while a
// Redis that stops answering is noticed within one timeout; ctx bounds
// the whole. fn is never called concurrently and never with an empty
// page; a page holds about a thousand origins at most. An origin whose record is written during the scan may
// be missed and one may come twice (SCAN's guarantee).
//
// hostGlob, when not "", keeps only origins whose host (with its port, as
// "shop.example:8080") matches it, in path.Match syntax ("*.example.com",
// "shop-[0-9].example"); Redis filters the keys (SCAN MATCH) and the match
// is checked again here. A pattern that is malformed or holds '{' or '}'
// is an error wrapping ErrBadHostPattern.
//
// ScanOrigins stops at fn's first error and returns it.
func (b *Backend) ScanOrigins(ctx context.Context, hostGlob string, fn func(origins []string) error) error {
	if err := b.usable(); err != nil {
		return err
	}
	hostMatch := "*"
	if hostGlob != "" {
		if _, err := path.Match(hostGlob, ""); err != nil || strings.ContainsAny(hostGlob, "{}") {
			return fmt.Errorf("%w %q: want a path.Match pattern without braces, such as *.example.com", ErrBadHostPattern, hostGlob)
		}
		hostMatch = strings.ReplaceAll(hostGlob, "%", "%25") // as tag escapes a host's '%'
	}
	match := globEscape(b.cfg.prefix) + "{" + hostMatch + "}:rec:*"
	var mu sync.Mutex // fn is not called concurrently across a Cluster's masters
	scan := func(ctx context.Context, c redis.UniversalClient) error {
		var cursor uint64
		for {
			var keys []string
			err := b.do(ctx, "scan", match, func(ctx context.Context) error {
				var err error
				keys, cursor, err = c.Scan(ctx, cursor, match, scanCount).Result()
				return err
			})
			if err != nil {
				return err
			}
			page := make([]string, 0, len(keys))
			for _, k := range keys {
				o, ok := b.keys.originOfRecord(k)
				if !ok {
					continue
				}
				if hostGlob != "" {
					if m, _ := path.Match(hostGlob, hostOfOrigin(o)); !m {
						continue
					}
				}
				page = append(page, o)
			}
			if len(page) > 0 {
				mu.Lock()
				err = fn(page)
				mu.Unlock()
				if err != nil {
					return err
				}
			}
			if cursor == 0 {
				return nil
			}
		}
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
// prefix (a record, a lease, a pace, the fleet set of heartbeats or the
// purge log): false usually means a wrong prefix. A fleet whose records
// were all purged still has its purge log (kept backend.MaxStale after the
// latest purge), so it is told apart from a prefix that never held
// anything.
func (b *Backend) HasState(ctx context.Context) (bool, error) {
	if err := b.usable(); err != nil {
		return false, err
	}
	found := false
	err := b.do(ctx, "scan", b.cfg.prefix+"*", func(ctx context.Context) error {
		// Two EXISTS rather than one: in a Cluster the two keys live in
		// different slots.
		var fleet, purges *redis.IntCmd
		if _, err := b.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			fleet, purges = p.Exists(ctx, b.keys.fleet()), p.Exists(ctx, b.keys.purges())
			return nil
		}); err != nil {
			return err
		}
		if fleet.Val()+purges.Val() > 0 {
			found = true
			return nil
		}
		var mu sync.Mutex
		scan := func(ctx context.Context, c redis.UniversalClient) error {
			it := c.Scan(ctx, 0, globEscape(b.cfg.prefix)+"{*", 1000).Iterator()
			hit := it.Next(ctx)
			mu.Lock()
			found = found || hit
			mu.Unlock()
			return it.Err()
		}
		if cc, ok := b.client.(*redis.ClusterClient); ok {
			// Each master holds its own slots' keys.
			return cc.ForEachMaster(ctx, func(ctx context.Context, c *redis.Client) error { return scan(ctx, c) })
		}
		return scan(ctx, b.client)
	})
	if err != nil {
		return false, fmt.Errorf("redisbackend: look for keys under %q: %w", b.cfg.prefix, err)
	}
	return found, nil
}
