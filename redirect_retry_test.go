package robotsext

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/hops"
)

// stepClock is a pacer clock that never sleeps: sleep moves it forward by
// the time asked (never back) and returns at once, so an 11 s Crawl-delay
// or a backoff of minutes costs the test nothing.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *stepClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *stepClock) sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(max(d, 0))
	return nil
}

// withSleep replaces the real clock's sleep wherever the Extension waits
// on its clock (the pace, the back-off, the adaptive pace, held
// requests): with WithClock(clk.now) and withSleep(clk.sleep) a test moves
// the Extension's time by hand.
func withSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(c *config) { c.sleep = sleep }
}

// withRand fixes the jitter's randomness: a test on a hand-moved clock
// whose schedule is exact passes withRand(noJitter).
func withRand(rand func() float64) Option {
	return func(c *config) { c.rand = rand }
}

// noJitter gives every paced start and pause no jitter.
func noJitter() float64 { return 0 }

// retrySite serves two hosts from one loopback server: paced.test, whose
// robots.txt sets Crawl-delay: 11, whose /dir answers 301 to /dir/ and
// whose /form answers 307 to /form/, and plain.test, which states
// "Crawl-delay: 0" (no pace, not even the default), whose /dir answers 301 to http://paced.test/dir/. It counts the
// requests per host and path, keeps the bodies /form/ received and notes,
// by the pacer's clock, when each request to paced.test arrived.
type retrySite struct {
	srv *httptest.Server
	clk *stepClock

	mu     sync.Mutex
	hits   map[string]int // "host/path" → requests
	bodies []string       // what /form/ received
	paced  []time.Time    // arrivals at paced.test, robots.txt included
	served []string       // arrivals in order, for the log
}

func newRetrySite(t *testing.T) *retrySite {
	t.Helper()
	s := &retrySite{clk: &stepClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, hits: map[string]int{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key := r.Host + r.URL.Path
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.hits[key]++
		if r.URL.Path == "/form/" {
			s.bodies = append(s.bodies, r.Method+" "+string(body))
		}
		s.served = append(s.served, key)
		if r.Host == "paced.test" {
			s.paced = append(s.paced, s.clk.now())
		}
		s.mu.Unlock()
		switch {
		case r.URL.Path == "/robots.txt" && r.Host == "paced.test":
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 11\n")
		case r.URL.Path == "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\nCrawl-delay: 0\n")
		case r.URL.Path == "/dir" && r.Host == "paced.test":
			http.Redirect(w, r, "/dir/", http.StatusMovedPermanently)
		case r.URL.Path == "/form":
			http.Redirect(w, r, "/form/", http.StatusTemporaryRedirect)
		case r.URL.Path == "/dir":
			http.Redirect(w, r, "http://paced.test/dir/", http.StatusMovedPermanently)
		default:
			tinyPage(w)
		}
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *retrySite) count(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[key]
}

// logCount is a slog handler that counts the records at its level whose
// message begins with one of its prefixes.
type logCount struct {
	level    slog.Level
	prefixes []string
	n        *atomic.Int32
}

func (l logCount) Enabled(context.Context, slog.Level) bool { return true }
func (l logCount) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l logCount) WithGroup(string) slog.Handler            { return l }
func (l logCount) Handle(_ context.Context, r slog.Record) error {
	for _, p := range l.prefixes {
		if strings.HasPrefix(r.Message, p) && r.Level == l.level {
			l.n.Add(1)
		}
	}
	return nil
}

// retryIdiom is how a crawler's OnError handler retries.
type retryIdiom int

const (
	naiveAfterApply  retryIdiom = iota // r.Request.Retry() on every error, registered after Apply
	naiveBeforeApply                   // the same, registered before Apply
	cappedRetry                        // at most 3 retries per Ctx, registered after Apply
)

func (i retryIdiom) String() string {
	return [...]string{"naive retry after Apply", "naive retry before Apply", "retry capped at 3"}[i]
}

