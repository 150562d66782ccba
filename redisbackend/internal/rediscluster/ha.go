package rediscluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// NodeTimeout is the cluster-node-timeout of a cluster StartHA starts:
// how long a node may be silent before the others flag it as failing and
// its replica is elected (about this long and a second more).
const NodeTimeout = 2 * time.Second

// Cluster is a Redis Cluster of masters with one replica each, as a fleet
// that must survive a node's failure runs it (cluster-require-full-coverage
// no, cluster-node-timeout NodeTimeout), whose nodes a test may kill,
// pause and fail over.
type Cluster struct {
	// Addrs are the nodes' addresses, masters first.
	Addrs []string

	mu    sync.Mutex
	procs map[string]*exec.Cmd // by address
}

// StartHA starts masters masters and one replica of each for t, joined by
// redis-cli --cluster create, and waits until every node sees the cluster
// ok. It skips or fails t as Start does when redis-server is missing.
func StartHA(t testing.TB, masters int) *Cluster {
	t.Helper()
	need(t)
	dir, err := os.MkdirTemp("", "rcha")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	c := &Cluster{procs: map[string]*exec.Cmd{}}
	for range 2 * masters {
		addr, cmd := launch(t, dir, freePortPair(t),
			"--cluster-node-timeout", fmt.Sprint(NodeTimeout.Milliseconds()),
			"--cluster-require-full-coverage", "no")
		c.Addrs = append(c.Addrs, addr)
		c.procs[addr] = cmd
	}
	args := append([]string{"--cluster", "create"}, c.Addrs...)
	args = append(args, "--cluster-replicas", "1", "--cluster-yes")
	if out, err := exec.Command("redis-cli", args...).CombinedOutput(); err != nil {
		t.Fatalf("redis-cli --cluster create: %v\n%s", err, out)
	}
	awaitOK(t, c.Addrs)
	c.awaitReplicas(t, masters)
	return c
}

// awaitReplicas waits until every replica has synced with its master, so
// that a failover finds one to promote.
func (c *Cluster) awaitReplicas(t testing.TB, masters int) {
	t.Helper()
	for _, addr := range c.Addrs {
		cl := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
		for deadline := time.Now().Add(30 * time.Second); ; {
			info, err := cl.Info(context.Background(), "replication").Result()
			if err == nil && (strings.Contains(info, "role:master\r\nconnected_slaves:1") ||
				strings.Contains(info, "master_link_status:up")) {
				break
			}
			if time.Now().After(deadline) {
				cl.Close()
				t.Fatalf("node %s: replication not up after 30s: %v\n%s", addr, err, info)
			}
			time.Sleep(50 * time.Millisecond)
		}
		cl.Close()
	}
}

// MasterOf returns the address of the master serving key now, as the
// node at via sees it.
func (c *Cluster) MasterOf(ctx context.Context, via, key string) (string, error) {
	cl := redis.NewClient(&redis.Options{Addr: via, MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: time.Second})
	defer cl.Close()
	slot, err := cl.ClusterKeySlot(ctx, key).Result()
	if err != nil {
		return "", err
	}
	//lint:ignore SA1019 CLUSTER SLOTS answers on every Redis a fleet may run; CLUSTER SHARDS needs 7.0
	slots, err := cl.ClusterSlots(ctx).Result()
	if err != nil {
		return "", err
	}
	for _, s := range slots {
		if int64(s.Start) <= slot && slot <= int64(s.End) && len(s.Nodes) > 0 {
			return s.Nodes[0].Addr, nil
		}
	}
	return "", fmt.Errorf("slot %d of %q unserved", slot, key)
}

// ReplicaOf returns the address of master's replica.
func (c *Cluster) ReplicaOf(ctx context.Context, master string) (string, error) {
	cl := redis.NewClient(&redis.Options{Addr: master, MaxRetries: -1, DialTimeout: time.Second, ReadTimeout: time.Second})
	defer cl.Close()
	id, err := cl.Do(ctx, "CLUSTER", "MYID").Text()
	if err != nil {
		return "", err
	}
	nodes, err := cl.ClusterNodes(ctx).Result()
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(nodes, "\n") {
		f := strings.Fields(line)
		if len(f) > 3 && f[3] == id {
			return strings.SplitN(f[1], "@", 2)[0], nil
		}
	}
	return "", fmt.Errorf("no replica of %s", master)
}

// Kill sends SIGKILL to the node at addr.
func (c *Cluster) Kill(addr string) error { return c.signal(addr, syscall.SIGKILL) }

// Stop pauses the node at addr (SIGSTOP); Cont resumes it.
func (c *Cluster) Stop(addr string) error { return c.signal(addr, syscall.SIGSTOP) }

// Cont resumes a node Stop paused (SIGCONT).
func (c *Cluster) Cont(addr string) error { return c.signal(addr, syscall.SIGCONT) }

func (c *Cluster) signal(addr string, sig syscall.Signal) error {
	c.mu.Lock()
	cmd := c.procs[addr]
	c.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return fmt.Errorf("no node at %s", addr)
	}
	return cmd.Process.Signal(sig)
}

// Failover asks replica to take over its master's slots (CLUSTER
// FAILOVER, the manual failover an operator runs).
func (c *Cluster) Failover(ctx context.Context, replica string) error {
	cl := redis.NewClient(&redis.Options{Addr: replica, MaxRetries: -1})
	defer cl.Close()
	return cl.ClusterFailover(ctx).Err()
}

// AwaitMaster waits until the node at via reports addr as the master of
// key's slot and returns when it saw it, or an error after limit.
func (c *Cluster) AwaitMaster(ctx context.Context, via, key, addr string, limit time.Duration) (time.Time, error) {
	deadline := time.Now().Add(limit)
	for {
		m, err := c.MasterOf(ctx, via, key)
		if err == nil && m == addr {
			return time.Now(), nil
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("%s not master of %q after %v (last: %s, %v)", addr, key, limit, m, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
