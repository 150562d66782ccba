package redisbackend

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext/backend"
)

// ErrUnavailable is returned (wrapped) by every method while the circuit
// breaker is open: Redis failed several calls in a row and is given a
// cool-down before it is tried again (WithBreaker). The Extension falls
// back to local fetching and pacing meanwhile.
var ErrUnavailable = errors.New("redisbackend: redis unavailable (circuit open)")

// ErrNoClient is returned by the methods of a Backend made without a
// client (a zero Backend, or New(nil)).
var ErrNoClient = errors.New("redisbackend: no redis client")

// ErrBadPrefix is returned (wrapped) by every method of a Backend made
// with a key prefix holding '{' or '}' (WithPrefix): Redis Cluster hashes
// the first {...} of a key, so such a prefix would put every key of the
// fleet in one slot, on one node, and no longer the host's keys in the
// host's slot. CheckPrefix tells beforehand.
var ErrBadPrefix = errors.New("redisbackend: key prefix holds a brace")

// CheckPrefix returns nil when prefix may start a Backend's keys, and an
// error wrapping ErrBadPrefix when it holds '{' or '}'.
func CheckPrefix(prefix string) error {
	if strings.ContainsAny(prefix, "{}") {
		return fmt.Errorf("%w: %q (Redis Cluster would read it as every key's hash tag)", ErrBadPrefix, prefix)
	}
	return nil
}

// minRecordTTL is the shortest life a record key gets, so that a record
// already past its KeepUntil when stored still serves the fleet briefly.
const minRecordTTL = time.Minute

// zeroMarkKeep is how long a start is kept at least (see reserveScript
// and startScript), whatever its delay: backend.MinPaceKeep, so that a
// first page request counts its delay from the robots.txt request, which
// was booked with delay 0 before the delay was known.
const zeroMarkKeep = backend.MinPaceKeep

// paceMargin is added to a pace key's life beyond its latest start plus
// its delay: a request that waited for that start may come back late.
const paceMargin = time.Second

// Backend is a backend.Backend over Redis (or Redis Cluster, or any
// server speaking its protocol with Lua scripting), shared by every
// worker process of a crawl. Make one with New and give it to each
// Extension with robotsext.WithBackend; it is safe for concurrent use.
//
// Besides backend.Backend it implements backend.Starter and
// backend.Claimer (each request's start paced at the server, and timed from
// its predecessor's answer), backend.Queuer (a first-come first-served
// queue per host, answered with the host's back-off), backend.LeaseRenewer
// (short leases renewed while the fetch runs), backend.Forgetter (the
// fleet-wide purge), backend.Pauser and backend.PauseWatcher (the shared
// back-off and the log of pauses begun) and backend.FleetSizer. Each method makes one Redis call (Store one EVALSHA
// checking the lease, writing the record and releasing the lease; Forget
// two, and Purges two when the log was cut), bounded by WithTimeout once it has a connection of the
// client's pool (WithInFlight) and guarded by a circuit breaker
// (WithBreaker). A caller's cancelled context is returned as is and never
// counts as a Redis failure.
type Backend struct {
	client   redis.UniversalClient
	cfg      config
	refused  error // why every call fails (ErrNoClient, a bad prefix); nil: none
	keys     keys
	br       breaker // the breaker of every call but a Cluster's (nodes)
	nodes    nodes   // a Cluster's breakers per master (scope.go)
	fleet    fleet
	evict    eviction
	boot     boot  // the first round trip (boot.go)
	conns    conns // the calls in flight, bounded by the pool (conns.go)
	enforced bool  // the client bounds socket I/O by the context; set by New

	failedAt atomic.Int64 // cfg.now of the latest failed call, Unix ns; 0: none
	failing  atomic.Bool  // the latest call sent to Redis failed

	calls    atomic.Uint64
	errs     atomic.Uint64
	rejected atomic.Uint64
	corrupt  atomic.Uint64
}

// The Backend serves robotsext as its shared state with every optional
// interface, and tells it the fleet's size for pacing while Redis is away.
var (
	_ backend.Backend      = (*Backend)(nil)
	_ backend.Starter      = (*Backend)(nil)
	_ backend.Claimer      = (*Backend)(nil)
	_ backend.LeaseRenewer = (*Backend)(nil)
	_ backend.Forgetter    = (*Backend)(nil)
	_ backend.FleetSizer   = (*Backend)(nil)
)

