package redisbackend

// This file is the page cache's store for a fleet: robotsext.WithPageStore
// over Redis, each page one string key with a TTL.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	// DefaultPageTTL is how long a page stays in a PageStore when
	// WithPageTTL is not given: a week, so a weekly recrawl finds it.
	DefaultPageTTL = 7 * 24 * time.Hour
	// DefaultPageMaxBytes is the largest entry a PageStore keeps when
	// WithPageMaxBytes is not given.
	DefaultPageMaxBytes = 1 << 20
)

// PageStore is a robotsext.PageStore in Redis, so that a fleet's workers
// share one page cache: give the same one (or one on the same Redis and
// prefix) to each worker's robotsext.WithPageStore. Each page is one
// string key, prefix+"page:"+the SHA-256 of the cache key, set with a TTL
// (WithPageTTL) and only when its entry is within WithPageMaxBytes: so
// every key expires, and the memory it takes is bounded by the pages a
// fleet fetches within one TTL, each at most WithPageMaxBytes. To bound
// the total as well, run Redis with a maxmemory and the volatile-lru (or
// allkeys-lru) policy: an evicted page is a miss, nothing more. Each call
// is one Redis command, bounded by the client's timeouts. It is safe for
// concurrent use.
type PageStore struct {
	client   redis.UniversalClient
	prefix   string
	ttl      time.Duration
	maxBytes int
	skipped  atomic.Uint64
}

// PageOption configures NewPageStore.
type PageOption func(*PageStore)

// WithPagePrefix sets the keys' prefix (default "robotsext:", the
// Backend's).
func WithPagePrefix(p string) PageOption { return func(s *PageStore) { s.prefix = p } }

// WithPageTTL sets how long a page is kept (DefaultPageTTL when d ≤ 0).
func WithPageTTL(d time.Duration) PageOption { return func(s *PageStore) { s.ttl = d } }

// WithPageMaxBytes sets the largest entry kept (DefaultPageMaxBytes when
// n ≤ 0); a larger one is not stored (see Skipped) and its page is
// fetched again next time.
func WithPageMaxBytes(n int) PageOption { return func(s *PageStore) { s.maxBytes = n } }

// ErrNoPageClient is returned by a PageStore made without a client.
var ErrNoPageClient = errors.New("redisbackend: PageStore has no redis client")

// NewPageStore returns a PageStore over client.
func NewPageStore(client redis.UniversalClient, opts ...PageOption) *PageStore {
	s := &PageStore{client: client, prefix: "robotsext:"}
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	if s.ttl <= 0 {
		s.ttl = DefaultPageTTL
	}
	if s.maxBytes <= 0 {
		s.maxBytes = DefaultPageMaxBytes
	}
	return s
}

// key is the Redis key of a cache key.
func (s *PageStore) key(k string) string {
	sum := sha256.Sum256([]byte(k))
	return s.prefix + "page:" + hex.EncodeToString(sum[:])
}

// Get returns the entry of key; ok is false when Redis holds none.
func (s *PageStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if s == nil || s.client == nil {
		return nil, false, ErrNoPageClient
	}
	b, err := s.client.Get(ctx, s.key(key)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return b, true, nil
}

// Set stores entry under key for the TTL; an entry over the byte bound is
// not stored (counted in Skipped), and whatever was stored under key is
// deleted, so that an old copy does not outlive a new one too large.
func (s *PageStore) Set(ctx context.Context, key string, entry []byte) error {
	if s == nil || s.client == nil {
		return ErrNoPageClient
	}
	if len(entry) > s.maxBytes {
		s.skipped.Add(1)
		return s.client.Del(ctx, s.key(key)).Err()
	}
	return s.client.Set(ctx, s.key(key), entry, s.ttl).Err()
}

// Delete removes the entry of key.
func (s *PageStore) Delete(ctx context.Context, key string) error {
	if s == nil || s.client == nil {
		return ErrNoPageClient
	}
	return s.client.Del(ctx, s.key(key)).Err()
}

// Skipped counts the entries not stored for being over the byte bound.
func (s *PageStore) Skipped() uint64 { return s.skipped.Load() }
