package redisbackend

// This file is a Backend's first round trip. A worker that starts reads
// the fleet-wide state once: it renews its heartbeat, checks the server's
// eviction policy, takes the purge log's cursor and reads the pauses in
// force. Sent as four calls they race each other at the worker's first
// request, each on a connection of its own; sent as one pipeline they
// cost one round trip and one connection. At a thousand workers starting
// together that is thousands of calls and connections fewer.

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// bootPauseRead is the page of paused hosts the first round trip reads:
// the n robotsext asks PausesSince for. A call with another n reads for
// itself.
const bootPauseRead = 1000

// bootFresh bounds how long the first round trip's reads stand in for a
// caller's own. An older cursor is safe (the next read from it sees every
// purge and pause since), but the logs are trimmed, and an old enough
// cursor would read as a cut log.
const bootFresh = 2 * time.Second

// boot holds the first round trip's answers, each given to one caller.
// The zero value is ready: the round trip runs at the first need (once).
type boot struct {
	once    sync.Once
	started atomic.Bool // the round trip has been asked for

	// Set by the round trip, read after once.Do returned.
	ok     bool      // every read answered
	at     time.Time // cfg.now when it was sent
	purge  string    // the purge log's cursor
	tail   []string  // pauseLogReadScript's answer: where the pause log ends
	page   []string  // pauseIndexPageScript's answer: the index's first page
	purged atomic.Bool
	paused atomic.Bool
	beaten atomic.Bool // the round trip renewed the heartbeat: the first beat is done
}

// bootChecksEviction reports whether the first round trip, not yet sent,
// will read the eviction policy: on a single Redis with the heartbeat on,
// the first successful call starts the heartbeat, which sends it.
func (b *Backend) bootChecksEviction() bool {
	return !b.boot.started.Load() && b.cfg.heartbeat >= 0 && !b.fleet.closed.Load() && b.singleNode()
}

// singleNode reports whether the client talks to one Redis (not a Cluster
// or a Ring), where CONFIG GET in a pipeline reaches the server the keys
// live on.
func (b *Backend) singleNode() bool {
	switch b.client.(type) {
	case *redis.ClusterClient, *redis.Ring:
		return false
	}
	return true
}

// runBoot sends the first round trip (once; callers meanwhile wait for
// its answer, bounded by WithTimeout) and reports whether it answered.
func (b *Backend) runBoot() bool {
	b.boot.once.Do(func() {
		b.boot.started.Store(true)
		b.sendBoot(context.Background())
	})
	return b.boot.ok
}

// sendBoot sends the pipeline: the heartbeat (when on), CONFIG GET
// maxmemory-policy (on a single Redis, when no check has started), the
// purge log's cursor and a full read of the pauses. A server that does
// not know the scripts yet gets them in full (EVAL) in a second round
// trip. A refused CONFIG GET is the eviction check's to log, not a
// failure of the call.
func (b *Backend) sendBoot(ctx context.Context) {
	beat := b.cfg.heartbeat >= 0 && !b.fleet.closed.Load()
	config := b.singleNode() && b.evict.state.CompareAndSwap(evictUnchecked, evictChecking)
	fleetKey, purgeKey, idx, logKey := b.keys.fleet(), b.keys.purges(), b.keys.pauses(), b.keys.pauseLog()
	var hb, purge, tail, page *redis.Cmd
	var policy *redis.MapStringStringCmd
	send := func(ctx context.Context, eval bool) error {
		_, _ = b.client.Pipelined(ctx, func(p redis.Pipeliner) error {
			run := func(s *redis.Script, key string, args ...any) *redis.Cmd {
				if eval {
					return s.Eval(ctx, p, []string{key}, args...)
				}
				return s.EvalSha(ctx, p, []string{key}, args...)
			}
			if beat {
				hb = run(heartbeatScript, fleetKey, b.fleet.member, ceilDiv(3*b.cfg.heartbeat, time.Millisecond))
			}
			if config {
				policy = p.ConfigGet(ctx, "maxmemory-policy")
			}
			purge = run(purgeCursorScript, purgeKey, purgeLogLen, ceilDiv(purgeLogTTL, time.Millisecond), newNonce())
			tail = run(pauseLogReadScript, logKey, "", "", bootPauseRead, pauseLogKeep.Milliseconds())
			page = run(pauseIndexPageScript, idx, "", "", bootPauseRead)
			return nil
		})
		// The scripts' errors are the call's; CONFIG GET's is not.
		for _, c := range []*redis.Cmd{hb, purge, tail, page} {
			if c != nil && c.Err() != nil {
				return c.Err()
			}
		}
		return nil
	}
	at := b.cfg.now()
	err := b.do(ctx, "first round trip", fleetKey, func(ctx context.Context) error {
		err := send(ctx, false)
		if redis.HasErrorPrefix(err, "NOSCRIPT") {
			err = send(ctx, true)
		}
		return err
	})
	if config {
		b.bootEviction(policy, err)
	}
	if err != nil {
		return
	}
	if beat {
		if n, err := hb.Int64(); err == nil && !b.fleet.closed.Load() {
			b.fleet.learn(n)
			b.boot.beaten.Store(true)
		}
	}
	cursor, err1 := purge.StringSlice()
	t, err2 := tail.StringSlice()
	pg, err3 := page.StringSlice()
	if err1 != nil || err2 != nil || err3 != nil || len(cursor) != 2 || cursor[0] == "" || len(t) != 2 {
		return
	}
	b.boot.at, b.boot.purge, b.boot.tail, b.boot.page, b.boot.ok = at, cursor[0]+"/"+cursor[1], t, pg, true
}

// bootEviction records the eviction policy the first round trip read, as
// CheckEviction does; when it could not be read, a later call checks
// again (or, refused, never).
func (b *Backend) bootEviction(policy *redis.MapStringStringCmd, err error) {
	if err == nil && policy != nil {
		err = policy.Err()
	}
	switch {
	case err == nil:
		b.recordEviction(policy.Val()["maxmemory-policy"])
	case refused(err):
		b.evict.state.Store(evictChecked)
		b.cfg.log().Debug("redisbackend: cannot read maxmemory-policy; make sure it is noeviction", "error", err)
	default:
		b.evict.state.Store(evictUnchecked)
	}
}

// bootPurges returns the purge log's cursor the first round trip read,
// once, while fresh (running the round trip when nobody has yet).
func (b *Backend) bootPurges() (string, bool) {
	if !b.runBoot() || !b.bootFresh() || !b.boot.purged.CompareAndSwap(false, true) {
		return "", false
	}
	return b.boot.purge, true
}

// bootPauses returns the full read of the pauses the first round trip
// made (see PausesSince), once, while fresh.
func (b *Backend) bootPauses() (tail, page []string, ok bool) {
	if !b.runBoot() || !b.bootFresh() || !b.boot.paused.CompareAndSwap(false, true) {
		return nil, nil, false
	}
	return b.boot.tail, b.boot.page, true
}

// bootFresh reports whether the first round trip's answers may still
// stand in for a caller's own read.
func (b *Backend) bootFresh() bool {
	return b.cfg.now().Sub(b.boot.at) < bootFresh
}