// New returns a Backend storing its state through client under the
// prefix (WithPrefix). The client is used, never closed; for short
// timeouts to work, make it with ContextTimeoutEnabled: true (see
// WithTimeout). New makes no call: a Redis that is down when the crawl
// starts only sends the Extension to its fallback until Redis is back.
// The first call that succeeds also sends, in the background, the
// Backend's first round trip: its heartbeat, the server's
// maxmemory-policy (see EvictionPolicy), the purge log's cursor and the
// pauses in force, in one pipeline.
func New(client redis.UniversalClient, opts ...Option) *Backend {
	cfg := newConfig(opts)
	b := &Backend{client: client, cfg: cfg, keys: keys{prefix: cfg.prefix}}
	b.br = breaker{failures: cfg.failures, coolDown: cfg.coolDown, now: cfg.now, changed: b.breakerLog("")}
	b.fleet.init(cfg.workerID, cfg.fleetSize)
	b.enforced = contextTimeouts(client)
	b.conns.bound(cfg.inFlight(client))
	switch {
	case client == nil:
		b.refused = ErrNoClient
	case CheckPrefix(cfg.prefix) != nil:
		b.refused = CheckPrefix(cfg.prefix)
		cfg.log().Error("redisbackend: every call will fail: " + b.refused.Error())
	default:
		b.watchDials() // the cause a timeout hides (scope.go)
	}
	return b
}

// usable returns nil, or why every call of b fails: it has no client (a
// zero Backend, or New(nil)) or a bad prefix.
func (b *Backend) usable() error {
	if b.client == nil {
		return ErrNoClient
	}
	return b.refused
}

// contextTimeouts reports whether client bounds its socket I/O by the
// call's context (ContextTimeoutEnabled).
func contextTimeouts(client redis.UniversalClient) bool {
	switch c := client.(type) {
	case *redis.Client:
		return c.Options().ContextTimeoutEnabled
	case *redis.ClusterClient:
		return c.Options().ContextTimeoutEnabled
	case *redis.Ring:
		return c.Options().ContextTimeoutEnabled
	}
	return false
}

// Stats are a Backend's counters since New.
type Stats struct {
	Calls    uint64 // calls sent to Redis
	Errors   uint64 // of them, failed (timeouts, network and server errors)
	Rejected uint64 // calls the open breaker failed without sending
	Trips    uint64 // times the breaker opened
	// Waited counts calls that found every connection of the client's
	// pool taken by the Backend's other calls and waited for one in the
	// process (see WithInFlight); SlowWaits, the urgent ones of them (a
	// request's wire claim and its release, a lease's renewal) that
	// waited longer than WithTimeout: the pool is too small.
	Waited, SlowWaits uint64
	// CorruptRecords counts records Load could not decode (and treated
	// as absent, to be fetched again and replaced).
	CorruptRecords uint64
	FleetSize      int // as FleetSize reports it
}

// Stats returns the Backend's counters, for monitoring.
func (b *Backend) Stats() Stats {
	var trips uint64
	b.eachBreaker(func(br *breaker) { trips += br.trips.Load() })
	return Stats{
		Calls:          b.calls.Load(),
		Errors:         b.errs.Load(),
		Rejected:       b.rejected.Load(),
		Trips:          trips,
		Waited:         b.conns.waited.Load(),
		SlowWaits:      b.conns.slowWaits.Load(),
		CorruptRecords: b.corrupt.Load(),
		FleetSize:      b.FleetSize(),
	}
}

// Healthy reports whether Redis answered the latest call sent to it: false
// from a failed call (an error, or no answer within WithTimeout) until a
// call succeeds again, and while the circuit breaker is open. Calls the
// caller cancelled change nothing. A Backend that has made no call yet is
// healthy.
func (b *Backend) Healthy() bool {
	if b.client == nil || b.failing.Load() {
		return false
	}
	open := false
	b.eachBreaker(func(br *breaker) { open = open || br.open() })
	return !open
}

