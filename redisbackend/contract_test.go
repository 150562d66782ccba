package redisbackend

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/backendtest"
)

// TestContractMiniredis runs the Backend contract against miniredis.
func TestContractMiniredis(t *testing.T) {
	t.Parallel()
	m := newMiniredis(t)
	c := newClient(t, "tcp", m.Addr())
	var n atomic.Int64
	backendtest.Run(t, func(t *testing.T) robotsext.Backend {
		return New(c, WithPrefix(fmt.Sprintf("contract%d:", n.Add(1))))
	})
}

// TestContractRedis runs the Backend contract against a real redis-server.
func TestContractRedis(t *testing.T) {
	t.Parallel()
	s := startRedisServer(t)
	c := newClient(t, "unix", s.Sock)
	var n atomic.Int64
	backendtest.Run(t, func(t *testing.T) robotsext.Backend {
		return New(c, WithPrefix(fmt.Sprintf("contract%d:", n.Add(1))))
	})
}