// errorBudget bounds the OnError calls a crawl may make. It is the test's
// guard against a retry loop that never ends, not part of the idioms: a
// crawl that reaches it has failed.
const errorBudget = 12

// TestRedirectDeferredUnderRetryingOnError crawls /dir, whose redirect hop
// to /dir/ on a host with Crawl-delay: 11 is deferred
// (ErrRedirectDeferred), with an OnError handler that retries the way
// Colly users do. Whatever the idiom and wherever the handler is
// registered, the hop's target is fetched once and reaches OnResponse
// once, the crawl ends, the original URL is re-requested at most once,
// and every request to the paced host keeps the Crawl-delay (by the
// pacer's clock, which the test moves instead of waiting). A retry of a
// request whose hop is already re-issued is dropped quietly: counted in
// Stats.RetriesDropped and logged at Debug, neither Blocked nor reported
// to OnBlocked. A POST through a 307 keeps its body.
//
// On plain.test → paced.test the first request goes out before any host
// is paced; a retry registered before Apply then reaches the wire once
// (wantOrig 2) before the Extension can know it, and the second
// re-issue of the hop is dropped too (wantDropped 2).
func TestRedirectDeferredUnderRetryingOnError(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		idiom       retryIdiom
		method      string
		start, hop  string // the URL visited; the hop's host and path
		wantOrig    int    // requests to start, at most
		wantDropped uint64 // Stats.RetriesDropped
	}{
		{naiveAfterApply, http.MethodGet, "http://paced.test/dir", "paced.test/dir/", 1, 1},
		{naiveBeforeApply, http.MethodGet, "http://paced.test/dir", "paced.test/dir/", 1, 1},
		{cappedRetry, http.MethodGet, "http://paced.test/dir", "paced.test/dir/", 1, 1},
		{naiveAfterApply, http.MethodGet, "http://plain.test/dir", "paced.test/dir/", 1, 1},
		{naiveBeforeApply, http.MethodGet, "http://plain.test/dir", "paced.test/dir/", 2, 2},
		{cappedRetry, http.MethodGet, "http://plain.test/dir", "paced.test/dir/", 1, 1},
		{naiveAfterApply, http.MethodPost, "http://paced.test/form", "paced.test/form/", 1, 1},
		{naiveBeforeApply, http.MethodPost, "http://paced.test/form", "paced.test/form/", 1, 1},
	} {
		for _, async := range []bool{false, true} {
			name := fmt.Sprintf("%v/%s %s/async=%v", tt.idiom, tt.method, tt.start[len("http://"):], async)
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				site := newRetrySite(t)
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				defer cancel()
				c := colly.NewCollector(colly.Async(async), colly.StdlibContext(ctx))
				c.WithTransport(wireTo(t, site.srv))

				var mu sync.Mutex
				var errs, retryErrs []error
				var responses []string
				var onErrors atomic.Int32
				retry := func(r *colly.Response, err error) {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					if onErrors.Add(1) > errorBudget {
						return
					}
					if tt.idiom == cappedRetry {
						n, _ := r.Ctx.GetAny("tries").(int)
						if n >= 3 {
							return
						}
						r.Ctx.Put("tries", n+1)
					}
					if rerr := r.Request.Retry(); rerr != nil {
						mu.Lock()
						retryErrs = append(retryErrs, rerr)
						mu.Unlock()
					}
				}
				if tt.idiom == naiveBeforeApply {
					c.OnError(retry)
				}
				var dropLogs atomic.Int32
				logger := slog.New(logCount{slog.LevelDebug, []string{"robotsext: retry dropped", "robotsext: redirect hop already re-issued"}, &dropLogs})
				// site.clk's sleeps: no real 11 s waits.
				ext := Apply(c, WithLogger(logger), WithClock(site.clk.now), withSleep(site.clk.sleep), WithHTTPClient(&http.Client{Transport: wireTo(t, site.srv)}))
				if tt.idiom != naiveBeforeApply {
					c.OnError(retry)
				}
				var blocked atomic.Int32
				ext.OnBlocked(func(*colly.Request, Verdict) { blocked.Add(1) })
				c.OnResponse(func(r *colly.Response) {
					mu.Lock()
					responses = append(responses, r.Request.URL.Host+r.Request.URL.Path)
					mu.Unlock()
				})

				var err error
				if tt.method == http.MethodPost {
					err = c.Post(tt.start, map[string]string{"a": "1"})
				} else {
					err = c.Visit(tt.start)
				}
				if err != nil && !errors.Is(err, ErrRedirectDeferred) {
					t.Errorf("Visit: %v", err)
				}
				c.Wait()

				mu.Lock()
				defer mu.Unlock()
				site.mu.Lock()
				defer site.mu.Unlock()
				orig := site.hits[tt.start[len("http://"):]]
				hop := site.hits[tt.hop]
				s := ext.Stats()
				t.Logf("%s ×%d, %s ×%d, OnResponse %q, OnError ×%d, RetriesDropped %d, Retry errors %q; served %q",
					tt.start, orig, tt.hop, hop, responses, len(errs), s.RetriesDropped, retryErrs, site.served)
				if n := onErrors.Load(); n > errorBudget {
					t.Errorf("OnError ran %d times (the test stopped retrying at %d): the crawl does not end", n, errorBudget)
				}
				if hop != 1 {
					t.Errorf("%s fetched %d times, want 1", tt.hop, hop)
				}
				if !slices.Equal(responses, []string{tt.hop}) {
					t.Errorf("OnResponse saw %q, want [%s]", responses, tt.hop)
				}
				if orig > tt.wantOrig {
					t.Errorf("%s requested %d times, want at most %d", tt.start, orig, tt.wantOrig)
				}
				if tt.method == http.MethodPost && !slices.Equal(site.bodies, []string{"POST a=1"}) {
					t.Errorf("/form/ received %q, want [\"POST a=1\"]", site.bodies)
				}
				for _, err := range append(errs, retryErrs...) {
					if !errors.Is(err, ErrRedirectDeferred) {
						t.Errorf("OnError or Retry got %v, want only errors wrapping ErrRedirectDeferred", err)
					}
				}
				for i := 1; i < len(site.paced); i++ {
					if gap := site.paced[i].Sub(site.paced[i-1]); gap < 11*time.Second {
						t.Errorf("request %d to paced.test came %v after the one before, want at least the Crawl-delay 11s", i, gap)
					}
				}
				if s.RetriesDropped != tt.wantDropped || uint64(dropLogs.Load()) != s.RetriesDropped {
					t.Errorf("Stats().RetriesDropped = %d with %d Debug records, want %d of each", s.RetriesDropped, dropLogs.Load(), tt.wantDropped)
				}
				if len(s.Blocked) != 0 || s.RedirectsBlocked != 0 || blocked.Load() != 0 {
					t.Errorf("Stats().Blocked = %v, RedirectsBlocked %d, OnBlocked calls %d; want none: a dropped retry is not blocked",
						s.Blocked, s.RedirectsBlocked, blocked.Load())
				}
			})
		}
	}
}

