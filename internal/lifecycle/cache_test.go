package lifecycle

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// Unit tests of the Cache: lookups, one fetch per origin, retries of local
// failures, Forget while a fetch is on the wire, evictions, and the
// fleet's records through a backend.Memory. The clock is moved by hand;
// the only waits are the Cache's own short retry waits.

// installs records what Config.Installed was told.
type installs struct {
	mu      sync.Mutex
	fetched []bool
}

func (in *installs) installed(_ context.Context, _ *Entry, _ http.Header, fetched bool) {
	in.mu.Lock()
	in.fetched = append(in.fetched, fetched)
	in.mu.Unlock()
}

func (in *installs) get() []bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]bool(nil), in.fetched...)
}

// newTestCache makes a Cache on cl and clk with the root package's
// defaults; edit changes its Config first.
func newTestCache(cl *http.Client, clk *clock, edit func(*Config)) *Cache {
	cfg := Config{
		Fetcher: NewFetcher(fetcherConfig(cl, clk)), Size: 16, MaxBytes: 1 << 30,
		Now: clk.Now, LocalRetryWait: time.Microsecond,
		Token:  func() string { return "AcmeBot" },
		Header: func() http.Header { return RequestHeader(http.Header{"User-Agent": {"AcmeBot/1.0"}}) },
	}
	if edit != nil {
		edit(&cfg)
	}
	return New(cfg)
}

// TestCacheGet proves the lookup: a miss fetches once however many callers
// wait for it, later Gets are hits without a request, the entry resolves
// its groups for the token and its override, and an expired entry is
// revalidated.
func TestCacheGet(t *testing.T) {
	t.Parallel()
	clk := newClock()
	mt, cl := mock()
	onWire, release := make(chan struct{}), make(chan struct{})
	var requests atomic.Int32
	mt.RegisterResponder("GET", testRobots, func(req *http.Request) (*http.Response, error) {
		if requests.Add(1) == 1 {
			close(onWire)
			<-release
		}
		if req.Header.Get("If-None-Match") == `"v1"` {
			return respond(304, "")(req)
		}
		return respond(200, testRules, "ETag", `"v1"`, "Cache-Control", "max-age=600")(req)
	})
	var in installs
	c := newTestCache(cl, clk, func(cfg *Config) {
		cfg.Installed = in.installed
		cfg.Overridden = func(o Origin) bool { return o == testHost }
	})
	const callers = 8
	entries := make(chan *Entry, callers)
	var wg sync.WaitGroup
	get := func() {
		en, err := c.Get(context.Background(), testHost)
		if err != nil {
			t.Error(err)
		}
		entries <- en
	}
	wg.Go(get)
	<-onWire // the others wait for this fetch, or find its answer cached
	for range callers - 1 {
		wg.Go(get)
	}
	close(release)
	wg.Wait()
	close(entries)
	var first *Entry
	for en := range entries {
		if first == nil {
			first = en
		}
		if en != first {
			t.Fatal("callers got different entries from one fetch")
		}
	}
	if n := requests.Load(); n != 1 {
		t.Fatalf("%d requests for %d callers, want 1", n, callers)
	}
	if first.SelToken != "AcmeBot" || !first.Override || first.Outcome != backend.OutcomeOK || first.Robots.Status != 200 {
		t.Errorf("entry %+v", first)
	}
	if got := in.get(); len(got) != 1 || !got[0] {
		t.Errorf("Installed told %v, want one fetched install", got)
	}
	if en, err := c.Get(context.Background(), testHost); err != nil || en != first {
		t.Errorf("hit: %v %v", en, err)
	}
	clk.Advance(11 * time.Minute)
	en, err := c.Get(context.Background(), testHost)
	if err != nil || en == first || !en.Robots.NotModified || en.Policy != first.Policy {
		t.Errorf("revalidation: %+v %v; want a new entry with the same policy", en, err)
	}
	n := c.Counts()
	if n.Misses+n.Hits != callers+2 || n.Misses < 2 || n.Origins != 1 || n.Bytes != en.Size || requests.Load() != 2 {
		t.Errorf("counts %+v after %d requests", n, requests.Load())
	}
	if c.Peek(testHost) != en || c.Peek(Origin{Host: "b.test"}) != nil {
		t.Error("Peek")
	}
}

// TestCacheLocalError proves that a fetch this machine could not make is
// tried again a few times, then Get fails with an error wrapping
// Errors.Local, counted and never cached against the origin.
func TestCacheLocalError(t *testing.T) {
	t.Parallel()
	clk := newClock()
	mt, cl := mock()
	var requests atomic.Int32
	mt.RegisterResponder("GET", testRobots, func(*http.Request) (*http.Response, error) {
		requests.Add(1)
		return nil, syscall.EMFILE
	})
	c := newTestCache(cl, clk, nil)
	_, err := c.Get(context.Background(), testHost)
	if !errors.Is(err, errLocal) || !errors.Is(err, syscall.EMFILE) {
		t.Fatalf("Get: %v; want Errors.Local and the cause", err)
	}
	if n := requests.Load(); n != LocalRetries+1 {
		t.Errorf("%d requests, want %d", n, LocalRetries+1)
	}
	if n := c.Counts(); n.LocalErrors != 1 || n.Origins != 0 {
		t.Errorf("counts %+v", n)
	}
}

