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
// Backend in use renews its id in a sorted set scored by Redis's time,
// and learns the set's size in the same call.
//
// The size reported is the largest of the last fleetCounts counts learnt:
// a Redis that restarts empty, or a worker that beats late, makes the
// count drop for a while although the fleet did not shrink, and the
// fallback pacing must not speed up then. Within that many beats (one
// window and one more) every live worker has beaten into the set again.
// Counts are only replaced by newer ones, so the size stays as last known
// while Redis is down, however long.
type fleet struct {
	id       string
	nextBeat atomic.Int64 // Unix ns when the next beat is due
	closed   atomic.Bool

	mu     sync.Mutex
	counts [fleetCounts]int64 // the latest counts, a ring; guarded by mu
	next   int                // where the next count goes; guarded by mu
}

// fleetCounts is how many of the latest counts FleetSize takes the
// largest of: the three heartbeats of the window, and one more.
const fleetCounts = 4

// learn records a count.
func (f *fleet) learn(n int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.counts[f.next] = n
	f.next = (f.next + 1) % fleetCounts
}

// size returns the largest count kept, at least 1.
func (f *fleet) size() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := int64(1)
	for _, c := range f.counts {
		n = max(n, c)
	}
	return int(n)
}

// init sets the worker id: id, or by default the host name, the process
// id and a random suffix.
func (f *fleet) init(id string) {
	if id == "" {
		host, _ := os.Hostname()
		var r [4]byte
		_, _ = rand.Read(r[:])
		id = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), hex.EncodeToString(r[:]))
	}
	f.id = id
}

// FleetSize returns the number of workers (Backends with the same prefix)
// seen using Redis within the last three heartbeats: the number sharing
// each host's pace. It is the largest count learnt over the last three
// heartbeats, so that it does not drop while a restarted Redis refills
// its fleet set; while Redis is down it keeps its last value, which is
// what the Extension's local fallback paces by (each worker waits delay
// × FleetSize between its own requests to a host, so the fleet together
// stays within the delay). It is at least 1, and 1 before the first
// heartbeat or with the heartbeat off. backend.FleetSizer documents the
// use.
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

// beat renews this worker's heartbeat and learns the fleet's size.
func (b *Backend) beat(ctx context.Context) error {
	key := b.keys.fleet()
	window := 3 * b.cfg.heartbeat
	var n int64
	err := b.do(ctx, "heartbeat", key, func(ctx context.Context) error {
		var err error
		n, err = heartbeatScript.Run(ctx, b.client, []string{key}, b.fleet.id, ceilDiv(window, time.Millisecond)).Int64()
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
		return b.client.ZRem(ctx, key, b.fleet.id).Err()
	})
}