// TestRedirectDeferredReissueFailsRetryGoesOut: when the hop cannot be
// re-issued (here the collector's MaxRequests is reached), which is
// logged at Warn, nothing holds the original request back: the handler's
// retry reaches Colly, which answers it as it would have, and nothing is
// counted as dropped.
func TestRedirectDeferredReissueFailsRetryGoesOut(t *testing.T) {
	t.Parallel()
	site := newRetrySite(t)
	c := colly.NewCollector()
	c.MaxRequests = 1
	c.WithTransport(wireTo(t, site.srv))
	var warns atomic.Int32
	logger := slog.New(logCount{slog.LevelWarn, []string{"robotsext: deferred redirect hop could not be re-issued"}, &warns})
	ext := Apply(c, WithLogger(logger), WithClock(site.clk.now), withSleep(site.clk.sleep), WithHTTPClient(&http.Client{Transport: wireTo(t, site.srv)}))
	var retryErrs []error
	c.OnError(func(r *colly.Response, err error) {
		if errors.Is(err, ErrRedirectDeferred) {
			retryErrs = append(retryErrs, r.Request.Retry())
		}
	})
	c.Visit("http://plain.test/dir")
	c.Wait()
	if len(retryErrs) != 1 || !errors.Is(retryErrs[0], colly.ErrMaxRequests) {
		t.Errorf("Retry returned %v, want [%v]: the request is not held back when its hop was not re-issued", retryErrs, colly.ErrMaxRequests)
	}
	if got := site.count("paced.test/dir/"); got != 0 {
		t.Errorf("paced.test/dir/ fetched %d times, want 0 (MaxRequests 1)", got)
	}
	if s := ext.Stats(); s.RetriesDropped != 0 {
		t.Errorf("Stats().RetriesDropped = %d, want 0", s.RetriesDropped)
	}
	if warns.Load() != 1 {
		t.Errorf("%d warnings that the hop could not be re-issued, want 1", warns.Load())
	}
}