// TestCacheForgetOnTheWire proves that a Forget while the origin's fetch
// is on the wire drops the answer once installed, so that the next Get
// fetches again, paced like any request, while Forgets after the answer
// are no different from a first one.
func TestCacheForgetOnTheWire(t *testing.T) {
	t.Parallel()
	clk := newClock()
	mt, cl := mock()
	onWire := make(chan struct{})
	release := make(chan struct{})
	var requests atomic.Int32
	mt.RegisterResponder("GET", testRobots, func(req *http.Request) (*http.Response, error) {
		if requests.Add(1) == 1 {
			close(onWire)
			<-release
		}
		return respond(200, testRules)(req)
	})
	var paced atomic.Int32
	c := newTestCache(cl, clk, func(cfg *Config) {
		cfg.Pace = func(_ context.Context, host string) error {
			if host != testHost.Host {
				t.Errorf("paced %q", host)
			}
			paced.Add(1)
			return nil
		}
	})
	done := make(chan *Entry)
	go func() {
		en, err := c.Get(context.Background(), testHost)
		if err != nil {
			t.Error(err)
		}
		done <- en
	}()
	<-onWire
	for range 3 {
		if err := c.Forget(context.Background(), testHost); err != nil {
			t.Fatal(err)
		}
	}
	close(release)
	if en := <-done; en == nil || en.Outcome != backend.OutcomeOK {
		t.Fatalf("the waiting Get got %+v", en)
	}
	if c.Peek(testHost) != nil {
		t.Fatal("the answer requested before Forget stayed cached")
	}
	if _, err := c.Get(context.Background(), testHost); err != nil {
		t.Fatal(err)
	}
	if requests.Load() != 2 || paced.Load() != 2 || c.Peek(testHost) == nil {
		t.Errorf("%d requests, %d paced, cached %v; want one re-fetch, paced, kept", requests.Load(), paced.Load(), c.Peek(testHost) != nil)
	}
}

