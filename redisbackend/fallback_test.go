package redisbackend

// The fallback of a fleet that never reaches Redis: every worker paces
// locally at the Crawl-delay times the fleet size it assumes, which
// WithFleetSize sets before any heartbeat was seen.

import (
	"strings"
	"testing"
	"time"
)

// TestMultiProcessNeverReachRedis: three worker processes, each with
// WithFleetSize(3), crawl one site while every Redis call fails: the
// server is down from the start, it wants a password the workers do not
// have, or it is full with maxmemory-policy noeviction (reads answer,
// writes fail). Each worker fetches robots.txt itself and paces locally
// at 3 × the delay, so no window of k × fleet × delay holds more than
// k × fleet + 1 requests across the fleet (the figure before
// WithFleetSize: 9 requests in 3 × delay).
func TestMultiProcessNeverReachRedis(t *testing.T) {
	const workers, pages = 3, 4
	tests := []struct {
		name  string
		setup func(t *testing.T, srv *redisServer) (pass string)
	}{
		{"down at start", func(t *testing.T, srv *redisServer) string {
			srv.Stop()
			return ""
		}},
		{"wrong password", func(t *testing.T, srv *redisServer) string {
			admin := newClient(t, "unix", srv.Sock)
			if err := admin.ConfigSet(t.Context(), "requirepass", "secret").Err(); err != nil {
				t.Fatal(err)
			}
			return "wrong"
		}},
		{"full with noeviction", func(t *testing.T, srv *redisServer) string {
			admin := newClient(t, "unix", srv.Sock)
			for _, kv := range [][2]string{{"maxmemory-policy", "noeviction"}, {"maxmemory", "1"}} {
				if err := admin.ConfigSet(t.Context(), kv[0], kv[1]).Err(); err != nil {
					t.Fatal(err)
				}
			}
			return ""
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := startRedisServer(t)
			pass := tc.setup(t, srv)
			s := newSite(t, testDelay, false)
			cfg := fleetConfig{redis: "unix:" + srv.Sock, sites: []*site{s}, pages: pages, fleet: workers, pass: pass}
			reps := runFleet(t, cfg, workers)
			checkReports(t, reps, pages)
			var errs uint64
			for _, r := range reps {
				errs += r.BackendErrors
			}
			if errs == 0 {
				t.Fatalf("no worker saw a backend error: the test proves nothing")
			}
			as := s.snapshot()
			gaps, _ := s.gaps(gapSlack)
			var figures []string
			for k := 1; k <= 3; k++ {
				w := time.Duration(k*workers) * testDelay
				most := maxInWindow(as, w)
				figures = append(figures, itoa(most)+" in "+w.String())
				if most > k*workers+1 {
					t.Errorf("%d requests within %v (%d × fleet %d × Crawl-delay %v); want at most %d",
						most, w, k, workers, testDelay, k*workers+1)
				}
			}
			t.Logf("%d robots.txt requests, %d backend errors; %s; at most %s", s.robotsRequests(), errs,
				gapSummary(gaps), strings.Join(figures, ", "))
		})
	}
}
