package simhost

// This file says what a simulated host is: its robots.txt outcome, the
// delay it states, how many pages it has and how slowly it answers them.

import (
	"fmt"
	"time"
)

// Robots is the outcome of a host's robots.txt.
type Robots uint8

const (
	// Silent: 200, rules that allow every page, no Crawl-delay.
	Silent Robots = iota
	// Delay: 200, as Silent with "Crawl-delay: Spec.Delay".
	Delay
	// NotFound: 404.
	NotFound
	// ServerError: 500 (RFC 9309: the whole site is disallowed).
	ServerError
	// Slow: 200 as Silent, answered after Spec.RobotsLatency.
	Slow
	// Hang: never answered; the request waits until the client gives up
	// or the server closes.
	Hang
	// Big: 200, about 400 KB of rules for other paths, no Crawl-delay.
	Big
)

// String names the outcome.
func (r Robots) String() string {
	names := [...]string{"silent", "delay", "404", "5xx", "slow", "hang", "big"}
	if int(r) < len(names) {
		return names[r]
	}
	return fmt.Sprintf("robots_%d", r)
}

// Spec is one simulated host.
type Spec struct {
	Robots        Robots
	Delay         time.Duration // the Crawl-delay stated (Robots == Delay)
	RobotsLatency time.Duration // how long robots.txt takes to answer (Robots == Slow)
	Pages         int           // pages /p/0 … /p/Pages-1; more answer 404
	PageLatency   time.Duration // how long each page takes to answer
}

// Stated is the delay host states, 0 when it states none.
func (s Spec) Stated() time.Duration {
	if s.Robots == Delay {
		return s.Delay
	}
	return 0
}

// Crawlable reports whether a crawler obeying robots.txt fetches the
// host's pages: not when robots.txt answers 5xx or never answers.
func (s Spec) Crawlable() bool { return s.Robots != ServerError && s.Robots != Hang }

// Mix is the realistic mix of the 10,000-host crawl, host i's
// Spec drawn from i alone (the same every run): 80% silent on
// Crawl-delay (of them 1.5% of all hosts ~400 KB files), 10% stating
// Crawl-delay 1..5 s, 4% 404, 2% 5xx, 1.25% slow (robots.txt in 2–3 s)
// and 1.25% hanging; 3 pages each, answered at once.
func Mix(i int) Spec {
	s := Spec{Pages: 3}
	switch v := mix(i) % 10000; {
	case v < 1000:
		s.Robots, s.Delay = Delay, time.Duration(1+v%5)*time.Second
	case v < 1400:
		s.Robots = NotFound
	case v < 1600:
		s.Robots = ServerError
	case v < 1725:
		s.Robots, s.RobotsLatency = Slow, 2*time.Second+time.Duration(v%10)*100*time.Millisecond
	case v < 1850:
		s.Robots = Hang
	case v < 2000:
		s.Robots = Big
	}
	return s
}

// mix scrambles i (splitmix64's finaliser), so that the kinds of Mix are
// spread over the host numbers.
func mix(i int) uint64 {
	z := uint64(i) + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}
