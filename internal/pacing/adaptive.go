package pacing

// This file is the opt-in adaptive pace: the delay between starts to a
// host follows the host's response time, in the spirit of Scrapy's
// AutoThrottle. The delay kept is the latency of the host's answers
// divided by a target concurrency, approached halfway at each answer; an
// answer that is an error never shortens it; the host's Crawl-delay is
// the floor and the Pacer's MaxDelay the cap. It adds a wait in the
// OnRequest hook, before Colly's LimitRule slots, as the Crawl-delay wait
// does; the Crawl-delay pace and the back-off still apply.

import (
	"context"
	"sync"
	"time"
)

// adaptiveMaxHosts bounds the hosts whose adaptive delay is kept; past
// it, hosts whose next start has passed are forgotten (they start again
// from their floor).
const adaptiveMaxHosts = 4096

// Adaptive keeps each host's adaptive delay. It is safe for concurrent
// use; while it is off (On is false) the caller need not call it.
type Adaptive struct {
	target float64 // ≤ 0: off; read-only after NewAdaptive
	pacer  *Pacer  // the floor (each host's delay) and the cap (MaxDelay)
	now    func() time.Time
	sleep  func(ctx context.Context, d time.Duration) error

	mu    sync.Mutex
	hosts map[string]*adaptiveHost // by HostKey; guarded by mu
	sent  map[any]time.Time        // request → when it passed the wire hook; guarded by mu
}

// adaptiveHost is one host's adaptive delay; guarded by Adaptive.mu.
type adaptiveHost struct {
	delay time.Duration // 0 until the first answer
	next  time.Time     // the earliest the next request may start
}

// NewAdaptive returns an adaptive pace aiming at target requests in
// flight per host (≤ 0: off), on clock, floored and capped by pc.
func NewAdaptive(target float64, clock Clock, pc *Pacer) *Adaptive {
	clk := clock.settled()
	return &Adaptive{target: target, pacer: pc, now: clk.Now, sleep: clk.Sleep}
}

// On reports whether the adaptive pace is on.
func (a *Adaptive) On() bool { return a.target > 0 }

// Wait books the next start of a request to host and waits for it, in
// the OnRequest hook; it returns ctx's error when ctx ends first.
func (a *Adaptive) Wait(ctx context.Context, host string) error {
	key := HostKey(host)
	now := a.now()
	a.mu.Lock()
	if a.hosts == nil {
		a.hosts = make(map[string]*adaptiveHost)
	}
	h := a.hosts[key]
	if h == nil {
		if len(a.hosts) >= adaptiveMaxHosts {
			for k, o := range a.hosts {
				if !o.next.After(now) {
					delete(a.hosts, k)
				}
			}
		}
		h = &adaptiveHost{}
		a.hosts[key] = h
	}
	start := later(now, h.next)
	h.next = start.Add(h.delay)
	a.mu.Unlock()
	if d := start.Sub(now); d > 0 {
		return a.sleep(ctx, d)
	}
	return nil
}

// Sent notes that request tok passed the wire hook now.
func (a *Adaptive) Sent(tok any) {
	now := a.now()
	a.mu.Lock()
	if a.sent == nil {
		a.sent = make(map[any]time.Time)
	}
	a.sent[tok] = now
	a.mu.Unlock()
}

// Answered moves host's delay halfway towards the latency of the answer
// to tok divided by the target; an error (failed: an overload answer, or
// no answer at all) never shortens it.
func (a *Adaptive) Answered(tok any, host string, failed bool) {
	now := a.now()
	floor := a.pacer.Delay(host)
	ceiling := a.pacer.MaxDelay()
	a.mu.Lock()
	defer a.mu.Unlock()
	at, ok := a.sent[tok]
	delete(a.sent, tok)
	h := a.hosts[HostKey(host)]
	if !ok || h == nil {
		return
	}
	target := time.Duration(float64(now.Sub(at)) / a.target)
	d := (h.delay + target) / 2
	if h.delay == 0 {
		d = target // the first answer sets it
	}
	if failed && d < h.delay {
		d = h.delay
	}
	d = min(max(d, floor), ceiling)
	h.next = h.next.Add(d - h.delay) // the booked start moves with the delay
	h.delay = d
}

// Delay returns host's adaptive delay (0 when none is known).
func (a *Adaptive) Delay(host string) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if h := a.hosts[HostKey(host)]; h != nil {
		return h.delay
	}
	return 0
}
