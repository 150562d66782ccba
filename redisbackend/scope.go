package redisbackend

// This file confines a Redis Cluster node's failure to the hosts it
// serves: each master has a breaker of its own, a failed call names the
// node it failed on (backend.ScopeError) with the cause the network gave,
// the client's slot map is reloaded after a failure so that a promoted
// replica is found at once, and Scope and Probe tell the Extension which
// node serves a host and whether a failing node answers again.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext/backend"
)

// dialCauseAge is how old a failed dial may be and still explain a call
// that failed without a cause of its own (a timeout).
const dialCauseAge = 2 * time.Second

// nodes is a Backend's state per Redis Cluster master: its breaker, and
// the latest failed dial to each address, the cause a timeout hides.
type nodes struct {
	mu       sync.Mutex
	breakers map[string]*breaker  // by address; guarded by mu
	dials    map[string]dialError // by address; guarded by mu
}

// dialError is a failed dial and when it happened.
type dialError struct {
	at  time.Time
	err error
}

// Backend is a backend.Scoper on a Redis Cluster: a node's failure costs
// only the hosts whose slots it serves.
var _ backend.Scoper = (*Backend)(nil)

// cluster returns b's client as a ClusterClient, or nil.
func (b *Backend) cluster() *redis.ClusterClient {
	c, _ := b.client.(*redis.ClusterClient)
	return c
}

// nodeOf returns the address of the master serving key now, as the
// client's slot map has it; "" for a client that is not a ClusterClient,
// or when the map cannot tell.
func (b *Backend) nodeOf(ctx context.Context, key string) string {
	c := b.cluster()
	if c == nil {
		return ""
	}
	m, err := c.MasterForKey(ctx, key)
	if err != nil {
		return ""
	}
	return m.Options().Addr
}

// breakerOf returns the breaker of node ("": the Backend's own).
func (b *Backend) breakerOf(node string) *breaker {
	if node == "" {
		return &b.br
	}
	b.nodes.mu.Lock()
	defer b.nodes.mu.Unlock()
	br := b.nodes.breakers[node]
	if br == nil {
		if b.nodes.breakers == nil {
			b.nodes.breakers = map[string]*breaker{}
		}
		br = &breaker{failures: b.cfg.failures, coolDown: b.cfg.coolDown, now: b.cfg.now, changed: b.breakerLog(node)}
		b.nodes.breakers[node] = br
	}
	return br
}

// breakerLog returns what logs the opening and the closing of node's
// breaker.
func (b *Backend) breakerLog(node string) func(bool) {
	return func(opened bool) {
		attrs := []any{"prefix", b.cfg.prefix}
		if node != "" {
			attrs = append(attrs, "node", node)
		}
		if opened {
			b.cfg.log().Warn("redisbackend: circuit breaker open: calls fail at once for a while",
				append(attrs, "failures", b.cfg.failures, "cool_down", b.cfg.coolDown.String())...)
			return
		}
		b.cfg.log().Info("redisbackend: circuit breaker closed: redis answers again", attrs...)
	}
}

// eachBreaker calls fn with every breaker of b.
func (b *Backend) eachBreaker(fn func(*breaker)) {
	fn(&b.br)
	b.nodes.mu.Lock()
	defer b.nodes.mu.Unlock()
	for _, br := range b.nodes.breakers {
		fn(br)
	}
}

// failedOn wraps err, a failed call to node, with the cause the network
// gave when err hides it (a timeout after a refused dial), and names the
// node (backend.ScopeError) on a Cluster. It asks the client to reload
// its slot map: go-redis does not on a connection error, and a replica
// promoted in the failed master's place would stay unknown to it.
func (b *Backend) failedOn(node string, err error) error {
	addr := node
	if addr == "" {
		if c, ok := b.client.(*redis.Client); ok {
			addr = c.Options().Addr
		}
	}
	if cause := b.dialCause(addr); cause != nil && !errors.Is(err, cause) {
		err = fmt.Errorf("%w (latest dial to %s: %v)", err, addr, cause)
	}
	if c := b.cluster(); c != nil {
		c.ReloadState(context.Background())
	}
	if node == "" {
		return err
	}
	return &backend.ScopeError{Scope: node, Err: err}
}

