package robotsext

import (
	"context"
	"errors"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/backend"
)

// closeUA identifies the crawlers of these tests.
const closeUA = "TestBot/1.0 (+https://example.com/bot)"

// goroutines returns the stacks of the running goroutines by their
// header line ("goroutine 7 [select]:" without the state).
func goroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	m := map[string]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		head, _, _ := strings.Cut(g, " [")
		m[head] = g
	}
	return m
}

// serverSide reports a goroutine of net/http's test server: its listener
// and its side of each connection, which are not the Extension's.
func serverSide(stack string) bool {
	return strings.Contains(stack, "net/http.(*conn).serve") ||
		strings.Contains(stack, "net/http.(*Server).Serve") ||
		strings.Contains(stack, "net/http/httptest")
}

// leftSince returns the goroutines started since before that are still
// running, those of the test server aside.
func leftSince(before map[string]string) []string {
	var left []string
	for head, stack := range goroutines() {
		if _, ok := before[head]; !ok && !serverSide(stack) {
			left = append(left, stack)
		}
	}
	return left
}

// TestCloseLeavesNoGoroutine creates 100 Extensions, each crawling a real
// server through its own collector as a service's job would, and closes
// each: no goroutine started by them is left. Without Close, each left
// its robots.txt client's keep-alive connection (two goroutines on the
// client's side, one on the server's) until 90 seconds idle. It is not
// parallel: it counts every goroutine of the process.
func TestCloseLeavesNoGoroutine(t *testing.T) {
	if testing.Short() {
		t.Skip("100 crawls")
	}
	s := newSite(t, robotsTxt("User-agent: *\nAllow: /\nCrawl-delay: 0\n"))
	collys, _ := http.DefaultTransport.(*http.Transport) // the collectors' transport, not the Extension's
	before := goroutines()
	for i := range 100 {
		c := colly.NewCollector(colly.UserAgent(closeUA))
		opts := []Option{quiet()}
		switch i % 4 {
		case 1:
			opts = append(opts, WithPageCache(t.TempDir()))
		case 2:
			opts = append(opts, WithBackend(backend.NewMemory())) // a fleet's reads of pauses and purges
		case 3:
			opts = append(opts, WithPurpose(PurposeTrainAI), WithAdaptivePace(2)) // tdmrep.json, the adaptive pace
		}
		ext := Apply(c, opts...)
		if err := c.Visit(s.URL + "/page"); err != nil {
			t.Fatalf("job %d: %v", i, err)
		}
		c.Wait()
		if collys != nil {
			collys.CloseIdleConnections()
		}
		if err := ext.Close(); err != nil {
			t.Fatalf("job %d: Close: %v", i, err)
		}
	}
	if got := s.robotsHits.Load(); got != 100 {
		t.Fatalf("robots.txt fetched %d times, want one per Extension", got)
	}
	// A closed connection's goroutines end on their own schedule, just
	// after Close returns; this waits for them, up to a bound that only a
	// leak reaches. It measures no time.
	left := leftSince(before)
	for deadline := time.Now().Add(10 * time.Second); len(left) > 0 && time.Now().Before(deadline); left = leftSince(before) {
		time.Sleep(10 * time.Millisecond)
	}
	if len(left) > 0 {
		t.Errorf("%d goroutines left after 100 Extensions were closed; the first:\n%s", len(left), left[0])
	}
}

// TestClosedRefuses holds what reaches a closed Extension to ErrClosed:
// a request of an attached collector is refused at once (OnBlocked sees
// ReasonClosed and ErrClosed, not a local error, and no RetryAt, and
// nothing is logged at Warn; nothing is sent, nothing held), Check and Sitemaps return ErrClosed; a second
// Close returns nil.
func TestClosedRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts []Option
	}{
		{"plain", nil},
		{"hold", []Option{WithDeferUnreachable(time.Hour)}}, // a refusal after Close is never held
		{"purpose", []Option{WithPurpose(PurposeTrainAI)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSite(t, robotsTxt("User-agent: *\nAllow: /\nCrawl-delay: 0\n"))
			c := colly.NewCollector(colly.UserAgent(closeUA))
			var warns identityLog // Warn and above
			ext := Apply(c, append([]Option{WithLogger(warns.logger())}, tt.opts...)...)
			var log blockLog
			ext.OnBlocked(log.record)
			if err := ext.Close(); err != nil {
				t.Fatal(err)
			}
			if err := ext.Close(); err != nil {
				t.Errorf("second Close = %v, want nil", err)
			}
			if err := c.Visit(s.URL + "/page"); err != nil && !errors.Is(err, colly.ErrAbortedBeforeRequest) {
				t.Errorf("Visit = %v", err)
			}
			c.Wait()
			if n := s.robotsHits.Load(); n != 0 || len(s.seen()) != 0 {
				t.Errorf("a closed Extension let %d robots.txt and %v page requests out", n, s.seen())
			}
			_, vs := log.get()
			if len(vs) != 1 || vs[0].Reason != ReasonClosed || !errors.Is(vs[0].Err, ErrClosed) || errors.Is(vs[0].Err, ErrLocal) || !vs[0].RetryAt.IsZero() {
				t.Errorf("OnBlocked saw %+v, want one ReasonClosed with ErrClosed and no RetryAt", vs)
			}
			if v, err := ext.Check(s.URL + "/page"); !errors.Is(err, ErrClosed) || v.Allowed || v.Reason != ReasonClosed {
				t.Errorf("Check = %+v, %v; want refused with ErrClosed", v, err)
			}
			if _, err := ext.Sitemaps(s.URL + "/"); !errors.Is(err, ErrClosed) {
				t.Errorf("Sitemaps = %v, want ErrClosed", err)
			}
			if got := warns.matching("robotsext"); len(got) != 0 {
				t.Errorf("a refusal after Close logged at Warn: %q", got)
			}
			if st := ext.Stats(); st.Blocked[ReasonClosed] != 1 || st.Blocked[ReasonLocalError] != 0 || st.Held != 0 {
				t.Errorf("Stats: blocked %v, held %d; want one closed, none held", st.Blocked, st.Held)
			}
		})
	}
}

