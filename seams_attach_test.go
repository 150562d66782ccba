package robotsext

// The seams of Attach with the Colly features that make more collectors
// or change one after Apply: a Clone before or after Apply, SetStorage
// before or after, a User-Agent changed after Apply. Each row crawls a
// real httptest server and asserts at the server and at the callbacks.

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gocolly/colly/v2"
	"github.com/gocolly/colly/v2/storage"
)

// seamSite serves /nf, a page that says nofollow and links to /t1, and
// plain pages elsewhere; robots.txt is 404. It counts every request by
// path and User-Agent.
type seamSite struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int // path → requests
	uas  []string       // User-Agent of each page request, in order
}

func newSeamSite(t *testing.T) *seamSite {
	t.Helper()
	s := &seamSite{hits: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		s.hits[r.URL.Path]++
		s.uas = append(s.uas, r.UserAgent())
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		if r.URL.Path == "/nf" {
			w.Header().Set("X-Robots-Tag", "nofollow")
			fmt.Fprint(w, `<html><body><a href="/t1">t1</a></body></html>`)
			return
		}
		fmt.Fprint(w, `<html><body>plain</body></html>`)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *seamSite) count(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hits[path]
}

func (s *seamSite) userAgents() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.uas...)
}

// seamLog keeps the Warn and Info records of one Extension, as text.
type seamLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *seamLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *seamLog) logger(level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: level}))
}

// count returns how many records hold sub.
func (l *seamLog) count(sub string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.buf.String(), sub)
}

