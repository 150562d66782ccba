package robotsext

// This file is the opt-in adaptive pace (WithAdaptivePace): the delay
// between starts to a host follows the host's response time, in the
// spirit of Scrapy's AutoThrottle. The delay kept is the latency of the
// host's answers divided by a target concurrency, approached halfway at
// each answer; an answer that is an error never shortens it; the host's
// Crawl-delay is the floor and WithMaxCrawlDelay the cap. It adds a wait
// in the OnRequest hook, before Colly's LimitRule slots, as the
// Crawl-delay wait does; the Crawl-delay pace and the back-off still apply.

import (
	"context"
	"sync"
	"time"
)

// adaptiveMaxHosts bounds the hosts whose adaptive delay is kept; past
// it, hosts whose next start has passed are forgotten (they start again
// from their floor).
const adaptiveMaxHosts = 4096

// WithAdaptivePace makes the delay between requests to each host follow
// the host's response time (the time to its response headers): the
// delay tends to latency / target, so that about target requests are in
// flight to the host on average (1 or 2 are sensible; values ≤ 0 leave
// the option off). Each answer moves the delay halfway towards that
// value; an answer that is an error (429, 5xx or no answer) never
// shortens it. The host's Crawl-delay is the floor and WithMaxCrawlDelay
// (60 s by default) the cap. A host whose latency doubles is asked half
// as often; when it recovers, so does the pace. It is off by default.
func WithAdaptivePace(target float64) Option {
	return func(c *config) { c.adaptiveTarget = target }
}

// adaptivePace keeps each host's adaptive delay. The zero value is off.
type adaptivePace struct {
	target float64 // WithAdaptivePace; ≤ 0: off (read-only after Apply)

	mu    sync.Mutex
	hosts map[string]*adaptiveHost // by hostKey; guarded by mu
	sent  map[any]time.Time        // request → when it passed the wire hook; guarded by mu
}

// adaptiveHost is one host's adaptive delay; guarded by adaptivePace.mu.
type adaptiveHost struct {
	delay time.Duration // 0 until the first answer
	next  time.Time     // the earliest the next request may start
}

// on reports whether the adaptive pace is on.
func (a *adaptivePace) on() bool { return a.target > 0 }

// adaptiveWait books the next start of a request to host and waits for
// it, in the OnRequest hook.
func (e *Extension) adaptiveWait(ctx context.Context, host string) error {
	a := &e.adaptive
	key := hostKey(host)
	now := e.cfg.now()
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
		return e.pacer.sleep(ctx, d)
	}
	return nil
}

// adaptiveSent notes when request r passed the wire hook.
func (e *Extension) adaptiveSent(r any) {
	a := &e.adaptive
	now := e.cfg.now()
	a.mu.Lock()
	if a.sent == nil {
		a.sent = make(map[any]time.Time)
	}
	a.sent[r] = now
	a.mu.Unlock()
}

// adaptiveAnswered moves host's delay halfway towards the latency of the
// answer to r divided by the target; an error (failed true) never
// shortens it. status 0 with failed is a request that got no answer.
func (e *Extension) adaptiveAnswered(r any, host string, failed bool) {
	a := &e.adaptive
	now := e.cfg.now()
	floor := e.pacer.delayOf(host)
	ceiling := e.pacer.max
	a.mu.Lock()
	defer a.mu.Unlock()
	at, ok := a.sent[r]
	delete(a.sent, r)
	h := a.hosts[hostKey(host)]
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

// delayOf returns host's adaptive delay (0 when none is known).
func (a *adaptivePace) delayOf(host string) time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	if h := a.hosts[hostKey(host)]; h != nil {
		return h.delay
	}
	return 0
}
