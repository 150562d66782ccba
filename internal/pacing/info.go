package pacing

// This file reads the pace back, for Extension.Origin, Extension.LimitRules
// and the other pacing machinery.

import (
	"slices"
	"strings"
	"time"
)

// Info is what the Pacer reports of one host's pace.
type Info struct {
	Delay   time.Duration // the delay kept between starts
	Default bool          // Delay is Config.Default: robots.txt states none
	Next    time.Time     // the earliest a request of this process may start
	Waiting int           // requests waiting in Wait for their turn now
}

// Info returns host's pace; ok is false when host is not paced.
func (pc *Pacer) Info(host string) (p Info, ok bool) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	h := pc.hosts[HostKey(host)]
	if h == nil {
		return p, false
	}
	next := later(pc.at(h.latest.Load()).Add(h.delay), h.lastStart.Add(h.delay), h.doneAt.Add(h.delay))
	return Info{Delay: h.delay, Default: h.byDefault, Next: next, Waiting: int(h.waiting.Load())}, true
}

// Delay returns host's delay, 0 when it is not paced (or pc is nil).
func (pc *Pacer) Delay(host string) time.Duration {
	if pc == nil || pc.npaced.Load() == 0 {
		return 0
	}
	return pc.delayOfKey(HostKey(host))
}

// delayOfKey returns the delay of the host with key, 0 when not paced.
func (pc *Pacer) delayOfKey(key string) time.Duration {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if h := pc.hosts[key]; h != nil {
		return h.delay
	}
	return 0
}

// Rule is one paced host's pace, as Rules reports it.
type Rule struct {
	Key   string        // the host's HostKey
	Delay time.Duration // its (capped) delay
}

// Rules returns the pace of every paced host, sorted by key: values for
// inspection (the root turns them into Colly LimitRules).
func (pc *Pacer) Rules() []Rule {
	pc.mu.Lock()
	rs := make([]Rule, 0, len(pc.hosts))
	for key, h := range pc.hosts {
		rs = append(rs, Rule{Key: key, Delay: h.delay})
	}
	pc.mu.Unlock()
	slices.SortFunc(rs, func(a, b Rule) int { return strings.Compare(a.Key, b.Key) })
	return rs
}