// TestCacheEvicted proves the bound on origins and that Config.Evicted
// hears of a host only when its last origin (of either scheme) is gone.
func TestCacheEvicted(t *testing.T) {
	t.Parallel()
	clk := newClock()
	mt, cl := mock()
	for _, u := range []string{"http://a.test/robots.txt", "https://a.test/robots.txt", "http://b.test/robots.txt", "http://c.test/robots.txt"} {
		mt.RegisterResponder("GET", u, respond(200, testRules))
	}
	var mu sync.Mutex
	var evicted []string
	c := newTestCache(cl, clk, func(cfg *Config) {
		cfg.Size = 2
		cfg.Evicted = func(host string) { mu.Lock(); evicted = append(evicted, host); mu.Unlock() }
	})
	for _, o := range []Origin{{Host: "a.test"}, {HTTPS: true, Host: "a.test"}, {Host: "b.test"}, {Host: "c.test"}} {
		if _, err := c.Get(context.Background(), o); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	// b evicts http://a.test (its twin is cached: the host stays); c
	// evicts https://a.test, the last origin on a.test.
	if len(evicted) != 1 || evicted[0] != "a.test" {
		t.Errorf("Evicted told %q, want [a.test]", evicted)
	}
	if n := c.Counts(); n.Origins != 2 || n.Evictions != 2 {
		t.Errorf("counts %+v", n)
	}
}

// TestCacheShared proves the fleet's flow through a Backend: the first
// Cache fetches under the lease and stores the record, the second adopts
// it without a request, and Forget there reaches the first through the
// purge log.
func TestCacheShared(t *testing.T) {
	t.Parallel()
	clk := newClock()
	mb := backend.NewMemory()
	mb.Now = clk.Now
	mt, cl := mock()
	var requests atomic.Int32
	mt.RegisterResponder("GET", testRobots, func(req *http.Request) (*http.Response, error) {
		requests.Add(1)
		return respond(200, testRules, "Cache-Control", "max-age=600")(req)
	})
	var in [2]installs
	var caches [2]*Cache
	for i := range caches {
		caches[i] = newTestCache(cl, clk, func(cfg *Config) {
			cfg.Backend, cfg.Installed = mb, in[i].installed
			cfg.Origin = func(s string) (Origin, bool) { return testHost, s == testOrigin }
		})
	}
	for _, c := range caches {
		if en, err := c.Get(context.Background(), testHost); err != nil || en.Outcome != backend.OutcomeOK {
			t.Fatalf("Get: %+v %v", en, err)
		}
	}
	if requests.Load() != 1 {
		t.Fatalf("%d requests, want 1 for the fleet", requests.Load())
	}
	if a, b := in[0].get(), in[1].get(); len(a) != 1 || !a[0] || len(b) != 1 || b[0] {
		t.Errorf("installs %v and %v; want fetched, then adopted", a, b)
	}
	caches[0].readPurges() // the cursor, before any purge
	if err := caches[1].Forget(context.Background(), testHost); err != nil {
		t.Fatal(err)
	}
	if rec, _ := mb.Load(context.Background(), testOrigin); rec != nil || caches[1].Peek(testHost) != nil {
		t.Fatal("Forget left the record or the entry")
	}
	caches[0].readPurges()
	if caches[0].Peek(testHost) != nil {
		t.Error("the purge did not reach the other Cache")
	}
}

// failingBackend fails every call.
type failingBackend struct{ calls atomic.Int32 }

func (b *failingBackend) Load(context.Context, string) (*backend.Record, error) {
	b.calls.Add(1)
	return nil, errors.New("down")
}

func (b *failingBackend) Lease(context.Context, string, time.Duration) (backend.Lease, bool, time.Duration, error) {
	b.calls.Add(1)
	return backend.Lease{}, false, 0, errors.New("down")
}

func (b *failingBackend) Store(context.Context, string, backend.Lease, *backend.Record) error {
	b.calls.Add(1)
	return errors.New("down")
}

func (b *failingBackend) Reserve(context.Context, string, time.Duration) (time.Duration, error) {
	b.calls.Add(1)
	return 0, errors.New("down")
}

// health is a Health that goes down at the first failure.
type health struct{ failures atomic.Int32 }

func (h *health) Up(string) bool { return h.failures.Load() == 0 }
func (h *health) Failed(error)   { h.failures.Add(1) }

// Settle says no: the Backend is down once a call failed.
func (h *health) Settle(context.Context, error) bool { return false }

// TestCacheBackendDown proves that a failing Backend is reported to
// Health and robots.txt is fetched locally; while Health says the Backend
// is down, it is not asked at all.
func TestCacheBackendDown(t *testing.T) {
	t.Parallel()
	clk := newClock()
	mt, cl := mock()
	mt.RegisterResponder("GET", testRobots, respond(200, testRules, "Cache-Control", "max-age=60"))
	var b failingBackend
	var h health
	c := newTestCache(cl, clk, func(cfg *Config) { cfg.Backend, cfg.Health = &b, &h })
	if en, err := c.Get(context.Background(), testHost); err != nil || en.Outcome != backend.OutcomeOK {
		t.Fatalf("Get: %+v %v", en, err)
	}
	if b.calls.Load() != 1 || h.failures.Load() != 1 {
		t.Errorf("%d backend calls, %d failures reported; want 1 and 1", b.calls.Load(), h.failures.Load())
	}
	clk.Advance(2 * time.Minute)
	if _, err := c.Get(context.Background(), testHost); err != nil {
		t.Fatal(err)
	}
	if b.calls.Load() != 1 || mt.GetTotalCallCount() != 2 {
		t.Errorf("%d backend calls, %d requests; want the backend left alone while down", b.calls.Load(), mt.GetTotalCallCount())
	}
}

// TestCacheGetAt: GetAt tells a cached entry fresh by the instant its
// caller read, as an offset from Config.Epoch, not by the clock, and says
// whether it answered from the cache (hit) or had to fetch.
func TestCacheGetAt(t *testing.T) {
	t.Parallel()
	clk := newClock()
	mt, cl := mock()
	var requests atomic.Int32
	mt.RegisterResponder("GET", testRobots, func(req *http.Request) (*http.Response, error) {
		requests.Add(1)
		return respond(200, testRules, "Cache-Control", "max-age=600")(req)
	})
	epoch := clk.Now().Add(-time.Hour)
	c := newTestCache(cl, clk, func(cfg *Config) { cfg.Epoch = epoch })
	fetchedAt := clk.Now().Sub(epoch) // the entry is fresh for 600 s from here
	steps := []struct {
		name      string
		now       time.Duration // the reading given
		clock     time.Duration // where the clock is, as an offset from epoch too
		wantHit   bool
		wantFetch int32
	}{
		{"not cached: fetched", fetchedAt, fetchedAt, false, 1},
		{"cached and fresh", fetchedAt + time.Second, fetchedAt + time.Second, true, 1},
		{"fresh by the reading, though the clock has passed the expiry", fetchedAt + 2*time.Second, fetchedAt + time.Hour, true, 1},
		{"the last instant before expiry", fetchedAt + 600*time.Second - 1, fetchedAt + time.Hour, true, 1},
		{"an instant past expiry: fetched again", fetchedAt + 600*time.Second, fetchedAt + 600*time.Second, false, 2},
	}
	for _, st := range steps {
		clk.Advance(st.clock - clk.Now().Sub(epoch)) // the fetch path reads the clock
		en, hit, err := c.GetAt(context.Background(), testHost, st.now)
		if err != nil || en == nil {
			t.Fatalf("%s: entry %v, error %v", st.name, en, err)
		}
		if hit != st.wantHit || requests.Load() != st.wantFetch {
			t.Errorf("%s: hit %v after %d requests, want %v after %d", st.name, hit, requests.Load(), st.wantHit, st.wantFetch)
		}
	}
}
