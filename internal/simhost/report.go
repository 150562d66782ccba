package simhost

// This file sums up what the server saw: robots.txt fetches per host, the
// gaps between each paced host's pages against its delay, pages in
// flight per host.

import (
	"slices"
	"time"
)

// Report is what the server saw of a crawl.
type Report struct {
	Pages         int     // page requests
	RobotsFetches int     // robots.txt requests
	RobotsHosts   int     // hosts whose robots.txt was asked for
	RobotsPerHost float64 // RobotsFetches / RobotsHosts
	// MinGapRatio is the smallest gap between two page arrivals of one
	// paced host over the host's delay (1: exactly the delay); 0 when no
	// paced host had two pages.
	MinGapRatio float64
	// GapsBelow counts the gaps between page arrivals shorter than their
	// host's delay.
	GapsBelow int
	// MaxInFlight is the most pages of one paced host answered at once.
	MaxInFlight int
}

// Report sums up the crawl so far; host i's delay is delay(i), 0 for a
// host not paced, whose gaps are not counted.
func (s *Server) Report(delay func(i int) time.Duration) Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	var rp Report
	for i := range s.hosts {
		h := &s.hosts[i]
		rp.Pages += len(h.pages)
		rp.RobotsFetches += h.robots
		if h.robots > 0 {
			rp.RobotsHosts++
		}
		d := delay(i)
		if d <= 0 {
			continue
		}
		rp.MaxInFlight = max(rp.MaxInFlight, h.maxIn)
		at := slices.Clone(h.pages)
		slices.Sort(at)
		for k := 1; k < len(at); k++ {
			gap := at[k] - at[k-1]
			if gap < d {
				rp.GapsBelow++
			}
			if r := float64(gap) / float64(d); rp.MinGapRatio == 0 || r < rp.MinGapRatio {
				rp.MinGapRatio = r
			}
		}
	}
	if rp.RobotsHosts > 0 {
		rp.RobotsPerHost = float64(rp.RobotsFetches) / float64(rp.RobotsHosts)
	}
	return rp
}

// RobotsDoneBy counts the robots.txt answers the server had written by t
// after it started.
func (s *Server) RobotsDoneBy(t time.Duration) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, at := range s.robotsAt {
		if at <= t {
			n++
		}
	}
	return n
}

// Since is the time since the server started, the clock of its records.
func (s *Server) Since() time.Duration { return time.Since(s.start) }