// do runs one Redis call through the breaker, with the per-call timeout.
// op names the call in errors. fn's results may be read only when do
// returns nil (or redis.Nil): a call abandoned at the timeout may still
// be running.
func (b *Backend) do(ctx context.Context, op, key string, fn func(ctx context.Context) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := b.usable(); err != nil {
		return err
	}
	node := b.nodeOf(ctx, key)
	br := b.breakerOf(node)
	reject := func() error {
		b.rejected.Add(1)
		err := fmt.Errorf("%s %s: %w", op, key, ErrUnavailable)
		if node != "" {
			err = &backend.ScopeError{Scope: node, Err: err}
		}
		return err
	}
	// An open breaker fails the call at once, without a wait for a
	// connection; a call that waited asks the breaker again below.
	if br.open() {
		return reject()
	}
	isUrgent := urgent(op)
	wait, err := b.conns.acquire(ctx, isUrgent, b.cfg.now)
	if err != nil {
		return err // the caller gave up while every connection was taken
	}
	b.waitedFor(wait, isUrgent)
	ticket, ok := br.allow()
	if !ok {
		b.conns.release(isUrgent)
		return reject()
	}
	b.calls.Add(1)
	cctx, cancel := context.WithTimeout(ctx, b.cfg.timeout)
	if b.enforced {
		err = fn(cctx)
		b.conns.release(isUrgent)
	} else {
		// The abandoned call keeps its connection until go-redis ends it.
		err = bounded(cctx, func(ctx context.Context) error {
			defer b.conns.release(isUrgent)
			return fn(ctx)
		})
	}
	cancel()
	switch {
	case err == nil || errors.Is(err, redis.Nil):
		b.failing.Store(false)
		br.record(success, ticket)
	case ctx.Err() != nil:
		// The caller gave up, not Redis.
		br.record(neutral, ticket)
		return ctx.Err()
	default:
		b.errs.Add(1)
		b.failedAt.Store(b.cfg.now().UnixNano())
		b.failing.Store(true)
		br.record(failure, ticket)
		return b.failedOn(node, fmt.Errorf("redisbackend: %s %s: %w", op, key, err))
	}
	b.maybeBeat()
	b.maybeCheckEviction()
	return err
}

// bounded runs fn in a goroutine of its own and returns its error, or
// ctx's once ctx ends first: for clients that do not bound socket I/O by
// the context, so that a hung Redis still costs a caller no more than the
// per-call timeout. The abandoned call ends when go-redis gives up on it
// (ReadTimeout).
func bounded(ctx context.Context, fn func(ctx context.Context) error) error {
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("no answer within the per-call timeout: %w", ctx.Err())
	}
}

// isWrongType reports whether err is Redis's WRONGTYPE reply: a key of
// another type than this package writes there (a foreign write).
func isWrongType(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && strings.HasPrefix(re.Error(), "WRONGTYPE")
}

// Load implements backend.Backend. A record this package cannot read,
// because a later version wrote it or it is damaged, loads as none: the
// caller takes the lease and fetches robots.txt again, replacing it.
// Damaged records, and record keys of another type than a string, are
// counted in Stats.CorruptRecords.
func (b *Backend) Load(ctx context.Context, origin string) (*backend.Record, error) {
	key := b.keys.record(origin)
	var raw []byte
	wrongType := false
	err := b.do(ctx, "load", key, func(ctx context.Context) error {
		var err error
		raw, err = b.client.Get(ctx, key).Bytes()
		if isWrongType(err) {
			// Redis answered; the key is not ours. Store replaces it.
			wrongType, err = true, nil
		}
		return err
	})
	switch {
	case errors.Is(err, redis.Nil):
		return nil, nil
	case err != nil:
		return nil, err
	case wrongType:
		b.corrupt.Add(1)
		return nil, nil
	}
	rec, err := decodeRecord(raw)
	if err != nil {
		if !errors.Is(err, errUnknownVersion) {
			b.corrupt.Add(1)
		}
		return nil, nil
	}
	return rec, nil
}

