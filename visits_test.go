package robotsext

import (
	"bytes"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gocolly/colly/v2"
	"github.com/gocolly/colly/v2/storage"
)

// TestVisitsStorageField: the Colly of go.mod keeps its storage where
// visits.go looks for it, so that Attach can wrap it.
func TestVisitsStorageField(t *testing.T) {
	t.Parallel()
	c := colly.NewCollector()
	p := storageField(c)
	if p == nil {
		t.Fatal("colly.Collector has no field store of type storage.Storage: links refused for their page's sake would stay unreachable")
	}
	if _, ok := (*p).(*storage.InMemoryStorage); !ok {
		t.Fatalf("a new collector's storage is %T", *p)
	}
	Apply(c, quiet())
	w, ok := (*p).(*visitStore)
	if !ok {
		t.Fatalf("after Apply the storage is %T", *p)
	}
	clone := c.Clone()
	if got := *storageField(clone); got != storage.Storage(w) {
		t.Fatalf("a clone's storage is %T, not the wrapper", got)
	}
}

// recordingStorage is a storage of the user's: an InMemoryStorage that
// counts the marks it is asked to record.
type recordingStorage struct {
	storage.InMemoryStorage
	mu      sync.Mutex
	visited int
}

func (s *recordingStorage) Visited(id uint64) error {
	s.mu.Lock()
	s.visited++
	s.mu.Unlock()
	return s.InMemoryStorage.Visited(id)
}

// TestNofollowLinkStaysReachable: /nf says nofollow and links to /x and
// /ok, both refused as its links. /ok is then found on /a, which allows
// following, and /x is visited by the user: each is fetched, once. It
// holds with Colly's storage and with one the user set before Apply, Async
// or not.
func TestNofollowLinkStaysReachable(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	for _, tc := range []struct {
		name  string
		async bool
		store *recordingStorage
	}{
		{"colly's storage", false, nil},
		{"colly's storage, async", true, nil},
		{"the user's storage", true, &recordingStorage{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newDirSite(t, map[string]dirPage{
				"/nf": {headers: []string{"nofollow"}, links: `<a href="/x">x</a> <a href="/ok">ok</a>`},
				"/a":  {links: `<a href="/ok">ok</a>`},
				"/b":  {links: `<a href="/ok">ok</a> <a href="/x">x</a>`},
			})
			c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; DemoBot/1.0)"), colly.Async(tc.async))
			if tc.store != nil {
				if err := c.SetStorage(tc.store); err != nil {
					t.Fatal(err)
				}
			}
			ext := Apply(c, WithDefaultDelay(0), quiet())
			var blocked blockLog
			ext.OnBlocked(blocked.record)
			c.OnHTML("a[href]", func(e *colly.HTMLElement) { _ = e.Request.Visit(e.Attr("href")) })

			if err := c.Visit(s.URL + "/nf"); err != nil {
				t.Fatal(err)
			}
			c.Wait()
			if visited, _ := c.HasVisited(s.URL + "/ok"); visited {
				t.Error("HasVisited(/ok) after its refusal: the collector still holds the mark")
			}
			if err := c.Visit(s.URL + "/a"); err != nil {
				t.Fatal(err)
			}
			c.Wait()
			if err := c.Visit(s.URL + "/x"); err != nil {
				t.Errorf("the user's Visit of /x: %v", err)
			}
			c.Wait()
			// Found again, on a page that allows following: already
			// fetched, not again.
			if err := c.Visit(s.URL + "/b"); err != nil {
				t.Fatal(err)
			}
			c.Wait()

			if got, want := slices.Sorted(slices.Values(s.fetched())), []string{"/a", "/b", "/nf", "/ok", "/x"}; !slices.Equal(got, want) {
				t.Errorf("fetched %v, want %v (each once)", got, want)
			}
			if urls, vs := blocked.get(); len(urls) != 2 || vs[0].Reason != ReasonNofollow || vs[1].Reason != ReasonNofollow {
				t.Errorf("refused %v %+v, want /x and /ok as links of /nf", urls, vs)
			}
			if tc.store != nil {
				tc.store.mu.Lock()
				n := tc.store.visited
				tc.store.mu.Unlock()
				if n < 5 {
					t.Errorf("the user's storage recorded %d visits, want every one", n)
				}
			}
		})
	}
}

