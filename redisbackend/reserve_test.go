package redisbackend

import (
	"testing"
	"time"
)

// TestReserveZeroDelayMarksFreshHost: beyond the contract, a delay-0
// booking on a host without a pace is kept as a mark the next delay
// counts from, for zeroMarkKeep, so that the robots.txt request an
// Extension books that way counts as the host's first request fleet-wide
// (MemoryBackend keeps nothing there).
func TestReserveZeroDelayMarksFreshHost(t *testing.T) {
	t.Parallel()
	const delay = 10 * time.Second
	m := newMiniredis(t)
	b := New(newClient(t, "tcp", m.Addr()), WithHeartbeat(-1))
	start := time.Now()
	for i, want := range []time.Duration{0, 0, delay, 2 * delay} {
		d := delay
		if i < 2 {
			d = 0
		}
		got, err := b.Reserve(t.Context(), "fresh.example", d)
		if err != nil {
			t.Fatal(err)
		}
		if slack := time.Since(start); got > want || got < want-slack {
			t.Errorf("Reserve #%d (delay %v) waits %v; want %v (minus at most %v)", i, d, got, want, slack)
		}
	}
	if ttl := m.TTL(DefaultPrefix + "{fresh.example}:pace"); ttl <= 2*delay {
		t.Errorf("pace TTL %v after booking 2×%v ahead; want more", ttl, delay)
	}
}