// Lease implements backend.Backend with SET NX PX in a script that, when
// the lease is held, returns the holder's PTTL as the wait in the same
// round trip. The token is the worker id (WithWorkerID) and 16 random
// bytes in hex, "<worker id>/<hex>", so that an operator can tell which
// worker holds a lease (Inspect).
func (b *Backend) Lease(ctx context.Context, origin string, ttl time.Duration) (backend.Lease, bool, time.Duration, error) {
	if ttl <= 0 {
		return backend.Lease{}, false, 0, fmt.Errorf("redisbackend: lease ttl %v must be positive", ttl)
	}
	key := b.keys.lease(origin)
	token := b.fleet.id + "/" + newToken()
	var waitMS int64
	err := b.do(ctx, "lease", key, func(ctx context.Context) error {
		var err error
		waitMS, err = leaseScript.Run(ctx, b.client, []string{key}, token, ceilDiv(ttl, time.Millisecond)).Int64()
		return err
	})
	if err != nil {
		return backend.Lease{}, false, 0, err
	}
	if waitMS > 0 {
		return backend.Lease{}, false, time.Duration(waitMS) * time.Millisecond, nil
	}
	return backend.Lease{Token: token}, true, 0, nil
}

// Store implements backend.Backend: one script checks the lease token,
// writes the record with a TTL reaching Record.KeepUntil (at least a
// minute) and deletes the lease.
func (b *Backend) Store(ctx context.Context, origin string, l backend.Lease, rec *backend.Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if rec == nil {
		return fmt.Errorf("redisbackend: Store of a nil record for %s", origin)
	}
	if l.Token == "" {
		return fmt.Errorf("redisbackend: store %s: %w (empty token)", origin, backend.ErrLeaseLost)
	}
	raw, err := encodeRecord(rec)
	if err != nil {
		return fmt.Errorf("redisbackend: encode the record of %s: %w", origin, err)
	}
	ttl := max(rec.KeepUntil().Sub(b.cfg.now()), minRecordTTL)
	lease, recKey := b.keys.lease(origin), b.keys.record(origin)
	var stored int64
	err = b.do(ctx, "store", recKey, func(ctx context.Context) error {
		var err error
		stored, err = storeScript.Run(ctx, b.client, []string{lease, recKey}, l.Token, raw, ceilDiv(ttl, time.Millisecond)).Int64()
		return err
	})
	if err != nil {
		return err
	}
	if stored != 1 {
		return fmt.Errorf("redisbackend: store %s: %w", origin, backend.ErrLeaseLost)
	}
	return nil
}

// Reserve implements backend.Backend with one script (GCRA with a burst
// of 1) timed by Redis's clock; see reserveScript. Delays are rounded up
// to the microsecond, so a gap is never shortened. Within the recovery
// grace after a failed call (WithRecoveryGrace), delays are multiplied by
// FleetSize.
func (b *Backend) Reserve(ctx context.Context, host string, delay time.Duration) (time.Duration, error) {
	key := b.keys.pace(host)
	delay = max(delay, 0)
	if delay > 0 && b.inGrace() {
		delay *= time.Duration(b.FleetSize())
	}
	var waitUS int64
	err := b.do(ctx, "reserve", key, func(ctx context.Context) error {
		var err error
		waitUS, err = reserveScript.Run(ctx, b.client, []string{key}, ceilDiv(delay, time.Microsecond),
			micros(paceMargin), micros(zeroMarkKeep)).Int64()
		return err
	})
	if err != nil {
		return 0, err
	}
	return time.Duration(max(waitUS, 0)) * time.Microsecond, nil
}

// inGrace reports whether a call failed within the recovery grace.
func (b *Backend) inGrace() bool {
	at := b.failedAt.Load()
	return at != 0 && b.cfg.grace > 0 && time.Duration(b.cfg.now().UnixNano()-at) < b.cfg.grace
}

// maxScriptInt bounds the integers given to scripts: Lua numbers are
// doubles, exact to 2⁵³, and a pace adds a delay to a time in µs.
const maxScriptInt = 1 << 50

// ceilDiv returns d in units, rounded up, at least 0 and at most
// maxScriptInt (35 years in µs).
func ceilDiv(d, unit time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	q := d / unit
	if d%unit != 0 {
		q++
	}
	return min(int64(q), maxScriptInt)
}

// micros returns d in whole µs, for a script's arguments.
func micros(d time.Duration) int64 { return int64(d / time.Microsecond) }

// newToken returns 16 random bytes in hex: the part of a lease token no
// other worker can guess or collide with.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}