// TestHopLedger: an entry is used once, expires after hops.Memory, and a
// full ledger makes room by dropping expired entries or else remembers no
// more; a nil ledger remembers nothing.
func TestHopLedger(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ctxA, ctxB := colly.NewContext(), colly.NewContext()
	hdr := http.Header{}
	key := func(ctx *colly.Context, h http.Header, u string) retryKey {
		r := &colly.Request{Ctx: ctx, Method: http.MethodGet, Headers: &h}
		r.URL, _ = r.URL.Parse(u)
		return retryKeyOf(r)
	}
	a := key(ctxA, hdr, "http://x.test/a")
	type step struct {
		k    retryKey
		at   time.Duration // after t0
		op   string        // claim, forget, claimed
		want bool          // claim's answer
	}
	for _, tt := range []struct {
		name  string
		fill  int // unrelated entries claimed at t0 first
		steps []step
	}{
		{"first claim re-issues, its retry does not", 0, []step{{a, 0, "claim", true}, {a, time.Minute, "claim", false}}},
		{"an entry is used once", 0, []step{{a, 0, "claim", true}, {a, 0, "claim", false}, {a, 0, "claim", true}}},
		{"an entry expires", 0, []step{{a, 0, "claim", true}, {a, hops.Memory, "claim", true}, {a, hops.Memory, "claim", false}}},
		{"claimed restarts the memory", 0, []step{{a, 0, "claim", true}, {a, time.Minute, "claimed", false}, {a, hops.Memory + 30*time.Second, "claim", false}}},
		{"claimed does not add", 0, []step{{a, 0, "claimed", false}, {a, 0, "claim", true}}},
		{"forget undoes a claim", 0, []step{{a, 0, "claim", true}, {a, 0, "forget", false}, {a, 0, "claim", true}}},
		{"another Ctx is another request", 0, []step{{a, 0, "claim", true}, {key(ctxB, hdr, "http://x.test/a"), 0, "claim", true}, {a, 0, "claim", false}}},
		{"another header map is another request", 0, []step{{a, 0, "claim", true}, {key(ctxA, http.Header{}, "http://x.test/a"), 0, "claim", true}}},
		{"another URL is another request", 0, []step{{a, 0, "claim", true}, {key(ctxA, hdr, "http://x.test/b"), 0, "claim", true}}},
		{"full and fresh: not remembered", hops.Max, []step{{a, time.Minute, "claim", true}, {a, time.Minute, "claim", true}}},
		{"full but expired: room made", hops.Max, []step{{a, hops.Memory, "claim", true}, {a, hops.Memory, "claim", false}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var l hopLedger
			for i := range tt.fill {
				l.Claim(key(colly.NewContext(), hdr, fmt.Sprintf("http://fill.test/%d", i)), t0)
			}
			for i, s := range tt.steps {
				now := t0.Add(s.at)
				switch s.op {
				case "claim":
					if got := l.Claim(s.k, now); got != s.want {
						t.Errorf("step %d: claim = %v, want %v", i, got, s.want)
					}
				case "claimed":
					l.Claimed(s.k, now)
				case "forget":
					l.Forget(s.k)
				}
				if n := l.Len(); n > hops.Max {
					t.Errorf("step %d: %d entries, more than %d", i, n, hops.Max)
				}
			}
		})
	}
	var nilLedger *hopLedger
	for i := 0; i < 2; i++ {
		if !nilLedger.Claim(a, t0) {
			t.Errorf("claim %d: a nil ledger held a hop back", i+1)
		}
	}
	nilLedger.Claimed(a, t0)
	nilLedger.Forget(a)
}