// dialCause returns the latest failed dial to addr within dialCauseAge,
// or nil.
func (b *Backend) dialCause(addr string) error {
	if addr == "" {
		return nil
	}
	b.nodes.mu.Lock()
	defer b.nodes.mu.Unlock()
	d, ok := b.nodes.dials[addr]
	if !ok || b.cfg.now().Sub(d.at) > dialCauseAge {
		return nil
	}
	return d.err
}

// dialHook keeps the latest failed dial to each
// address, the cause a timeout hides, and forgets it at the next dial
// that works. New adds it to the client (watchDials).
func (b *Backend) dialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := next(ctx, network, addr)
		b.nodes.mu.Lock()
		if err != nil && ctx.Err() == nil {
			if b.nodes.dials == nil {
				b.nodes.dials = map[string]dialError{}
			}
			b.nodes.dials[addr] = dialError{at: b.cfg.now(), err: err}
		} else if err == nil {
			delete(b.nodes.dials, addr)
		}
		b.nodes.mu.Unlock()
		return conn, err
	}
}

// dialWatch is the hook New adds to the client (dialHook).
type dialWatch struct{ b *Backend }

func (w dialWatch) DialHook(next redis.DialHook) redis.DialHook { return w.b.dialHook(next) }
func (dialWatch) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return next
}
func (dialWatch) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// watchDials adds dialHook to b's client, or on a Cluster to each node's
// client as the ClusterClient makes it (a ClusterClient's own hooks do not
// reach its nodes' dials; nodes it made before New are not watched).
func (b *Backend) watchDials() {
	if c := b.cluster(); c != nil {
		c.OnNewNode(func(n *redis.Client) { n.AddHook(dialWatch{b}) })
		return
	}
	b.client.AddHook(dialWatch{b})
}

// Scope implements backend.Scoper: the address of the master serving
// host's slot, as the client's slot map has it now; "" when the client is
// not a ClusterClient (a single Redis fails as a whole).
func (b *Backend) Scope(host string) string {
	return b.nodeOf(context.Background(), b.keys.pace(host))
}

// Probe implements backend.Scoper: it reloads the client's slot map
// (from any node that answers) and pings the master at scope. It returns
// nil when the master answers, and also when scope serves no slot any
// more (its replica was promoted): its hosts have moved to another node.
// A master that answers closes its breaker. With scope "" it pings the
// client (a single Redis, whose breaker closes too when it answers; on a
// Cluster, a node the client picks).
func (b *Backend) Probe(ctx context.Context, scope string) error {
	if err := b.usable(); err != nil {
		return err
	}
	if scope == "" {
		pctx, cancel := context.WithTimeout(ctx, b.cfg.timeout)
		defer cancel()
		err := b.client.Ping(pctx).Err()
		if err == nil && b.cluster() == nil {
			b.br.reset()
		}
		return err
	}
	c := b.cluster()
	if c == nil {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, 2*b.cfg.timeout)
	defer cancel()
	var mu sync.Mutex
	var master *redis.Client
	err := c.ForEachMaster(cctx, func(_ context.Context, m *redis.Client) error {
		if m.Options().Addr == scope {
			mu.Lock()
			master = m
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		return b.failedOn(scope, err)
	}
	if master == nil {
		return nil // no longer a master: its slots are served elsewhere
	}
	pctx, pcancel := context.WithTimeout(ctx, b.cfg.timeout)
	defer pcancel()
	if err := master.Ping(pctx).Err(); err != nil {
		return b.failedOn(scope, err)
	}
	b.breakerOf(scope).reset()
	return nil
}
