package redisbackend

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// fleet is a Backend's view of the workers sharing its Redis: each
// Backend in use renews its entry in a sorted set scored by Redis's time,
// and learns the set's size in the same call (heartbeatScript). Entries
// not renewed within three heartbeats, and entries scored further ahead
// of Redis's time than that (a foreign write, or a failover to a node
// whose clock is behind), are pruned in the same call, so they never
// count.
//
// Without a floor (WithFleetSize) the size reported is the largest count
// ever learnt, at least 1: a Redis that restarts empty, a worker that
// beats late or a fleet that shrinks never makes the fallback pacing
// faster. With a floor it is the largest of the floor and the last
// fleetCounts counts learnt: within that many beats (one window and one
// more) every live worker has beaten into the set again, so a restart
// does not show as a smaller fleet, while workers that left do, down to
// the floor. Counts are only replaced by newer ones, so the size stays as
// last known while Redis is down, however long.
type fleet struct {
	id       string       // the worker id (WithWorkerID), the start of every lease token
	member   string       // this Backend's entry in the set: id and a random suffix
	floor    int64        // WithFleetSize; 0: none
	nextBeat atomic.Int64 // Unix ns when the next beat is due
	closed   atomic.Bool

	mu     sync.Mutex
	counts [fleetCounts]int64 // the latest counts, a ring; guarded by mu
	next   int                // where the next count goes; guarded by mu
	most   int64              // the largest count ever learnt; guarded by mu
}

// fleetCounts is how many of the latest counts FleetSize takes the
// largest of when a floor is set: the three heartbeats of the window, and
// one more.
const fleetCounts = 4

// learn records a count.
func (f *fleet) learn(n int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.counts[f.next] = n
	f.next = (f.next + 1) % fleetCounts
	f.most = max(f.most, n)
}

// size returns the fleet size to report, at least 1.
func (f *fleet) size() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.floor <= 0 {
		return int(max(f.most, 1))
	}
	n := f.floor
	for _, c := range f.counts {
		n = max(n, c)
	}
	return int(n)
}

// init sets the worker id (id, or by default the host name and the
// process id), this Backend's member of the fleet set and the floor.
func (f *fleet) init(id string, floor int) {
	if id == "" {
		id = defaultWorkerID()
	}
	var r [4]byte
	_, _ = rand.Read(r[:]) // crypto/rand.Read never fails (Go 1.24+)
	f.id, f.member, f.floor = id, id+"/"+hex.EncodeToString(r[:]), int64(floor)
}

// defaultWorkerID is "<host name>/<process id>".
func defaultWorkerID() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	return fmt.Sprintf("%s/%d", host, os.Getpid())
}

// WorkerID returns the id this Backend's lease tokens start with
// (WithWorkerID; by default "<host name>/<process id>").
func (b *Backend) WorkerID() string { return b.fleet.id }

// FleetSize returns the number of workers (Backends with the same prefix)
// sharing each host's pace, as their heartbeats show it: what the
// Extension's local fallback paces by while Redis is away (each worker
// waits delay × FleetSize between its own requests to a host, so the
// fleet together stays within the delay; backend.FleetSizer documents the
// use). Entries of the fleet set not renewed within three heartbeats, or
// scored in the future, are not counted.
//
// By default it is the largest count learnt since New, at least 1: it
// never drops, neither while a restarted Redis refills its fleet set nor
// when workers leave. With WithFleetSize(n) it is never below n and
// follows the counts of the last four heartbeats above it. Before the
// first heartbeat, or with the heartbeat off, it is 1 or n. While Redis
// is down it keeps its last value.
func (b *Backend) FleetSize() int {
	return b.fleet.size()
}

// maybeBeat starts a heartbeat in the background when one is due. Only
// the caller that moves nextBeat on starts it, so beats never pile up.
func (b *Backend) maybeBeat() {
	every := b.cfg.heartbeat
	if every < 0 || b.fleet.closed.Load() {
		return
	}
	now := b.cfg.now().UnixNano()
	next := b.fleet.nextBeat.Load()
	if now < next || !b.fleet.nextBeat.CompareAndSwap(next, now+int64(every)) {
		return
	}
	go func() { _ = b.beat(context.Background()) }()
}

// beat renews this worker's heartbeat and learns the fleet's size. The
// first beat is the Backend's first round trip (boot.go).
func (b *Backend) beat(ctx context.Context) error {
	if b.runBoot() && b.boot.beaten.CompareAndSwap(true, false) {
		return nil // the first round trip renewed it
	}
	key := b.keys.fleet()
	window := 3 * b.cfg.heartbeat
	var n int64
	err := b.do(ctx, "heartbeat", key, func(ctx context.Context) error {
		var err error
		n, err = heartbeatScript.Run(ctx, b.client, []string{key}, b.fleet.member, ceilDiv(window, time.Millisecond)).Int64()
		return err
	})
	if err == nil && !b.fleet.closed.Load() {
		b.fleet.learn(n)
	}
	return err
}

// Close takes this worker out of the fleet set at once (rather than after
// three heartbeats) and stops its heartbeat. It does not close the client,
// which the caller owns; the Backend keeps working without a heartbeat.
func (b *Backend) Close(ctx context.Context) error {
	if b.fleet.closed.Swap(true) || b.cfg.heartbeat < 0 {
		return nil
	}
	key := b.keys.fleet()
	return b.do(ctx, "close", key, func(ctx context.Context) error {
		return b.client.ZRem(ctx, key, b.fleet.member).Err()
	})
}
