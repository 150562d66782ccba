package robotsext

import (
	"context"
	"testing"
	"time"

	"github.com/robotsext/robotsext/internal/simhost"
)

// withForgetGrace shortens how long Forget spares a host's pace after its
// robots.txt was loaded (a minute otherwise), so that an eviction drops
// it within a short test.
func withForgetGrace(d time.Duration) Option {
	return func(c *config) { c.forgetGrace = d }
}

// TestPaceUnderRefetches is the stress test of item 4 of issue 49: a
// robots.txt re-fetch while the host's pages are booked or at the gate
// must not let a page go early. 120 hosts at a 50 ms default pace, 4
// pages each linking within and across hosts, crawled Async at
// Parallelism 16 through a robots.txt cache of 4 origins: origins are
// evicted (and their pace forgotten, the grace shortened) while their
// pages wait, and fetched again. At the server, every gap between two
// pages of a host is at least the delay, and one page at a time is in
// flight. It fails without the fix (Forget dropped a pace in use, and a
// request waiting for the claim then went at once). The pace is the
// subject, so the crawl runs in real time; it takes about a second.
func TestPaceUnderRefetches(t *testing.T) {
	t.Parallel()
	const delay = 50 * time.Millisecond
	srv := simhost.New(120, func(int) simhost.Spec { return simhost.Spec{Robots: simhost.Silent, Pages: 4} })
	defer srv.Close()
	feed := func(_ context.Context, visit func(string)) {
		for i := range srv.Hosts() {
			visit(simhost.URL(i, 0))
		}
	}
	res := scaleCrawl{srv: srv, par: 16, follow: true, limit: time.Minute, feed: feed,
		opts: []Option{WithDefaultDelay(delay), WithCacheSize(4), withForgetGrace(time.Nanosecond)}}.run()
	rp := srv.Report(func(int) time.Duration { return delay })
	if res.pages != 480 {
		t.Errorf("%d pages answered, want 480", res.pages)
	}
	// Origins a request is using are evicted last (internal/lifecycle's
	// pins), so fewer come back than the cache's size alone would make:
	// 1.45 per host seen; 1.2 is still two dozen re-fetches beside pages.
	if rp.RobotsPerHost < 1.2 {
		t.Errorf("%.2f robots.txt fetches per host: too few re-fetches for the test to test anything", rp.RobotsPerHost)
	}
	if rp.GapsBelow > 0 || rp.MinGapRatio < 1 || rp.MaxInFlight != 1 {
		t.Errorf("%d gaps below the delay, smallest %.3f × the delay, %d pages of a host in flight at once; want none, ≥ 1, 1",
			rp.GapsBelow, rp.MinGapRatio, rp.MaxInFlight)
	}
	t.Logf("%.2f robots.txt fetches per host; smallest gap %.3f × the delay", rp.RobotsPerHost, rp.MinGapRatio)
}
