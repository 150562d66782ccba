package redisbackend

// Round-trip benchmarks on a real redis-server over loopback TCP (never
// miniredis, whose Lua is an interpreter in Go and an order of magnitude
// slower). Each reports the median latency of one call as p50-ns/op
// beside the mean, since the mean hides the tail and the median is what a
// request pays.

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// benchBackend returns a Backend on a fresh real server over TCP.
func benchBackend(b *testing.B) *Backend {
	s := startRedisServerTCP(b)
	return New(newClient(b, "tcp", s.Addr), WithHeartbeat(-1))
}

// runTimed runs fn b.N times, timing each call, and reports the p50 and
// p99.
func runTimed(b *testing.B, fn func(i int) error) {
	lat := make([]time.Duration, 0, 1024)
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if err := fn(i); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(lat)
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2]), "p50-ns/op")
		b.ReportMetric(float64(lat[len(lat)*99/100]), "p99-ns/op")
	}
}

// BenchmarkReserve: one EVALSHA of the pace script, a paced host's cost
// per request.
func BenchmarkReserve(b *testing.B) {
	be := benchBackend(b)
	ctx := b.Context()
	hosts := make([]string, 1024)
	for i := range hosts {
		hosts[i] = fmt.Sprintf("host%d.example", i)
	}
	runTimed(b, func(i int) error {
		_, err := be.Reserve(ctx, hosts[i%len(hosts)], 10*time.Second)
		return err
	})
}

// BenchmarkLoad: one GET and the decoding of a record with a typical
// robots.txt, a near-cache miss's cost.
func BenchmarkLoad(b *testing.B) {
	be := benchBackend(b)
	ctx := b.Context()
	origin := "https://www.typical.example"
	l, _, _, err := be.Lease(ctx, origin, time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	if err := be.Store(ctx, origin, l, recordOf(origin, []byte(typicalRobots), time.Now())); err != nil {
		b.Fatal(err)
	}
	runTimed(b, func(int) error {
		rec, err := be.Load(ctx, origin)
		if rec == nil && err == nil {
			return fmt.Errorf("no record")
		}
		return err
	})
}

// BenchmarkLeaseHeld: a refused Lease (SET NX and PTTL in one script),
// what a waiting worker pays per poll.
func BenchmarkLeaseHeld(b *testing.B) {
	be := benchBackend(b)
	ctx := b.Context()
	origin := "https://held.example"
	if _, _, _, err := be.Lease(ctx, origin, time.Hour); err != nil {
		b.Fatal(err)
	}
	runTimed(b, func(int) error {
		_, ok, _, err := be.Lease(ctx, origin, time.Minute)
		if ok {
			return fmt.Errorf("lease granted twice")
		}
		return err
	})
}
