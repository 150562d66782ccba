// Package rediscluster starts a real Redis Cluster of a test's own on
// loopback: masters redis-server processes with cluster mode on, joined
// by redis-cli --cluster create, stopped when the test ends. It is for
// the module's tests only.
package rediscluster

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Start starts a cluster of masters nodes (no replicas) for t and returns
// their addresses, "127.0.0.1:port". It skips t when redis-server or
// redis-cli is not on PATH, and fails it instead when the environment
// has CI=true, as CI installs both.
func Start(t testing.TB, masters int) []string {
	t.Helper()
	need(t)
	dir, err := os.MkdirTemp("", "rc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	addrs := make([]string, masters)
	for i := range addrs {
		addrs[i], _ = launch(t, dir, freePortPair(t), "--cluster-node-timeout", "5000")
	}
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", "0", "--cluster-yes")
	if out, err := exec.Command("redis-cli", args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	awaitOK(t, addrs)
	return addrs
}

// need skips t when redis-server or redis-cli is not on PATH, and fails
// it instead when the environment has CI=true, as CI installs both.
func need(t testing.TB) {
	t.Helper()
	for _, bin := range []string{"redis-server", "redis-cli"} {
		if _, err := exec.LookPath(bin); err != nil {
			msg := bin + " not found on PATH; install redis-server (apt-get install -y redis-server) to run the Redis Cluster tests"
			if os.Getenv("CI") == "true" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
}

// freePortPair returns a loopback port no one listens on whose cluster
// bus port (port + 10000) is free too. Another process could take either
// before the node binds it; the node then fails to start and says so.
func freePortPair(t testing.TB) int {
	t.Helper()
	for range 50 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if port+10000 > 65535 {
			continue
		}
		if bus, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port+10000)); err == nil {
			bus.Close()
			return port
		}
	}
	t.Fatal("no free pair of ports for a cluster node")
	return 0
}

// launch starts one cluster node on port, its files in dir, with the
// extra arguments, and waits until it answers PING. It is killed (and
// resumed first, should a test have paused it) when t ends.
func launch(t testing.TB, dir string, port int, extra ...string) (string, *exec.Cmd) {
	t.Helper()
	p := strconv.Itoa(port)
	addr := "127.0.0.1:" + p
	args := append([]string{"--port", p, "--bind", "127.0.0.1",
		"--cluster-enabled", "yes", "--cluster-config-file", "nodes-" + p + ".conf",
		"--save", "", "--appendonly", "no", "--dir", dir, "--loglevel", "warning"}, extra...)
	cmd := exec.Command("redis-server", args...)
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGCONT); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	c := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: time.Second, MaxRetries: -1})
	defer c.Close()
	if err := AwaitPing(c); err != nil {
		t.Fatalf("cluster node %s: %v\n%s", addr, err, logs.String())
	}
	return addr, cmd
}

// AwaitPing waits until the server c talks to answers PING, for at most
// 10 s: a new redis-server process has no other way to say it listens.
func AwaitPing(c *redis.Client) error {
	for deadline := time.Now().Add(10 * time.Second); ; {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redis-server did not answer within 10s: %w", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// awaitOK waits until every node sees the cluster whole: state ok, every
// slot assigned, every node known.
func awaitOK(t testing.TB, addrs []string) {
	t.Helper()
	want := fmt.Sprintf("cluster_known_nodes:%d", len(addrs))
	for _, addr := range addrs {
		c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
		for deadline := time.Now().Add(30 * time.Second); ; {
			info, err := c.ClusterInfo(context.Background()).Result()
			if err == nil && strings.Contains(info, "cluster_state:ok") && strings.Contains(info, "cluster_slots_assigned:16384") &&
				strings.Contains(info, want) {
				break
			}
			if time.Now().After(deadline) {
				c.Close()
				t.Fatalf("cluster node %s not ok after 30s: %v\n%s", addr, err, info)
			}
			time.Sleep(50 * time.Millisecond)
		}
		c.Close()
	}
}

// Client returns a ClusterClient of the nodes at addrs with the settings
// the module's documentation recommends, closed when t ends.
func Client(t testing.TB, addrs []string) *redis.ClusterClient {
	t.Helper()
	c := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs:                 addrs,
		ContextTimeoutEnabled: true,
		DialTimeout:           2 * time.Second,
		ReadTimeout:           2 * time.Second,
		WriteTimeout:          2 * time.Second,
		PoolSize:              8,
	})
	t.Cleanup(func() { _ = c.Close() })
	return c
}
