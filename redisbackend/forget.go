package redisbackend

// This file is the fleet-wide purge (backend.Forgetter): Forget deletes
// an origin's record and lease and appends the origin to a purge log that
// every worker reads from its own cursor.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext/backend"
)

const (
	// purgeLogLen is about how many purges the log keeps (a stream
	// trimmed with MAXLEN ~, so a little more at times): a worker further
	// behind drops every near-cached record.
	purgeLogLen = 1024
	// purgeRead is the most entries one Purges returns; a reader further
	// behind gets the rest on its next call.
	purgeRead = 2 * purgeLogLen
	// purgeLogTTL is how long the log outlives its latest write: the
	// longest a record is kept (backend.MaxStale). A log that expired
	// makes every reader drop its near-cache once, which is safe.
	purgeLogTTL = backend.MaxStale
)

// Forget implements backend.Forgetter: it deletes origin's record and
// lease (one DEL, both keys in the origin's slot), then appends origin to
// the purge log (a script: XADD with MAXLEN ~ 1024, and the log's TTL),
// two round trips in one call. The record goes first, so that a worker
// reading the purge never loads the old record again. Forgetting an
// origin with no record is logged too: a worker may hold a near-cached
// copy of it.
func (b *Backend) Forget(ctx context.Context, origin string) error {
	recKey, leaseKey, logKey := b.keys.record(origin), b.keys.lease(origin), b.keys.purges()
	return b.do(ctx, "forget", recKey, func(ctx context.Context) error {
		if err := b.client.Del(ctx, recKey, leaseKey).Err(); err != nil {
			return err
		}
		return purgeScript.Run(ctx, b.client, []string{logKey}, origin, purgeLogLen,
			ceilDiv(purgeLogTTL, time.Millisecond), newNonce()).Err()
	})
}

// Purges implements backend.Forgetter. The log is a Redis stream whose
// entries carry a random nonce, and a cursor names the latest entry the
// reader has seen by its id and nonce ("1732440000000-0/9f8e7d6c5b4a3210").
// A call reads from the cursor's own entry on (XRANGE, inclusive): when
// that entry is still there with that nonce, the log reaches back to the
// cursor and the entries after it are the purges to apply; nothing purged
// costs that one read, answered with the cursor's entry alone. When it is
// gone (the log was trimmed past it, expired, deleted, or Redis restarted
// empty; the nonce tells a new log's entry with a reused id apart) or the
// cursor is not one of this package's, all is true and a second call
// returns the log's latest entry as the next cursor. Within the recovery
// grace after a failed call (WithRecoveryGrace), a cut log is reported
// only once the grace has passed (meanwhile Purges reports nothing and
// returns the same cursor): after an outage, most likely a Redis that
// restarted empty, the workers drop their near-caches once they share
// Redis again, and fetch each robots.txt once for the fleet through the
// lease rather than each on its own while still in fallback. A cursor of
// "" costs the second call only; when no log exists it starts one with a
// marker entry, so that the cursor names an entry the next read can find.
func (b *Backend) Purges(ctx context.Context, cursor string) ([]string, string, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", false, err
	}
	if cursor == "" {
		if next, ok := b.bootPurges(); ok {
			return nil, next, false, nil
		}
		next, err := b.purgeCursor(ctx)
		return nil, next, false, err
	}
	id, nonce, ok := parseCursor(cursor)
	if !ok {
		next, err := b.purgeCursor(ctx)
		return nil, next, true, err
	}
	logKey := b.keys.purges()
	var msgs []redis.XMessage
	err := b.do(ctx, "purges", logKey, func(ctx context.Context) error {
		var err error
		msgs, err = b.client.XRangeN(ctx, logKey, id, "+", purgeRead).Result()
		if isWrongType(err) {
			msgs, err = nil, nil // not a log: it no longer reaches the cursor
		}
		return err
	})
	if err != nil {
		return nil, "", false, err
	}
	if len(msgs) == 0 || msgs[0].ID != id || entryNonce(msgs[0]) != nonce {
		if b.inGrace() {
			// Redis failed lately, and the log is gone most likely
			// because it restarted empty. Workers that still pace
			// locally would answer a drop with a local robots.txt
			// fetch each: report the cut once the fleet is back.
			return nil, cursor, false, nil
		}
		next, err := b.purgeCursor(ctx)
		return nil, next, true, err
	}
	var origins []string
	for _, m := range msgs[1:] {
		if o, ok := m.Values["origin"].(string); ok {
			origins = append(origins, o)
		}
	}
	last := msgs[len(msgs)-1]
	return origins, last.ID + "/" + entryNonce(last), false, nil
}

// purgeCursor returns the cursor of the purge log's latest entry,
// starting the log when there is none (purgeCursorScript).
func (b *Backend) purgeCursor(ctx context.Context) (string, error) {
	logKey := b.keys.purges()
	var res []string
	err := b.do(ctx, "purges", logKey, func(ctx context.Context) error {
		var err error
		res, err = purgeCursorScript.Run(ctx, b.client, []string{logKey}, purgeLogLen,
			ceilDiv(purgeLogTTL, time.Millisecond), newNonce()).StringSlice()
		return err
	})
	if err != nil {
		return "", err
	}
	if len(res) != 2 || res[0] == "" {
		return "", fmt.Errorf("redisbackend: purges: the log answered %q", res)
	}
	return res[0] + "/" + res[1], nil
}

// entryNonce returns a log entry's nonce, "" when it has none.
func entryNonce(m redis.XMessage) string {
	n, _ := m.Values["n"].(string)
	return n
}

// parseCursor splits a cursor into a complete stream id ("ms-seq") and a
// nonce, and reports whether it is one.
func parseCursor(cursor string) (id, nonce string, ok bool) {
	id, nonce, ok = strings.Cut(cursor, "/")
	if !ok || nonce == "" {
		return "", "", false
	}
	ms, seq, ok := strings.Cut(id, "-")
	if !ok {
		return "", "", false
	}
	_, err1 := strconv.ParseUint(ms, 10, 64)
	_, err2 := strconv.ParseUint(seq, 10, 64)
	return id, nonce, err1 == nil && err2 == nil
}

// newNonce returns 8 random bytes in hex.
func newNonce() string {
	var r [8]byte
	_, _ = rand.Read(r[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(r[:])
}
