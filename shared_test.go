package robotsext

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/internal/lifecycle"
	"github.com/robotsext/robotsext/internal/mockhttp"
)

// Acceptance tests of issue 10's Backend in one process: separate
// Extensions sharing a MemoryBackend behave as one (one robots.txt fetch,
// one pace per host), a failing Backend falls back to local fetching and
// a local pace multiplied by the fleet size, and the records a Backend
// carries decide exactly as the Extension that stored them. Helpers are in
// identity_e2e_test.go.

const accSharedRobots = "User-agent: *\nDisallow: /blocked/\nCrawl-delay: 0.15\n"

const accSharedDelay = 150 * time.Millisecond

// accCrawlTwo runs two collectors, each with its own Extension made with
// opts, over the same host at once, and returns the Extensions.
func accCrawlTwo(t *testing.T, s *accSite, opts ...Option) (*Extension, *Extension) {
	t.Helper()
	c1, client1 := accCollector(t, "AcmeBot/2.1 (+https://acme.example/bot)")
	c2, client2 := accCollector(t, "AcmeBot/2.1 (+https://acme.example/bot)")
	e1 := Apply(c1, append([]Option{client1}, opts...)...)
	e2 := Apply(c2, append([]Option{client2}, opts...)...)
	for i := 1; i <= 3; i++ {
		accVisit(t, c1, s.URL, fmt.Sprintf("/one/%d", i))
		accVisit(t, c2, s.URL, fmt.Sprintf("/two/%d", i))
	}
	accVisit(t, c1, s.URL, "/blocked/one")
	accVisit(t, c2, s.URL, "/blocked/two")
	c1.Wait()
	c2.Wait()
	return e1, e2
}

// TestIssue10SharedMemoryBackend gives two Extensions of two collectors
// the same MemoryBackend: the host's robots.txt is requested once for
// both, each obeys it, and the fetch is counted once. The control run
// without the backend requests robots.txt twice and sees gaps well below
// the delay, so the checks here and in TestIssue10SharedMemoryBackendGaps
// fail there.
func TestIssue10SharedMemoryBackend(t *testing.T) {
	t.Parallel()
	t.Run("shared", func(t *testing.T) {
		t.Parallel()
		s := newAccSite(t, accBody(accSharedRobots))
		e1, e2 := accCrawlTwo(t, s, WithBackend(backend.NewMemory()))
		if n := len(s.robotsHits()); n != 1 {
			t.Errorf("robots.txt requested %d times, want 1 for both Extensions", n)
		}
		if got := s.pages(); len(got) != 6 || slices.ContainsFunc(got, func(p string) bool { return strings.HasPrefix(p, "/blocked/") }) {
			t.Errorf("server saw pages %q, want the six allowed ones", got)
		}
		s1, s2 := e1.Stats(), e2.Stats()
		if f := s1.Fetches[OutcomeOK] + s2.Fetches[OutcomeOK]; f != 1 {
			t.Errorf("fetches %v + %v, want 1 in all", s1.Fetches, s2.Fetches)
		}
		if s1.BackendErrors+s2.BackendErrors != 0 {
			t.Errorf("backend errors %d, %d", s1.BackendErrors, s2.BackendErrors)
		}
		if s1.Blocked[ReasonDisallowRule] != 1 || s2.Blocked[ReasonDisallowRule] != 1 {
			t.Errorf("blocked %v, %v; want one each", s1.Blocked, s2.Blocked)
		}
		_, minGap := accGaps(s.all())
		t.Logf("shared: %d robots.txt request, smallest gap %v (Crawl-delay %v)", len(s.robotsHits()), minGap, accSharedDelay)
	})
	t.Run("control without backend", func(t *testing.T) {
		t.Parallel()
		s := newAccSite(t, accBody(accSharedRobots))
		accCrawlTwo(t, s)
		n := len(s.robotsHits())
		_, minGap := accGaps(s.all())
		if n != 2 || minGap >= accSharedDelay-accSlack-accGateOverrun(accSharedDelay) {
			t.Errorf("control: %d robots.txt requests, smallest gap %v: want 2 and a gap below the delay, or the shared checks prove nothing", n, minGap)
		}
		t.Logf("control: %d robots.txt requests, smallest gap %v (Crawl-delay %v)", n, minGap, accSharedDelay)
	})
}

