package robotsext

import (
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/internal/lifecycle"
)

// TestOrigin: Origin reports the cached robots.txt and the host's pace
// without fetching, and nothing for origins never asked for.
func TestOrigin(t *testing.T) {
	t.Parallel()
	paced := newAccSite(t, accBody("User-agent: *\nCrawl-delay: 2\n"))
	down := newAccSite(t, statusOnly(503))
	c, client := accCollector(t, "AcmeBot/2.1")
	ext := Apply(c, client)
	if _, ok := ext.Origin(paced.URL + "/x"); ok {
		t.Fatal("Origin reported an origin never asked for")
	}
	if n := len(paced.robotsHits()); n != 0 {
		t.Fatalf("Origin fetched robots.txt (%d requests)", n)
	}
	for _, u := range []string{paced.URL + "/", down.URL + "/"} {
		if _, err := ext.Check(u); err != nil {
			t.Fatal(err)
		}
	}
	info, ok := ext.Origin(paced.URL + "/any/path")
	if !ok {
		t.Fatal("Origin: not cached after Check")
	}
	if info.Outcome != OutcomeOK || info.Status != 200 || info.CrawlDelay != 2*time.Second || info.DefaultPace || info.Failures != 0 ||
		info.RobotsURL != paced.URL+"/robots.txt" || info.Fetched.IsZero() || !info.Expires.After(info.Fetched) || info.NextSlot.IsZero() {
		t.Errorf("paced origin: %+v", info)
	}
	info, ok = ext.Origin(down.URL + "/")
	// robots.txt states nothing while it cannot be had: the default pace.
	if !ok || info.Outcome != OutcomeUnreachable || info.Status != 503 || info.Failures != 1 || !errors.Is(info.Err, ErrUnreachable) ||
		info.CrawlDelay != DefaultDelay || !info.DefaultPace {
		t.Errorf("unreachable origin: %+v, %v", info, ok)
	}
	for _, bad := range []string{"", "mailto:a@b", "http://"} {
		if _, ok := ext.Origin(bad); ok {
			t.Errorf("Origin(%q) reported an origin", bad)
		}
	}
}

// TestForgetLocal: Forget drops the origin here, and the next request
// fetches robots.txt again; URLs without an origin are refused with the
// usual errors.
func TestForgetLocal(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	s := newAccSite(t, accBody("User-agent: *\nDisallow: /old\n"))
	c, client := accCollector(t, "AcmeBot/2.1")
	ext := Apply(c, WithDefaultDelay(0), client)
	if v, _ := ext.Check(s.URL + "/old"); v.Allowed {
		t.Fatal("the first file allows /old")
	}
	s.setRobots(accBody("User-agent: *\nDisallow: /new\n"))
	if err := ext.Forget(t.Context(), s.URL+"/whatever"); err != nil {
		t.Fatal(err)
	}
	if _, ok := ext.Origin(s.URL); ok {
		t.Error("Origin still reports the forgotten origin")
	}
	if v, _ := ext.Check(s.URL + "/old"); !v.Allowed {
		t.Errorf("after Forget /old is still blocked: %+v", v)
	}
	if n := len(s.robotsHits()); n != 2 {
		t.Errorf("robots.txt requested %d times, want 2", n)
	}
	for _, tt := range []struct {
		url  string
		want error
	}{{"ftp://x.test/", ErrNotHTTP}, {"http://", ErrInvalidURL}} {
		if err := ext.Forget(t.Context(), tt.url); !errors.Is(err, tt.want) {
			t.Errorf("Forget(%q) = %v, want %v", tt.url, err, tt.want)
		}
	}
}

// TestWarnBuiltinCheckBackOn: setting IgnoreRobotsTxt back to false after
// Apply is logged once at Warn, whatever the number of requests.
func TestWarnBuiltinCheckBackOn(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{false, true} {
		s := newAccSite(t, accBody("User-agent: *\nAllow: /\nCrawl-delay: 0\n")) // not a test of the pace
		c, client := accCollector(t, "AcmeBot/2.1")
		logs := &warnLog{}
		Apply(c, client, WithLogger(slog.New(logs)))
		if on {
			c.IgnoreRobotsTxt = false
		}
		accVisit(t, c, s.URL, "/a", "/b", "/c")
		c.Wait()
		want := 0
		if on {
			want = 1
		}
		if n := logs.count("own robots.txt check is on"); n != want {
			t.Errorf("IgnoreRobotsTxt back on = %v: %d warnings, want %d", on, n, want)
		}
	}
}

// TestForgetFleet: Forget through a Forgetter backend reaches another
// Extension sharing it within lifecycle.PurgePoll while it keeps
// checking, not before, and the new robots.txt is fetched once for both.
// The Extensions and the backend run on a hand-moved clock: the poll is
// due by the Extension's clock, which the test moves on instead of
// waiting PurgePoll (2 s) of real time.
func TestForgetFleet(t *testing.T) {
	t.Parallel()
	s := newAccSite(t, accBody("User-agent: *\nDisallow: /old\n"))
	clk := newClock()
	shared := backend.NewMemory()
	shared.Now = clk.Now
	c1, client1 := accCollector(t, "AcmeBot/2.1")
	c2, client2 := accCollector(t, "AcmeBot/2.1")
	// The subject is not the pace: WithDefaultDelay(0). (On a clock
	// that stands still, the robots.txt request after Forget would wait
	// for the default pace's slot until the collector's context ended.)
	opts := []Option{WithBackend(shared), WithClock(clk.Now), WithDefaultDelay(0), quiet()}
	e1 := Apply(c1, append([]Option{client1}, opts...)...)
	e2 := Apply(c2, append([]Option{client2}, opts...)...)
	for _, e := range []*Extension{e1, e2} {
		if v, _ := e.Check(s.URL + "/old"); v.Allowed {
			t.Fatal("the first file allows /old")
		}
	}
	time.Sleep(100 * time.Millisecond) // let e2's first read of the purge log (its cursor) land
	s.setRobots(accBody("User-agent: *\nDisallow: /new\n"))
	if err := e1.Forget(t.Context(), s.URL+"/"); err != nil {
		t.Fatal(err)
	}
	if v, _ := e1.Check(s.URL + "/old"); !v.Allowed {
		t.Fatalf("e1 after its Forget: /old still blocked: %+v", v)
	}
	// Until the poll is due, e2 keeps its copy, however often it checks.
	clk.Advance(lifecycle.PurgePoll - time.Millisecond)
	for range 5 {
		if v, _ := e2.Check(s.URL + "/old"); v.Allowed {
			t.Fatalf("e2 dropped its copy before the poll was due (%v after its first read)", lifecycle.PurgePoll-time.Millisecond)
		}
		time.Sleep(10 * time.Millisecond) // a read started too early would land
	}
	clk.Advance(time.Millisecond)
	start := time.Now()
	var took time.Duration
	for {
		v, _ := e2.Check(s.URL + "/old")
		if v.Allowed {
			took = time.Since(start)
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("e2 still obeys the forgotten file %v after the poll was due", time.Since(start))
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("e2 dropped its copy %v (real time) after the poll was due by the clock (poll %v)", took.Round(time.Millisecond), lifecycle.PurgePoll)
	if n := len(s.robotsHits()); n != 2 {
		t.Errorf("robots.txt requested %d times, want 2 (once before, once after the purge, for both)", n)
	}
}
