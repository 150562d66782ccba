package redisbackend

import (
	"fmt"
	"github.com/robotsext/robotsext/backend"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/robotsext/robotsext/backend/backendtest"
)

// TestContractMiniredis runs the Backend contract against miniredis.
func TestContractMiniredis(t *testing.T) {
	t.Parallel()
	m := newMiniredis(t)
	c := newClient(t, "tcp", m.Addr())
	var n atomic.Int64
	backendtest.Run(t, func(t *testing.T) backend.Backend {
		return New(c, WithPrefix(fmt.Sprintf("contract%d:", n.Add(1))))
	})
}

// TestContractRedis runs the Backend contract against a real redis-server.
func TestContractRedis(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	c := newClient(t, "unix", s.Sock)
	var n atomic.Int64
	backendtest.Run(t, func(t *testing.T) backend.Backend {
		return New(c, WithPrefix(fmt.Sprintf("contract%d:", n.Add(1))))
	})
}

// TestContractRedisCluster runs the Backend contract against Redis
// Cluster (one node owning every slot) through a ClusterClient: every
// script's keys must hash to one slot, or Redis refuses it with CROSSSLOT.
func TestContractRedisCluster(t *testing.T) {
	t.Parallel()
	addr := startRedisCluster(t)
	c := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs:                 []string{addr},
		ContextTimeoutEnabled: true,
		DialTimeout:           250 * time.Millisecond,
		PoolSize:              64,
	})
	t.Cleanup(func() { _ = c.Close() })

	// The cluster does refuse keys of different slots, so the contract
	// below proves the key layout.
	err := c.Eval(t.Context(), "return 1", []string{"robotsext:{a.example}:pace", "robotsext:{b.example}:pace"}).Err()
	if err == nil || !strings.Contains(err.Error(), "CROSSSLOT") {
		t.Fatalf("a script over two slots = %v; want CROSSSLOT", err)
	}

	var n atomic.Int64
	backendtest.Run(t, func(t *testing.T) backend.Backend {
		return New(c, WithPrefix(fmt.Sprintf("cluster%d:", n.Add(1))))
	})
}
