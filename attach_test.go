package robotsext

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// Acceptance tests of issue 10 in one process: Attach shares one
// Extension (cache, pace per host, Stats, OnBlocked) between collectors,
// Colly's list collector and its detail Clone. Helpers are in
// identity_e2e_test.go.

const accAttachRobots = "User-agent: *\nDisallow: /blocked/\nCrawl-delay: 0.2\n"

const accAttachDelay = 200 * time.Millisecond

// TestIssue10AttachClone crawls one host with a list collector and
// detail := c.Clone(), both through one Extension (Apply on c, Attach on
// detail, each attached twice more): robots.txt is requested once, the
// server sees the Crawl-delay between all requests of both collectors,
// Stats counts the requests of both exactly once, and OnBlocked reports
// each blocked URL of either collector exactly once (no doubled hooks).
func TestIssue10AttachClone(t *testing.T) {
	t.Parallel()
	s := newAccSite(t, accBody(accAttachRobots))
	c, client := accCollector(t, "AcmeBot/2.1 (+https://acme.example/bot)")
	e := Apply(c, client)
	detail := c.Clone()
	e.Attach(detail)
	e.Attach(detail) // no-op
	e.Attach(c)      // no-op: c came with Apply
	e.Attach(nil)    // no-op
	var blocked accBlocked
	e.OnBlocked(blocked.record)

	list := []string{"/list/1", "/list/2", "/list/3", "/blocked/list"}
	details := []string{"/detail/1", "/detail/2", "/detail/3", "/blocked/detail"}
	for i := range list {
		accVisit(t, c, s.URL, list[i])
		accVisit(t, detail, s.URL, details[i])
	}
	c.Wait()
	detail.Wait()

	want := []string{"/detail/1", "/detail/2", "/detail/3", "/list/1", "/list/2", "/list/3"}
	if got := s.pages(); !slices.Equal(got, want) {
		t.Errorf("server saw pages %q, want %q", got, want)
	}
	if n := len(s.robotsHits()); n != 1 {
		t.Errorf("robots.txt requested %d times, want 1", n)
	}
	minGap, minSent := accCheckGaps(t, s.all(), accAttachDelay)
	t.Logf("%d requests from two collectors: smallest gap %v at the server, %v as sent (Crawl-delay %v)", len(s.all()), minGap, minSent, accAttachDelay)

	if got := blocked.sortedPaths(); !slices.Equal(got, []string{"/blocked/detail", "/blocked/list"}) {
		t.Errorf("OnBlocked saw %q, want each blocked URL of both collectors once", got)
	}
	_, vs := blocked.get()
	for _, v := range vs {
		if v.Reason != ReasonDisallowRule || v.Line != 2 {
			t.Errorf("verdict %+v, want ReasonDisallowRule on line 2", v)
		}
	}
	st := e.Stats()
	var allowed uint64
	for _, n := range st.Allowed {
		allowed += n
	}
	if allowed != uint64(len(want)) || st.Blocked[ReasonDisallowRule] != 2 || st.Fetches[OutcomeOK] != 1 {
		t.Errorf("Stats: allowed %d %v, blocked %v, fetches %v; want %d allowed, 2 disallowed, 1 fetch",
			allowed, st.Allowed, st.Blocked, st.Fetches, len(want))
	}
	if rules := e.LimitRules(); len(rules) != 1 || rules[0].Delay != accAttachDelay {
		t.Errorf("LimitRules %+v, want one host at %v", rules, accAttachDelay)
	}
}

// TestIssue10AttachControl is the control run of TestIssue10AttachClone:
// the Clone gets its own Apply instead of Attach, so robots.txt is
// fetched twice and each collector paces the host by itself; the gap
// check of TestIssue10AttachClone would fail here.
func TestIssue10AttachControl(t *testing.T) {
	t.Parallel()
	s := newAccSite(t, accBody(accAttachRobots))
	c, client := accCollector(t, "AcmeBot/2.1 (+https://acme.example/bot)")
	Apply(c, client)
	detail := c.Clone()
	Apply(detail, client)
	for i := 1; i <= 2; i++ {
		accVisit(t, c, s.URL, fmt.Sprintf("/list/%d", i))
		accVisit(t, detail, s.URL, fmt.Sprintf("/detail/%d", i))
	}
	c.Wait()
	detail.Wait()
	if n := len(s.robotsHits()); n != 2 {
		t.Errorf("robots.txt requested %d times, want 2 (one per Extension)", n)
	}
	_, minGap := accGaps(s.all())
	if minGap >= accAttachDelay-accSlack-accGateOverrun(accAttachDelay) {
		t.Errorf("smallest gap %v: two Extensions kept the Crawl-delay %v between them, so the control proves nothing", minGap, accAttachDelay)
	}
	t.Logf("control: %d robots.txt requests, smallest gap %v (Crawl-delay %v)", len(s.robotsHits()), minGap, accAttachDelay)
}
