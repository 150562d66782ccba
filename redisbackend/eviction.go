package redisbackend

// This file reads the server's maxmemory-policy once, at first use, and
// warns when Redis may evict the fleet's state.

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// eviction is what a Backend knows of its server's maxmemory-policy.
type eviction struct {
	state  atomic.Int32 // evictUnchecked, evictChecking or evictChecked
	policy atomic.Pointer[string]
	warned sync.Once
}

// The states of eviction.state.
const (
	evictUnchecked int32 = iota
	evictChecking
	evictChecked
)

// maybeCheckEviction starts reading the policy in the background after
// the first call that succeeded; only the caller that moves the state on
// starts it.
func (b *Backend) maybeCheckEviction() {
	if b.bootChecksEviction() {
		return // the first heartbeat, on its way, reads it (boot.go)
	}
	if b.evict.state.Load() != evictUnchecked || !b.evict.state.CompareAndSwap(evictUnchecked, evictChecking) {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), b.cfg.timeout)
		defer cancel()
		if _, err := b.CheckEviction(ctx); err != nil && !refused(err) {
			b.evict.state.Store(evictUnchecked) // a later call tries again
		}
	}()
}

// EvictionPolicy returns the server's maxmemory-policy as the Backend read
// it at first use ("noeviction", "allkeys-lru", …), or "" while it is not
// known: not read yet, or CONFIG GET refused (managed services often
// rename or forbid CONFIG).
//
// noeviction is the policy to use. Any other lets Redis drop the fleet's
// keys when it reaches maxmemory: every key this package writes has a
// TTL, so volatile-* policies evict them as allkeys-* do. An evicted pace
// lets the next request to its host start at once (a gap shorter than
// the Crawl-delay); an evicted lease lets a second worker fetch
// robots.txt; an evicted record is fetched again. With noeviction a full
// Redis refuses writes instead (OOM errors): those calls fail, the
// Backend turns unhealthy and the Extension paces locally at the delay ×
// FleetSize until memory is freed, which keeps the fleet polite. The
// Backend logs a warning once (WithLogger) when it reads an evicting
// policy.
func (b *Backend) EvictionPolicy() string {
	if p := b.evict.policy.Load(); p != nil {
		return *p
	}
	return ""
}

// CheckEviction reads the server's maxmemory-policy now (CONFIG GET; on a
// Cluster every master's and on a Ring every shard's, reporting an
// evicting one first), remembers it for EvictionPolicy, and logs the
// warning EvictionPolicy describes once per Backend. A Backend does this
// by itself after its first successful call; call it to check at start,
// before the crawl. The error is CONFIG GET's, such as a refusal; it
// does not count against the breaker.
func (b *Backend) CheckEviction(ctx context.Context) (string, error) {
	if err := b.usable(); err != nil {
		return "", err
	}
	var policy string
	read := func(ctx context.Context, c redis.UniversalClient) error {
		m, err := c.ConfigGet(ctx, "maxmemory-policy").Result()
		if err != nil {
			return err
		}
		if p := m["maxmemory-policy"]; policy == "" || policy == "noeviction" {
			policy = p
		}
		return nil
	}
	call := func(ctx context.Context) error {
		var mu sync.Mutex
		each := func(ctx context.Context, n *redis.Client) error {
			mu.Lock()
			defer mu.Unlock()
			return read(ctx, n)
		}
		switch c := b.client.(type) {
		case *redis.ClusterClient:
			return c.ForEachMaster(ctx, each)
		case *redis.Ring:
			return c.ForEachShard(ctx, each)
		default:
			return read(ctx, c)
		}
	}
	var err error
	if b.enforced {
		err = call(ctx)
	} else {
		err = bounded(ctx, call)
	}
	if err != nil {
		if refused(err) {
			b.evict.state.Store(evictChecked)
			b.cfg.log().Debug("redisbackend: cannot read maxmemory-policy; make sure it is noeviction", "error", err)
		}
		return "", err
	}
	b.recordEviction(policy)
	return policy, nil
}

// recordEviction remembers the policy read and logs the warning
// EvictionPolicy describes, once per Backend.
func (b *Backend) recordEviction(policy string) {
	b.evict.policy.Store(&policy)
	b.evict.state.Store(evictChecked)
	if evicts(policy) {
		b.evict.warned.Do(func() {
			b.cfg.log().Warn("redisbackend: Redis may evict the fleet's politeness state; set maxmemory-policy noeviction",
				"maxmemory_policy", policy,
				"evicted_pace", "the next request to its host starts at once, shorter than its Crawl-delay",
				"evicted_lease", "a second worker fetches the same robots.txt",
				"evicted_record", "robots.txt is fetched again")
		})
	}
}

// evicts reports whether a maxmemory-policy can drop this package's keys
// (which all have TTLs): every policy but noeviction.
func evicts(policy string) bool { return policy != "" && policy != "noeviction" }

// refused reports whether err is the server's answer (an error reply such
// as an unknown or forbidden command) rather than a failure to reach it
// or a server still loading its data.
func refused(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && !redis.IsLoadingError(err)
}