// TestCloseDuringRedirect closes the Extension while a request is in
// flight: the request ends, and its redirect hop, which would need the
// Extension's decision, is refused with ErrClosed rather than fetched.
func TestCloseDuringRedirect(t *testing.T) {
	t.Parallel()
	s := newSite(t, robotsTxt("User-agent: *\nAllow: /\nCrawl-delay: 0\n"))
	other := newSite(t, robotsTxt("User-agent: *\nAllow: /\nCrawl-delay: 0\n"))
	c := colly.NewCollector(colly.UserAgent(closeUA))
	ext := Apply(c, quiet())
	s.route("/away", func(w http.ResponseWriter, r *http.Request) {
		_ = ext.Close()
		http.Redirect(w, r, other.URL+"/there", http.StatusFound)
	})
	var got error
	c.OnError(func(_ *colly.Response, err error) { got = err })
	_ = c.Visit(s.URL + "/away")
	c.Wait()
	var be *BlockedError
	if !errors.As(got, &be) || !errors.Is(got, ErrClosed) || !errors.Is(got, ErrBlocked) {
		t.Fatalf("OnError got %v, want a BlockedError for ErrClosed (errors.Is both ErrClosed and ErrBlocked)", got)
	}
	if n := other.robotsHits.Load(); n != 0 || len(other.seen()) != 0 {
		t.Errorf("the hop's host got %d robots.txt and %v page requests", n, other.seen())
	}
}

// TestCloseWakesHeld closes the Extension while a request is held
// (WithDeferUnreachable, robots.txt answering 503 with a Retry-After of ten
// minutes): the request is refused at once with ErrClosed, not left held
// until its next try.
func TestCloseWakesHeld(t *testing.T) {
	t.Parallel()
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "600")
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	asleep := make(chan struct{}, 1)
	sleep := func(ctx context.Context, d time.Duration) error {
		if d < time.Minute {
			return nil // the pace's and the back-off's waits: not the subject
		}
		select { // the held request's wait for the next try
		case asleep <- struct{}{}:
		default:
		}
		<-ctx.Done()
		return ctx.Err()
	}
	c := colly.NewCollector(colly.UserAgent(closeUA))
	ext := Apply(c, quiet(), WithDeferUnreachable(2*time.Hour), withSleep(sleep))
	var log blockLog
	ext.OnBlocked(log.record)
	done := make(chan error, 1)
	go func() { done <- c.Visit(s.URL + "/page") }()
	<-asleep
	if err := ext.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second): // a bound only a hang reaches; nothing is timed
		t.Fatal("the held request was still held 10 s after Close")
	}
	_, vs := log.get()
	if len(vs) != 1 || !errors.Is(vs[0].Err, ErrClosed) || len(s.seen()) != 0 {
		t.Errorf("OnBlocked saw %+v, pages sent %v; want one refusal for ErrClosed and none sent", vs, s.seen())
	}
	if st := ext.Stats(); st.Held != 1 || st.GaveUp != 1 || st.HeldNow != 0 {
		t.Errorf("Stats: held %d, gave up %d, held now %d; want 1, 1, 0", st.Held, st.GaveUp, st.HeldNow)
	}
}

// TestCloseNilOrZero closes a nil and a zero Extension: nil, no panic
// (both panicked before Close checked for them).
func TestCloseNilOrZero(t *testing.T) {
	t.Parallel()
	for _, e := range []*Extension{nil, {}} {
		if err := e.Close(); err != nil {
			t.Errorf("Close of %p = %v, want nil", e, err)
		}
	}
}

// TestApplyTwiceWarns: Apply on a collector that carries an Extension
// already warns once (it was silent); Apply on a clone of it, which
// carries none of its hooks though it shares its storage, does not.
func TestApplyTwiceWarns(t *testing.T) {
	t.Parallel()
	c := colly.NewCollector(colly.UserAgent(closeUA))
	first := Apply(c, quiet())
	defer first.Close()
	clone := c.Clone()
	var again, cloned identityLog
	Apply(c, WithLogger(again.logger()), WithDefaultDelay(0))
	Apply(clone, WithLogger(cloned.logger()), WithDefaultDelay(0))
	if got := again.matching("another Extension"); len(got) != 1 {
		t.Errorf("a second Apply on one collector logged %q; want one warning", got)
	}
	if got := cloned.matching("another Extension"); len(got) != 0 {
		t.Errorf("Apply on a clone logged %q; want nothing", got)
	}
}