// TestIssue10SharedMemoryBackendGaps crawls as the "shared" run of
// TestIssue10SharedMemoryBackend and checks the gaps at the server across
// both Extensions.
func TestIssue10SharedMemoryBackendGaps(t *testing.T) {
	t.Parallel()
	s := newAccSite(t, accBody(accSharedRobots))
	accCrawlTwo(t, s, WithBackend(backend.NewMemory()))
	minGap, minSent := accCheckGaps(t, s.all(), accSharedDelay)
	t.Logf("shared: smallest gap %v at the server, %v as sent (Crawl-delay %v)", minGap, minSent, accSharedDelay)
}

// TestIssue10AdoptedErrIsStatusError: an Extension that adopts another's
// record of a 503 reports the Verdict.Err the Verdict documents, a
// *StatusError, as the fetching Extension does.
func TestIssue10AdoptedErrIsStatusError(t *testing.T) {
	t.Parallel()
	s := newAccSite(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	mb := backend.NewMemory()
	fetcher := Apply(nil, WithUserAgent("AcmeBot"), WithBackend(mb), WithLogger(slog.New(slog.DiscardHandler)))
	adopter := Apply(nil, WithUserAgent("AcmeBot"), WithBackend(mb), WithLogger(slog.New(slog.DiscardHandler)))
	for i, e := range []*Extension{fetcher, adopter} {
		name := []string{"fetcher", "adopter"}[i]
		v, err := e.Check(s.URL + "/page")
		var se *StatusError
		if err != nil || v.Reason != ReasonUnreachable || !errors.As(v.Err, &se) || se.StatusCode != 503 {
			t.Errorf("%s: %+v (Err %T %v), %v; want ReasonUnreachable with a *StatusError 503", name, v, v.Err, v.Err, err)
		}
	}
	if n := len(s.robotsHits()); n != 1 {
		t.Errorf("robots.txt requested %d times, want 1", n)
	}
}

// accFailingBackend fails every call and says the fleet has three
// workers.
type accFailingBackend struct{ calls atomic.Int64 }

var errAccBackendDown = errors.New("acc: backend down")

func (b *accFailingBackend) Load(context.Context, string) (*backend.Record, error) {
	b.calls.Add(1)
	return nil, errAccBackendDown
}

func (b *accFailingBackend) Lease(context.Context, string, time.Duration) (backend.Lease, bool, time.Duration, error) {
	b.calls.Add(1)
	return backend.Lease{}, false, 0, errAccBackendDown
}

func (b *accFailingBackend) Store(context.Context, string, backend.Lease, *backend.Record) error {
	b.calls.Add(1)
	return errAccBackendDown
}

func (b *accFailingBackend) Reserve(context.Context, string, time.Duration) (time.Duration, error) {
	b.calls.Add(1)
	return 0, errAccBackendDown
}

func (b *accFailingBackend) FleetSize() int { return 3 }

// TestIssue10FailingBackend crawls through a Backend whose every call
// fails and whose fleet has three workers: robots.txt is still fetched
// (once, locally) and obeyed, the host is paced locally at three times its
// Crawl-delay, the failures are counted in Stats().BackendErrors and one
// Warn says so, and nothing panics.
func TestIssue10FailingBackend(t *testing.T) {
	t.Parallel()
	const delay = 100 * time.Millisecond
	s := newAccSite(t, accBody("User-agent: *\nDisallow: /blocked/\nCrawl-delay: 0.1\n"))
	b := &accFailingBackend{}
	c, client := accCollector(t, "AcmeBot/2.1 (+https://acme.example/bot)")
	var log accLog
	e := Apply(c, client, WithBackend(b), WithLogger(log.logger()))
	accVisit(t, c, s.URL, "/p/1", "/p/2", "/blocked/x", "/p/3", "/p/4")
	c.Wait()

	if got := s.pages(); !slices.Equal(got, []string{"/p/1", "/p/2", "/p/3", "/p/4"}) {
		t.Errorf("server saw pages %q, want the four allowed ones", got)
	}
	if n := len(s.robotsHits()); n != 1 {
		t.Errorf("robots.txt requested %d times, want 1", n)
	}
	minGap, minSent := accCheckGaps(t, s.all(), 3*delay)
	st := e.Stats()
	if st.BackendErrors == 0 || b.calls.Load() == 0 || st.Blocked[ReasonDisallowRule] != 1 {
		t.Errorf("BackendErrors %d, backend calls %d, blocked %v", st.BackendErrors, b.calls.Load(), st.Blocked)
	}
	warns := 0
	for _, r := range log.atLevel(t, slog.LevelWarn) {
		if strings.Contains(fmt.Sprint(r["msg"]), "backend failed") {
			warns++
		}
	}
	if warns != 1 {
		t.Errorf("%d backend warnings, want 1: %v", warns, log.atLevel(t, slog.LevelWarn))
	}
	t.Logf("failing backend (fleet of 3): %d backend calls, BackendErrors %d, smallest gap %v at the server, %v as sent (Crawl-delay %v x 3)",
		b.calls.Load(), st.BackendErrors, minGap, minSent, delay)
}

// accRoundTripRobots has rules for AcmeBot and "*" on known lines.
const accRoundTripRobots = "# round trip\nUser-agent: AcmeBot\nDisallow: /private/\nAllow: /private/open\nDisallow: /*.pdf$\nCrawl-delay: 2\n\nUser-agent: *\nDisallow: /\n"

var accRoundTripPaths = []string{"/", "/robots.txt", "/private/x", "/private/open/y", "/doc.pdf", "/doc.pdf?x", "/public"}

// accVerdictText is what must survive a round trip of a verdict.
func accVerdictText(v Verdict) string {
	s := fmt.Sprintf("allowed=%v reason=%q line=%d rule=%q", v.Allowed, v.Reason, v.Line, v.Rule)
	if v.Err != nil {
		s += " err=" + v.Err.Error()
	}
	return s
}

// TestIssue10RecordRoundTrip checks the records internal/lifecycle shares
// through a MemoryBackend (its record.go's nextRecord and entryOf): for
// each outcome in turn (OK, a 304 revalidation, unreachable with a stale
// good copy, unavailable, and unreachable with no good copy left), what
// the Extension that fetched stores decides every path exactly as that
// Extension does, verdict, line and rule, once another Extension has
// adopted it; the adopter requests nothing, and the fetches alternate
// between the two, so validators and failure counts travel through the
// record too.
func TestIssue10RecordRoundTrip(t *testing.T) {
	t.Parallel()
	clk := mockhttp.ClockAt(time.Now()) // the tests' hand-moved clock
	mb := backend.NewMemory()
	mb.Now = clk.Now
	s := newAccSite(t, accBody(accRoundTripRobots))
	var exts [2]*Extension
	for i := range exts {
		exts[i] = Apply(nil, WithUserAgent("AcmeBot"), WithBackend(mb), WithClock(clk.Now), WithLogger(slog.New(slog.DiscardHandler)))
	}
	u, _ := url.Parse(s.URL)
	origin := u.Scheme + "://" + u.Host

	ok := func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.Header().Set("Cache-Control", "max-age=120")
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Cache-Control", "max-age=120")
		fmt.Fprint(w, accRoundTripRobots)
	}
	var first []string // the verdicts of the first, good fetch
	for step, tt := range []struct {
		name      string
		robots    http.HandlerFunc
		advance   time.Duration
		fetcher   int
		outcome   Outcome
		stale     bool
		inm       string // If-None-Match the fetch must send
		failures  int
		sameAsOK  bool // the verdicts are those of the good copy
		allowsAll bool
	}{
		{"ok", ok, 0, 0, OutcomeOK, false, "", 0, true, false},
		{"304", ok, 3 * time.Minute, 1, OutcomeOK, false, `"v1"`, 0, true, false},
		{"unreachable, stale copy", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }, 3 * time.Minute, 0, OutcomeUnreachable, true, `"v1"`, 1, true, false},
		{"unavailable", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(404) }, 2 * time.Minute, 1, OutcomeUnavailable, false, `"v1"`, 0, false, true},
		{"unreachable, no copy", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(503) }, 25 * time.Hour, 0, OutcomeUnreachable, false, "", 1, false, false},
	} {
		s.setRobots(tt.robots)
		clk.Advance(tt.advance)
		fetcher, adopter := exts[tt.fetcher], exts[1-tt.fetcher]
		before := len(s.robotsHits())
		var fetched, adopted []string
		var fetchedVs []Verdict
		for _, p := range accRoundTripPaths {
			v, err := fetcher.Check(s.URL + p)
			if err != nil {
				t.Fatalf("%s: Check %s: %v", tt.name, p, err)
			}
			fetched, fetchedVs = append(fetched, accVerdictText(v)), append(fetchedVs, v)
		}
		hits := s.robotsHits()[before:]
		if len(hits) != 1 || hits[0].inm != tt.inm {
			t.Fatalf("%s: robots.txt requests %+v, want one with If-None-Match %q", tt.name, hits, tt.inm)
		}
		for _, p := range accRoundTripPaths {
			v, err := adopter.Check(s.URL + p)
			if err != nil {
				t.Fatalf("%s: adopter Check %s: %v", tt.name, p, err)
			}
			adopted = append(adopted, accVerdictText(v))
		}
		if n := len(s.robotsHits()) - before; n != 1 {
			t.Errorf("%s: %d robots.txt requests, want 1: the adopter fetched", tt.name, n)
		}
		if !slices.Equal(fetched, adopted) {
			t.Errorf("%s: the fetcher decided\n  %s\nthe adopter decided\n  %s", tt.name, strings.Join(fetched, "\n  "), strings.Join(adopted, "\n  "))
		}
		if step == 0 {
			first = fetched
		}
		if tt.sameAsOK && !slices.Equal(fetched, first) {
			t.Errorf("%s: verdicts\n  %s\nwant those of the good copy\n  %s", tt.name, strings.Join(fetched, "\n  "), strings.Join(first, "\n  "))
		}
		for i, v := range fetchedVs {
			switch {
			case tt.allowsAll && accRoundTripPaths[i] != "/robots.txt" && (!v.Allowed || v.Reason != ReasonUnavailable):
				t.Errorf("%s: %s: %s, want allowed as unavailable", tt.name, accRoundTripPaths[i], fetched[i])
			case tt.outcome == OutcomeUnreachable && !tt.stale && accRoundTripPaths[i] != "/robots.txt" &&
				(v.Allowed || v.Reason != ReasonUnreachable || !errors.Is(v.Err, ErrUnreachable)):
				t.Errorf("%s: %s: %s, want blocked as unreachable", tt.name, accRoundTripPaths[i], fetched[i])
			}
		}

		// The record itself, and the entry the adopter made of it.
		rec, err := mb.Load(context.Background(), origin)
		if err != nil || rec == nil {
			t.Fatalf("%s: Load: %v, %v", tt.name, rec, err)
		}
		en := adopter.cache.Peek(originFor(t, s.URL))
		if Outcome(rec.Latest.Outcome) != tt.outcome || en == nil || en.Stale != tt.stale || rec.Failures != tt.failures ||
			(tt.stale && (rec.Good == nil || len(rec.Good.Body) == 0)) {
			t.Errorf("%s: record outcome %v failures %d good %v; entry %+v; want %v, %d, stale %v",
				tt.name, rec.Latest.Outcome, rec.Failures, rec.Good != nil, en, tt.outcome, tt.failures, tt.stale)
		}
		if tt.name == "304" && (!rec.Latest.NotModified || string(rec.Latest.Body) != accRoundTripRobots) {
			t.Errorf("304: record NotModified %v with body %q, want the confirmed copy's body", rec.Latest.NotModified, rec.Latest.Body)
		}
		for _, ext := range exts {
			if d := ext.pacer.Delay(u.Host); (tt.outcome == OutcomeOK || tt.stale) != (d == 2*time.Second) {
				t.Errorf("%s: an Extension paces %v", tt.name, d)
			}
		}
		t.Logf("%-24s fetched by %d, adopted by %d: %s", tt.name, tt.fetcher, 1-tt.fetcher, strings.Join(fetched[2:5], "; "))
	}
	if n := exts[0].Stats().NotModified + exts[1].Stats().NotModified; n != 1 {
		t.Errorf("%d revalidations answered 304, want 1", n)
	}
}

// originFor returns the origin of rawURL.
func originFor(t *testing.T, rawURL string) lifecycle.Origin {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	o, err := originOf(u)
	if err != nil {
		t.Fatal(err)
	}
	return o
}
