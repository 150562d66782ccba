package redisbackend

// Shared state that cannot be right, met by a whole crawl: a pace written
// an hour ahead (a foreign write, a failover to a node whose clock is
// behind), a claim expiring a day ahead, an Unclaim in the future or
// garbage in the pace key must neither stall the host nor go unnoticed.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
)

// TestCorruptPaceCrawl: two paced sites whose pace keys come to have a
// start an hour ahead, or garbage, once their robots.txt was fetched (or
// already have it when robots.txt is fetched: the robots.txt request,
// recorded as the host's first start, meets the bad value) are crawled
// through a real Redis. The crawl
// ends in about the time its Crawl-delays ask for (the figure
// before: both hosts stopped for the whole 120 s run, without a word),
// the gaps hold, and the Extension counts the anomaly and warns once per
// host.
func TestCorruptPaceCrawl(t *testing.T) {
	t.Parallel()
	const pages = 4
	srv := startRedisServer(t)
	c := newClient(t, "unix", srv.Sock)
	hourAhead := func(now int64) string {
		return fmt.Sprintf("%d %d other", now+int64(time.Hour/time.Microsecond), int64(testDelay/time.Microsecond))
	}
	garbage := func(int64) string { return "garbage" }
	delayUS := int64(testDelay / time.Microsecond)
	// A claim by a worker that never was, expiring a day ahead, and an
	// Unclaim an hour ahead, in the format pacePrelude writes.
	claimedDayAhead := func(now int64) string {
		return fmt.Sprintf("%d %d 0 %d 5 ghost ghost", now, delayUS, now+int64(24*time.Hour/time.Microsecond))
	}
	unclaimedAhead := func(now int64) string {
		return fmt.Sprintf("%d %d %d 0 0  other", now, delayUS, now+int64(time.Hour/time.Microsecond))
	}
	tests := []struct {
		name   string
		value  func(now int64) string
		before bool // written before robots.txt is fetched
	}{
		{"an hour ahead", hourAhead, false},
		{"garbage", garbage, false},
		{"an hour ahead before robots.txt", hourAhead, true},
		{"garbage before robots.txt", garbage, true},
		{"claimed a day ahead", claimedDayAhead, false},
		{"claimed a day ahead before robots.txt", claimedDayAhead, true},
		{"unclaimed an hour ahead", unclaimedAhead, false},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			prefix := fmt.Sprintf("corrupt%d:", i)
			b := New(c, WithPrefix(prefix), WithHeartbeat(-1))
			sites := []*site{newSite(t, testDelay, false), newSite(t, testDelay, false)}
			var logs logBuffer
			col := colly.NewCollector(colly.UserAgent("fleetbot/1.0 (worker corrupt; +https://fleet.test/bot)"))
			ext := robotsext.Apply(col, robotsext.WithBackend(b), robotsext.WithLogger(logs.logger()))
			// robots.txt first: its request is the host's first start,
			// written to the pace key; the bad value comes after it, in
			// the middle of the crawl, or is there before it.
			for _, s := range sites {
				corrupt := func() {
					key := b.keys.pace(strings.TrimPrefix(s.URL, "http://"))
					if err := c.Set(t.Context(), key, tc.value(redisMicros(t, c)), time.Hour).Err(); err != nil {
						t.Fatal(err)
					}
				}
				if tc.before {
					corrupt()
				}
				if _, err := ext.Check(s.URL + "/"); err != nil {
					t.Fatal(err)
				}
				if !tc.before {
					corrupt()
				}
			}
			begin := time.Now()
			for p := range pages {
				for _, s := range sites {
					if err := col.Visit(fmt.Sprintf("%s/page%d", s.URL, p)); err != nil {
						t.Fatal(err)
					}
				}
			}
			took := time.Since(begin)
			st := ext.Stats()
			warns := strings.Count(logs.String(), "level=WARN")
			t.Logf("%d pages on each of 2 hosts (Crawl-delay %v) took %v; Stats.BackendAnomalies %d; %d warnings",
				pages, testDelay, took.Round(time.Millisecond), st.BackendAnomalies, warns)
			if took > 10*time.Second {
				t.Errorf("the crawl took %v; want about %v", took, pages*testDelay)
			}
			if st.BackendAnomalies == 0 {
				t.Errorf("Stats.BackendAnomalies = 0; want the bad pace counted")
			}
			if warns != len(sites) {
				t.Errorf("%d warnings; want one per host (%d):\n%s", warns, len(sites), logs.String())
			}
			checkPolite(t, sites, 1)
		})
	}
}
