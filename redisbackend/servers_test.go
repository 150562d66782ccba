package redisbackend

// Test servers: miniredis in process (always available, fine for
// behaviour, never for timing) and a real redis-server started on a
// private unix socket (skipped locally when not installed, required in CI).

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
	"github.com/robotsext/robotsext/redisbackend/internal/rediscluster"
)

// newMiniredis starts a miniredis whose TTLs run on the wall clock, as a
// real server's do (miniredis only moves them on FastForward otherwise).
func newMiniredis(t testing.TB) *miniredis.Miniredis {
	t.Helper()
	m := miniredis.RunT(t)
	m.ClockTTL(true)
	return m
}

// clientOptions are the client settings the tests use and the package
// documentation recommends: per-call timeouts reach the socket, and a
// dead server costs a short dial.
func clientOptions(network, addr string) *redis.Options {
	return &redis.Options{
		Network:               network,
		Addr:                  addr,
		ContextTimeoutEnabled: true,
		DialTimeout:           250 * time.Millisecond,
		ReadTimeout:           250 * time.Millisecond,
		WriteTimeout:          250 * time.Millisecond,
		MaxRetries:            1,
		PoolSize:              64,
	}
}

// newClient returns a client of the server at network/addr, closed when t
// ends.
func newClient(t testing.TB, network, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(clientOptions(network, addr))
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// redisServer is a redis-server process of the test's own, listening on
// a unix socket in a private directory, without persistence.
type redisServer struct {
	Sock string // the socket path; clients use network "unix"
	Addr string // a loopback TCP address when started by startRedisServerTCP, else ""

	extra []string // more redis-server arguments

	mu   sync.Mutex
	cmd  *exec.Cmd
	logs bytes.Buffer
}

// redisServerPath finds redis-server, or skips t (fails it with CI=true).
func redisServerPath(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		msg := "redis-server not found on PATH; install it (apt-get install -y redis-server) to run the tests against a real Redis"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return path
}

// startRedisServer starts a redis-server on a unix socket for t and stops
// it when t ends.
func startRedisServer(t testing.TB) *redisServer {
	t.Helper()
	return startRedisServerOn(t, "")
}

// startRedisServerTCP is startRedisServer also listening on a free
// loopback port, for the benchmarks: TCP over loopback is the nearest to
// production. (The port is free when chosen; another process may take it
// before the server binds it, which fails the start.)
func startRedisServerTCP(t testing.TB) *redisServer {
	t.Helper()
	return startRedisServerOn(t, freeLoopbackAddr(t))
}

func startRedisServerOn(t testing.TB, addr string, extra ...string) *redisServer {
	t.Helper()
	redisServerPath(t)
	// Unix socket paths are limited to about 100 bytes, which t.TempDir
	// can exceed: use a short directory of our own.
	dir, err := os.MkdirTemp("", "rb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	s := &redisServer{Sock: filepath.Join(dir, "redis.sock"), Addr: addr}
	for _, a := range extra {
		s.extra = append(s.extra, strings.ReplaceAll(a, "$DIR", dir))
	}
	t.Cleanup(s.Stop)
	if err := s.Start(); err != nil {
		t.Fatal(err)
	}
	return s
}

// freeLoopbackAddr returns a loopback TCP address no one listens on now.
// Another process could take it before the server does; the server then
// fails to start and the test says so.
func freeLoopbackAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// Start starts the server (again) and waits until it answers PING.
func (s *redisServer) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return nil
	}
	_ = os.Remove(s.Sock) // left behind by a killed server
	port := "0"           // no TCP
	if s.Addr != "" {
		_, port, _ = net.SplitHostPort(s.Addr)
	}
	args := []string{
		"--port", port,
		"--bind", "127.0.0.1",
		"--unixsocket", s.Sock,
		"--unixsocketperm", "700",
		"--save", "",
		"--appendonly", "no",
		"--dir", filepath.Dir(s.Sock),
		"--loglevel", "warning",
	}
	cmd := exec.Command("redis-server", append(args, s.extra...)...)
	cmd.Stdout, cmd.Stderr = &s.logs, &s.logs
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd = cmd
	c := redis.NewClient(clientOptions("unix", s.Sock))
	defer c.Close()
	if err := rediscluster.AwaitPing(c); err != nil {
		return fmt.Errorf("%w\n%s", err, s.logs.String())
	}
	return nil
}

// Stop kills the server (SIGKILL: no shutdown work, as in a crash) and
// waits for it to exit. Stopping a stopped server does nothing.
func (s *redisServer) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// signal sends sig to the server process.
func (s *redisServer) signal(t testing.TB, sig os.Signal) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		if err := s.cmd.Process.Signal(sig); err != nil {
			t.Errorf("signal %v: %v", sig, err)
		}
	}
}

// startRedisCluster starts a one-node Redis Cluster owning every slot:
// enough for Redis to refuse, as a cluster of any size does, a script
// whose keys hash to different slots. It returns the node's address.
func startRedisCluster(t testing.TB) string {
	t.Helper()
	// The cluster bus listens on the port + 10000, which must be free too.
	var addr string
	for range 20 {
		a := freeLoopbackAddr(t)
		_, p, _ := net.SplitHostPort(a)
		var port int
		fmt.Sscan(p, &port)
		if port+10000 > 65535 {
			continue
		}
		if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port+10000)); err == nil {
			l.Close()
			addr = a
			break
		}
	}
	if addr == "" {
		t.Fatal("no free port pair for a cluster node")
	}
	s := startRedisServerOn(t, addr, "--cluster-enabled", "yes", "--cluster-config-file", "$DIR/nodes.conf")
	c := redis.NewClient(clientOptions("unix", s.Sock))
	defer c.Close()
	ctx := context.Background()
	if err := c.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", 0, 16383).Err(); err != nil {
		t.Fatalf("CLUSTER ADDSLOTSRANGE: %v", err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		info, err := c.ClusterInfo(ctx).Result()
		if err == nil && strings.Contains(info, "cluster_state:ok") {
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("cluster not ok after 10s: %v\n%s", err, info)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