func (l *seamLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// funcStorage is a user's storage of a type Go cannot compare (it holds
// a slice), used by value.
type funcStorage struct {
	*storage.InMemoryStorage
	hook []func()
}

const seamUA = "Mozilla/5.0 (compatible; SeamBot/1.0; +https://seam.example/bot)"

// TestSeamsAttach: the collector named crawler visits /nf, whose link
// /t1 it refuses (nofollow); then the collector named visitor visits
// /t1. However the second collector was made, /t1 is fetched once when
// the arrangement lets the Extension keep it reachable, and otherwise
// stays marked with one Warn saying so.
func TestSeamsAttach(t *testing.T) {
	t.Parallel()
	type pair struct {
		ext          *Extension
		c, detail    *colly.Collector
		crawler, vis *colly.Collector
	}
	const collyUA = "colly - https://github.com/gocolly/colly"
	newC := func() *colly.Collector { return colly.NewCollector(colly.UserAgent(seamUA)) }
	opts := func(l *seamLog) []Option {
		return []Option{WithDefaultDelay(0), WithLogger(l.logger(slog.LevelWarn))} // the subject is not the pace
	}
	setStorage := func(t *testing.T, c *colly.Collector) {
		if err := c.SetStorage(&storage.InMemoryStorage{}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name      string
		arrange   func(t *testing.T, l *seamLog) pair
		reachable bool // the visitor fetches /t1
		warned    bool // one Warn says the link may stay marked

		// Rows of the identity judged on what is sent (arrange nil): the
		// collector's User-Agent at Apply, the one set after Apply, and
		// the identity warnings due.
		uaAtApply, uaAfter string
		contact, deflt     int
	}{
		{name: "Clone before Apply", arrange: func(t *testing.T, l *seamLog) pair {
			c := newC()
			d := c.Clone()
			ext := Apply(c, opts(l)...)
			ext.Attach(d)
			return pair{ext: ext, c: c, detail: d, crawler: c, vis: d}
		}, reachable: true, warned: false},
		{name: "Clone before Apply, the clone attached first", arrange: func(t *testing.T, l *seamLog) pair {
			c := newC()
			d := c.Clone()
			ext := Apply(d, opts(l)...)
			ext.Attach(c)
			return pair{ext: ext, c: d, detail: c, crawler: c, vis: d}
		}, reachable: true, warned: false},
		{name: "Clone after Apply", arrange: func(t *testing.T, l *seamLog) pair {
			c := newC()
			ext := Apply(c, opts(l)...)
			d := c.Clone()
			ext.Attach(d)
			return pair{ext: ext, c: c, detail: d, crawler: c, vis: d}
		}, reachable: true, warned: false},
		{name: "Clone after Apply, the clone refuses", arrange: func(t *testing.T, l *seamLog) pair {
			c := newC()
			ext := Apply(c, opts(l)...)
			d := c.Clone()
			ext.Attach(d)
			return pair{ext: ext, c: c, detail: d, crawler: d, vis: c}
		}, reachable: true, warned: false},
		{name: "SetStorage before Apply, then Clone", arrange: func(t *testing.T, l *seamLog) pair {
			c := newC()
			setStorage(t, c)
			ext := Apply(c, opts(l)...)
			d := c.Clone()
			ext.Attach(d)
			return pair{ext: ext, c: c, detail: d, crawler: c, vis: d}
		}, reachable: true, warned: false},
		{name: "a clone with its own storage, set before Attach", arrange: func(t *testing.T, l *seamLog) pair {
			c := newC()
			ext := Apply(c, opts(l)...)
			d := c.Clone()
			setStorage(t, d)
			ext.Attach(d)
			return pair{ext: ext, c: c, detail: d, crawler: d, vis: d}
		}, reachable: true, warned: false},
		{name: "SetStorage after Apply", arrange: func(t *testing.T, l *seamLog) pair {
			c := newC()
			ext := Apply(c, opts(l)...)
			setStorage(t, c)
			return pair{ext: ext, c: c, crawler: c, vis: c}
		}, reachable: false, warned: true},
		{name: "SetStorage after Attach, on the clone", arrange: func(t *testing.T, l *seamLog) pair {
			c := newC()
			ext := Apply(c, opts(l)...)
			d := c.Clone()
			ext.Attach(d)
			setStorage(t, d)
			return pair{ext: ext, c: c, detail: d, crawler: d, vis: d}
		}, reachable: false, warned: true},
		{name: "Clone before Apply, a storage Go cannot compare", arrange: func(t *testing.T, l *seamLog) pair {
			c := newC()
			if err := c.SetStorage(funcStorage{InMemoryStorage: &storage.InMemoryStorage{}, hook: []func(){}}); err != nil {
				t.Fatal(err)
			}
			d := c.Clone()
			ext := Apply(c, opts(l)...)
			ext.Attach(d)
			return pair{ext: ext, c: c, detail: d, crawler: c, vis: d}
		}, reachable: false, warned: true},
		// A User-Agent changed after Apply is judged as sent.
		{name: "identity fixed after Apply", uaAtApply: collyUA, uaAfter: seamUA},
		{name: "identity set to Colly's default after Apply", uaAtApply: seamUA, uaAfter: collyUA, deflt: 1},
		{name: "identity without contact after Apply", uaAtApply: seamUA, uaAfter: "SeamBot/1.1", contact: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSeamSite(t)
			var l seamLog
			if tt.arrange == nil {
				c := colly.NewCollector(colly.UserAgent(tt.uaAtApply))
				Apply(c, WithDefaultDelay(0), WithLogger(l.logger(slog.LevelWarn)))
				c.UserAgent = tt.uaAfter
				for _, p := range []string{"/a", "/b"} {
					if err := c.Visit(s.URL + p); err != nil {
						t.Fatal(err)
					}
				}
				if got := s.userAgents(); len(got) != 2 || got[0] != tt.uaAfter || got[1] != tt.uaAfter {
					t.Errorf("the server saw User-Agents %q, want %q twice", got, tt.uaAfter)
				}
				if n := l.count("carries no contact"); n != tt.contact {
					t.Errorf("%d contact warnings, want %d:\n%s", n, tt.contact, l.String())
				}
				if n := l.count("framework's default"); n != tt.deflt {
					t.Errorf("%d default-token warnings, want %d:\n%s", n, tt.deflt, l.String())
				}
				if strings.Contains(l.String(), tt.uaAtApply) && tt.uaAtApply != tt.uaAfter {
					t.Errorf("the User-Agent of Apply, never sent, was judged:\n%s", l.String())
				}
				return
			}
			p := tt.arrange(t, &l)
			var blocked blockLog
			p.ext.OnBlocked(blocked.record)
			p.crawler.OnHTML("a[href]", func(e *colly.HTMLElement) { _ = e.Request.Visit(e.Attr("href")) })

			if err := p.crawler.Visit(s.URL + "/nf"); err != nil {
				t.Fatal(err)
			}
			if urls, vs := blocked.get(); len(urls) != 1 || urls[0] != "GET /t1" || vs[0].Reason != ReasonNofollow {
				t.Fatalf("OnBlocked saw %v %+v, want /t1 refused as a link of /nf", urls, vs)
			}
			err := p.vis.Visit(s.URL + "/t1")
			var av *colly.AlreadyVisitedError
			if tt.reachable {
				if err != nil {
					t.Errorf("the visitor's Visit(/t1): %v, want it fetched", err)
				}
				// Fetched now, it is marked as Colly marks it: not twice.
				if err := p.crawler.Visit(s.URL + "/t1"); !errors.As(err, &av) {
					t.Errorf("a second Visit(/t1): %v, want already visited", err)
				}
			} else if !errors.As(err, &av) {
				t.Errorf("the visitor's Visit(/t1): %v, want already visited", err)
			}
			if got, want := s.count("/t1"), map[bool]int{true: 1}[tt.reachable]; got != want {
				t.Errorf("the server saw /t1 %d times, want %d", got, want)
			}
			if got := s.count("/nf"); got != 1 {
				t.Errorf("the server saw /nf %d times", got)
			}
			if got, want := l.count("may stay marked visited"), map[bool]int{true: 1}[tt.warned]; got != want {
				t.Errorf("%d warnings about the storage, want %d:\n%s", got, want, l.String())
			}
		})
	}
}