// TestNofollowRefusedTwice: a nofollow page's link refused, then found on
// another nofollow page, is refused again and still reachable afterwards.
func TestNofollowRefusedTwice(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	s := newDirSite(t, map[string]dirPage{
		"/nf1": {headers: []string{"nofollow"}, links: `<a href="/x">x</a>`},
		"/nf2": {head: `<meta name="robots" content="nofollow">`, links: `<a href="/x">x</a>`},
	})
	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; DemoBot/1.0)"))
	ext := Apply(c, WithDefaultDelay(0), quiet())
	var blocked blockLog
	ext.OnBlocked(blocked.record)
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { _ = e.Request.Visit(e.Attr("href")) })
	for _, p := range []string{"/nf1", "/nf2", "/x", "/x"} {
		_ = c.Visit(s.URL + p)
	}
	if got, want := s.fetched(), []string{"/nf1", "/nf2", "/x"}; !slices.Equal(got, want) {
		t.Errorf("fetched %v, want %v", got, want)
	}
	if urls, _ := blocked.get(); !slices.Equal(urls, []string{"GET /x", "GET /x"}) {
		t.Errorf("refused %v", urls)
	}
}

// TestNofollowStorageSetAfterApply: a storage set after Apply replaces the
// wrapper. A refused link then stays marked in it, as without robotsext,
// and the Extension says so once.
func TestNofollowStorageSetAfterApply(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	s := newDirSite(t, map[string]dirPage{
		"/nf": {headers: []string{"nofollow"}, links: `<a href="/x">x</a> <a href="/y">y</a>`},
	})
	var logs bytes.Buffer
	var mu sync.Mutex
	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; DemoBot/1.0; +https://example.com/bot)"))
	Apply(c, WithDefaultDelay(0), WithLogger(slog.New(slog.NewTextHandler(&lockedWriter{mu: &mu, w: &logs}, nil))))
	if err := c.SetStorage(&storage.InMemoryStorage{}); err != nil {
		t.Fatal(err)
	}
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { _ = e.Request.Visit(e.Attr("href")) })
	_ = c.Visit(s.URL + "/nf")
	_ = c.Visit(s.URL + "/x")
	if got := s.fetched(); !slices.Equal(got, []string{"/nf"}) {
		t.Errorf("fetched %v: /x was not marked", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(logs.String(), "storage was replaced"); n != 1 {
		t.Errorf("%d warnings, want 1:\n%s", n, logs.String())
	}
}

// lockedWriter serialises writes to w.
type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestVisitKey: the key the Extension forgets is the one Colly stored, for
// URLs Colly normalises and for a POST body.
func TestVisitKey(t *testing.T) {
	t.Parallel()
	c := colly.NewCollector()
	e := Apply(c, quiet())
	w := e.visits[c]
	for _, raw := range []string{"http://a.example/p?q=1", "http://A.example:80/caf%C3%A9/../x", "http://a.example"} {
		u, err := e.parseAsColly(raw)
		if err != nil {
			t.Fatal(err)
		}
		id, ok := e.visitKey(&colly.Request{URL: u, Method: "GET"})
		if !ok {
			t.Fatalf("%s: no key", raw)
		}
		if err := w.Storage.Visited(id); err != nil {
			t.Fatal(err)
		}
		if visited, _ := c.HasVisited(raw); !visited {
			t.Errorf("%s: the key is not Colly's", raw)
		}
	}
	u, _ := url.Parse("http://a.example/form")
	body := strings.NewReader("a=1&b=2")
	id, ok := e.visitKey(&colly.Request{URL: u, Method: "POST", Body: body})
	if !ok {
		t.Fatal("POST: no key")
	}
	if body.Len() != len("a=1&b=2") {
		t.Error("the body was consumed")
	}
	_ = w.Storage.Visited(id)
	if posted, _ := c.HasPosted("http://a.example/form", map[string]string{"a": "1", "b": "2"}); !posted {
		t.Error("POST: the key is not Colly's")
	}
	if _, ok := e.visitKey(&colly.Request{URL: u, Method: "HEAD"}); ok {
		t.Error("HEAD: Colly stores no key, yet one was made")
	}
}

// TestVisitStoreBound: a mark forgotten is not visited until it is
// visited again (the bound is internal/marks' TestForgottenBound), and
// the wrapper costs nothing while nothing is forgotten.
func TestVisitStoreBound(t *testing.T) {
	inner := &storage.InMemoryStorage{}
	if err := inner.Init(); err != nil {
		t.Fatal(err)
	}
	s := &visitStore{Storage: inner}
	_ = s.Visited(7)
	s.forgotten.Forget(7)
	if v, _ := s.IsVisited(7); v {
		t.Error("the forgotten mark is visited")
	}
	if v, _ := s.IsVisited(7); v {
		t.Error("IsVisited alone remembered the mark")
	}
	_ = s.Visited(7)
	if v, _ := s.IsVisited(7); !v {
		t.Error("a mark visited again is still forgotten")
	}
	fresh := &visitStore{Storage: inner}
	if n := testing.AllocsPerRun(100, func() { _, _ = fresh.IsVisited(1); _ = fresh.Visited(1) }); n != 0 {
		t.Errorf("%v allocations with nothing forgotten", n)
	}
}