// TestHopLedgerConcurrent: of many goroutines claiming one request's hop
// at once, exactly one re-issues it; run under -race.
func TestHopLedgerConcurrent(t *testing.T) {
	t.Parallel()
	var l hopLedger
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	hdr := http.Header{}
	r := &colly.Request{Ctx: colly.NewContext(), Method: http.MethodGet, Headers: &hdr}
	r.URL, _ = r.URL.Parse("http://x.test/a")
	k := retryKeyOf(r)
	var wins, misses atomic.Int32
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			other := retryKeyOf(&colly.Request{Ctx: colly.NewContext(), Method: http.MethodGet, URL: r.URL, Headers: &hdr})
			l.Claim(other, t0)
			if i%2 == 0 {
				l.Claimed(other, t0)
			}
			if l.Claim(k, t0) {
				wins.Add(1)
			} else {
				misses.Add(1)
			}
		})
	}
	wg.Wait()
	// Claims of k alternate: re-issue, dropped, re-issue, ...
	if w, m := wins.Load(), misses.Load(); w != 32 || m != 32 {
		t.Errorf("%d claims re-issued and %d did not, want 32 and 32", w, m)
	}
}

// TestTimeoutEndsClaimLate proves that a page request the client timed
// out on keeps its host from the next request for longer than an answer
// would: a server answering in 900 ms, Crawl-delay 0.1, Colly's request
// timeout 300 ms and a retry on every error (three tries). A timeout ends
// the claim as late again as the request had been out, so a try starts
// 700 ms after the previous one, and the server never has all three at
// once. It runs on the real clock, since the timeout is the client's;
// the margins are hundreds of milliseconds. Before, a try started 400 ms
// after the previous one, and the server had three requests at once.
func TestTimeoutEndsClaimLate(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var now, most, tries int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, "User-agent: *\nCrawl-delay: 0.1\n")
			return
		}
		mu.Lock()
		now, tries = now+1, tries+1
		most = max(most, now)
		mu.Unlock()
		time.Sleep(900 * time.Millisecond) // the slow server's work, not a wait for the test
		mu.Lock()
		now--
		mu.Unlock()
		tinyPage(w)
	}))
	t.Cleanup(srv.Close)
	cr := newCrawler(t, srv, true)
	cr.c.SetRequestTimeout(300 * time.Millisecond)
	cr.c.OnError(func(resp *colly.Response, err error) {
		n, _ := resp.Ctx.GetAny("tries").(int)
		if n < 2 {
			resp.Ctx.Put("tries", n+1)
			resp.Request.Retry()
		}
	})
	cr.visit(t, "http://h.test/slow")
	srv.Close() // the handlers still at work end first
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d tries, at most %d at the server at once", tries, most)
	if tries != 3 || most > 2 {
		t.Errorf("%d tries, at most %d at the server at once; want 3 tries, never 3 at once", tries, most)
	}
}
