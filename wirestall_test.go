package robotsext

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/internal/pacing"
)

// A worker that stalls between the gate and the wire (CPU starvation, a
// GC or VM pause) must not make its request arrive onto the next worker's
// slot: with a backend.Claimer the fleet's next start counts from the
// stalled request's answer, which the server gave after it saw the
// request. Two Extensions share a backend.Memory; one collector's
// transport sleeps before every page request, after the gate let it go.

// stallTransport sleeps stall before sending every request but robots.txt.
type stallTransport struct {
	next  http.RoundTripper
	stall time.Duration
}

func (s stallTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Path != "/robots.txt" {
		time.Sleep(s.stall)
	}
	return s.next.RoundTrip(req)
}

// starterOnly hides every optional interface of a Memory but Starter: the
// fleet pace of a Backend that cannot claim a host.
type starterOnly struct {
	backend.Backend
	backend.Starter
}

// TestStallBeforeWireClaimedFleetWide: with the Claimer, every gap at the
// server is at least the Crawl-delay although one worker's page arrives
// 200 ms after its gate. The control, the same Memory seen as a
// Starter only (start times confirmed at the gate, as before the Claimer),
// lets the other worker's requests arrive well inside the delay, so the
// check can fail.
func TestStallBeforeWireClaimedFleetWide(t *testing.T) {
	t.Parallel()
	const (
		delay = 300 * time.Millisecond
		stall = 200 * time.Millisecond
		pages = 4
	)
	robots := fmt.Sprintf("User-agent: *\nCrawl-delay: %g\n", delay.Seconds())
	tests := []struct {
		name    string
		backend func() backend.Backend
		claims  bool
	}{
		{"Claimer", func() backend.Backend { return backend.NewMemory() }, true},
		{"Starter only (control)", func() backend.Backend {
			m := backend.NewMemory()
			return starterOnly{m, m}
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The control needs only one gap below the delay to show that
			// the check can fail; how far below (about delay − stall on a
			// quiet machine) and whether the other worker's request gets out
			// in time depend on the machine's load, so the control has three
			// tries. The Claimer's row has one, and no gap may be short.
			tries := 1
			if !tc.claims {
				tries = 3
			}
			for try := 1; ; try++ {
				short, smallest := stallRun(t, tc.backend(), tc.claims, robots, delay, stall, pages)
				if tc.claims || short > 0 {
					return
				}
				if try == tries {
					t.Errorf("control: smallest gap %v in %d tries, none below the delay; a Starter that only confirms starts should let the fast worker crowd the late page (about %v)",
						smallest, tries, delay-stall)
					return
				}
			}
		})
	}
}

// stallRun is one crawl of TestStallBeforeWireClaimedFleetWide on b: the
// slow worker's page, then the fast worker's pages. It reports how many
// gaps at the server were below the delay (each an error when claims) and
// the smallest.
func stallRun(t *testing.T, b backend.Backend, claims bool, robots string, delay, stall time.Duration, pages int) (int, time.Duration) {
	t.Helper()
	s := newAccSite(t, accBody(robots))
	slow, slowClient := accCollector(t, "AcmeBot/2.1")
	slow.WithTransport(stallTransport{next: accTransport(t), stall: stall})
	fast, fastClient := accCollector(t, "AcmeBot/2.1")
	Apply(slow, slowClient, WithBackend(b))
	fastExt := Apply(fast, fastClient, WithBackend(b))
	// Both have robots.txt before the crawl (the fast worker adopts the
	// slow one's record), so that only the fleet's pace decides when the
	// fast worker goes.
	if _, err := fastExt.Check(s.URL + "/"); err != nil {
		t.Fatal(err)
	}
	// The fast worker starts once the slow one's page has arrived, so
	// that it asks for the next start right after a late one (the moment
	// a Starter alone gets wrong), and no other request of the slow
	// worker competes for it.
	accVisit(t, slow, s.URL, "/slow/0")
	waitForPage(t, s, "/slow/0")
	for i := range pages {
		accVisit(t, fast, s.URL, fmt.Sprintf("/fast/%d", i))
	}
	slow.Wait()
	fast.Wait()

	hits := s.all()
	if len(hits) != pages+2 {
		t.Fatalf("the server saw %d requests, want %d (robots.txt and %d pages)", len(hits), pages+2, pages+1)
	}
	gaps, smallest := accGaps(hits)
	short := 0
	for i, g := range gaps {
		if g < delay-accSlack {
			short++
			if claims {
				t.Errorf("%s arrived %v after %s; want at least the Crawl-delay %v", hits[i+1].path, g, hits[i].path, delay)
			}
		}
	}
	t.Logf("smallest gap at the server %v (Crawl-delay %v, one page %v late at the wire); %d of %d gaps below the delay",
		smallest.Round(time.Millisecond), delay, stall, short, len(gaps))
	return short, smallest
}

// waitForPage waits until s has seen path, for at most 10 s.
func waitForPage(t *testing.T, s *accSite, path string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		for _, h := range s.all() {
			if h.path == path {
				return
			}
		}
	}
	t.Fatalf("%s never reached the server", path)
}

// TestClaimEndedByRedirect: a redirect answers the request that claimed
// the host, so the hop to the same paced host waits the delay, not the
// claim's expiry (5 s), and the fleet-wide gaps are kept across the hop.
func TestClaimEndedByRedirect(t *testing.T) {
	t.Parallel()
	const delay = 200 * time.Millisecond
	var (
		mu   sync.Mutex
		hits []accHit
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits = append(hits, accHit{at: time.Now(), path: r.URL.Path})
		mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nCrawl-delay: %g\n", delay.Seconds())
		case "/a":
			http.Redirect(w, r, "/b", http.StatusFound)
		default:
			fmt.Fprint(w, "ok")
		}
	}))
	t.Cleanup(srv.Close)
	c, client := accCollector(t, "AcmeBot/2.1")
	Apply(c, client, WithBackend(backend.NewMemory()))
	begin := time.Now()
	accVisit(t, c, srv.URL, "/a", "/c")
	c.Wait()
	took := time.Since(begin)
	mu.Lock()
	defer mu.Unlock()
	if len(hits) != 4 {
		t.Fatalf("the server saw %d requests; want robots.txt, /a, /b and /c", len(hits))
	}
	_, smallest := accGaps(hits)
	t.Logf("robots.txt, /a, its hop /b and /c took %v; smallest gap %v (Crawl-delay %v)", took.Round(time.Millisecond), smallest.Round(time.Millisecond), delay)
	if smallest < delay-accSlack {
		t.Errorf("smallest gap %v; want at least the Crawl-delay %v", smallest, delay)
	}
	if took > pacing.WireClaim {
		t.Errorf("the crawl took %v: the hop waited for the redirected request's claim to expire", took)
	}
}
