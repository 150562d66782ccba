package robotsext

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
)

// dirPage is one page of a directives test site: its X-Robots-Tag
// headers, its head and the links of its body.
type dirPage struct {
	headers []string // X-Robots-Tag values
	head    string
	links   string // HTML of the body
	status  func(n int) int
}

// dirSite serves pages by path (robots.txt answers 404: everything is
// allowed) and records the paths fetched, in order.
type dirSite struct {
	*httptest.Server
	mu    sync.Mutex
	hits  []string
	count map[string]int
}

func newDirSite(t *testing.T, pages map[string]dirPage) *dirSite {
	t.Helper()
	s := &dirSite{count: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		s.mu.Lock()
		s.hits = append(s.hits, r.URL.Path)
		s.count[r.URL.Path]++
		n := s.count[r.URL.Path]
		s.mu.Unlock()
		p, ok := pages[r.URL.Path]
		for _, h := range p.headers {
			w.Header().Add("X-Robots-Tag", h)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if p.status != nil {
			w.WriteHeader(p.status(n))
		}
		if !ok {
			fmt.Fprint(w, "<html><head><title>leaf</title></head><body>leaf</body></html>")
			return
		}
		fmt.Fprintf(w, "<!DOCTYPE html><html><head><title>%s</title>%s</head><body>%s</body></html>", r.URL.Path, p.head, p.links)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *dirSite) fetched() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.hits)
}

// dirCrawl is the outcome of one crawl of a directives test site.
type dirCrawl struct {
	ext         *Extension
	fetched     []string
	blocked     []Verdict
	blockedURLs []string
	pages       map[string]Directives // Page(resp).Directives by path, from OnResponse
	err         error                 // Visit's
}

// crawlDirs crawls start on s as DemoBot, following links the usual way
// (OnHTML "a[href]" → e.Request.Visit), and returns what happened.
func crawlDirs(t *testing.T, s *dirSite, start string, setup func(c *colly.Collector, ext *Extension), opts ...Option) *dirCrawl {
	t.Helper()
	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; DemoBot/1.0)"))
	ext := Apply(c, append([]Option{quiet(), WithDefaultDelay(0)}, opts...)...) // the subject is page directives, not the pace
	out := &dirCrawl{ext: ext, pages: map[string]Directives{}}
	var mu sync.Mutex
	ext.OnBlocked(func(r *colly.Request, v Verdict) {
		mu.Lock()
		defer mu.Unlock()
		out.blocked = append(out.blocked, v)
		out.blockedURLs = append(out.blockedURLs, r.URL.Path)
	})
	c.OnResponse(func(r *colly.Response) {
		mu.Lock()
		defer mu.Unlock()
		out.pages[r.Request.URL.Path] = ext.Page(r).Directives
	})
	if setup != nil {
		setup(c, ext)
	}
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { _ = e.Request.Visit(e.Attr("href")) })
	out.err = c.Visit(s.URL + start) // a synchronous crawl returns the first page's error
	c.Wait()
	out.fetched = s.fetched()
	return out
}

// TestPageDirectivesCrawl crawls one page per directive form through Colly
// and checks which of its links were fetched and what Page reported.
func TestPageDirectivesCrawl(t *testing.T) {
	t.Parallel()
	child := `<a href="/child">child</a>`
	tests := []struct {
		name     string
		page     dirPage
		followed bool   // /child was fetched
		rule     string // Verdict.Rule when refused
		check    func(d Directives) bool
	}{
		{"X-Robots-Tag nofollow", dirPage{headers: []string{"nofollow"}, links: child}, false, "X-Robots-Tag: nofollow",
			func(d Directives) bool { return d.NoFollow && d.From(DirectiveNoFollow) == FromXRobotsTag }},
		{"X-Robots-Tag none", dirPage{headers: []string{"none"}, links: child}, false, "X-Robots-Tag: none",
			func(d Directives) bool { return d.NoFollow && d.NoIndex }},
		{"X-Robots-Tag demobot: nofollow", dirPage{headers: []string{"demobot: nofollow"}, links: child}, false, "X-Robots-Tag: demobot: nofollow",
			func(d Directives) bool { return d.NoFollow }},
		{"X-Robots-Tag otherbot: nofollow", dirPage{headers: []string{"otherbot: nofollow"}, links: child}, true, "",
			func(d Directives) bool { return d.IsZero() }},
		{"several X-Robots-Tag headers", dirPage{headers: []string{"noarchive", "DemoBot: noindex", "otherbot: nofollow"}, links: child}, true, "",
			func(d Directives) bool { return d.NoArchive && d.NoIndex && !d.NoFollow }},
		{"several headers, one nofollow", dirPage{headers: []string{"noarchive", "otherbot: noindex", "demobot: nofollow"}, links: child}, false, "X-Robots-Tag: demobot: nofollow",
			func(d Directives) bool { return d.NoArchive && !d.NoIndex && d.NoFollow }},
		{`meta robots "noindex, nofollow"`, dirPage{head: `<meta name="robots" content="noindex, nofollow">`, links: child}, false, "meta robots: nofollow",
			func(d Directives) bool { return d.NoIndex && d.NoFollow && d.From(DirectiveNoFollow) == FromMeta }},
		{"meta demobot nofollow", dirPage{head: `<meta name="DemoBot" content="nofollow">`, links: child}, false, "meta demobot: nofollow",
			func(d Directives) bool { return d.NoFollow }},
		{"meta otherbot nofollow", dirPage{head: `<meta name="otherbot" content="nofollow">`, links: child}, true, "",
			func(d Directives) bool { return d.IsZero() }},
		{"meta robots none", dirPage{head: `<meta name="robots" content="none">`, links: child}, false, "meta robots: none",
			func(d Directives) bool { return d.NoFollow && d.NoIndex }},
		{"look-alikes", dirPage{headers: []string{"max-snippet: 50"}, head: `<meta name="robots" content="nofollowing, no-follow">`, links: child}, true, "",
			func(d Directives) bool { return !d.NoFollow && d.MaxSnippet == Limit{Set: true, N: 50} }},
		{"meta in the body", dirPage{links: `<meta name="robots" content="nofollow">` + child}, true, "",
			func(d Directives) bool { return d.IsZero() }},
		{"unavailable_after RFC 850", dirPage{headers: []string{"unavailable_after: Wednesday, 03-Nov-2027 15:00:00 GMT, noarchive"}, links: child}, true, "",
			func(d Directives) bool {
				return d.NoArchive && d.UnavailableAfter.Equal(time.Date(2027, 11, 3, 15, 0, 0, 0, time.UTC))
			}},
		{"unavailable_after RFC 822 in meta", dirPage{head: `<meta name="robots" content="unavailable_after: 25 Jun 2027 15:00:00 PST">`, links: child}, true, "",
			func(d Directives) bool {
				return d.UnavailableAfter.Equal(time.Date(2027, 6, 25, 23, 0, 0, 0, time.UTC))
			}},
		{"unavailable_after ISO 8601", dirPage{headers: []string{"demobot: unavailable_after: 2027-11-03T15:00:00+01:00"}, links: child}, true, "",
			func(d Directives) bool {
				return d.UnavailableAfter.Equal(time.Date(2027, 11, 3, 14, 0, 0, 0, time.UTC))
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newDirSite(t, map[string]dirPage{"/page": tt.page})
			cr := crawlDirs(t, s, "/page", nil)
			if cr.err != nil {
				t.Fatalf("Visit: %v", cr.err)
			}
			if got := slices.Contains(cr.fetched, "/child"); got != tt.followed {
				t.Errorf("child fetched = %v, want %v (fetched %v)", got, tt.followed, cr.fetched)
			}
			if d := cr.pages["/page"]; !tt.check(d) {
				t.Errorf("Page(/page).Directives = %+v: not as expected", d)
			}
			st := cr.ext.Stats()
			if tt.followed {
				if len(cr.blocked) != 0 {
					t.Errorf("OnBlocked called: %+v", cr.blocked)
				}
				return
			}
			if len(cr.blocked) != 1 {
				t.Fatalf("OnBlocked called %d times, want 1: %+v", len(cr.blocked), cr.blocked)
			}
			v := cr.blocked[0]
			if v.Allowed || v.Reason != ReasonNofollow || v.Rule != tt.rule || v.Page != s.URL+"/page" || cr.blockedURLs[0] != "/child" {
				t.Errorf("Verdict = %+v for %s, want ReasonNofollow, rule %q, page %s/page", v, cr.blockedURLs[0], tt.rule, s.URL)
			}
			if st.LinksRefused != 1 || st.Blocked[ReasonNofollow] != 1 || st.DirectivePages != 1 {
				t.Errorf("Stats: LinksRefused %d, Blocked[nofollow] %d, DirectivePages %d; want 1, 1, 1",
					st.LinksRefused, st.Blocked[ReasonNofollow], st.DirectivePages)
			}
		})
	}
}

// TestNofollowSiblings: a nofollow page shares its Context with its
// siblings (Colly passes the parent's to every link); its mark must not
// silence them, and the values of the Context stay readable. Run
// synchronously (the nofollow sibling is done before the next starts) and
// with Async.
func TestNofollowSiblings(t *testing.T) {
	t.Parallel()
	for _, async := range []bool{false, true} {
		t.Run(fmt.Sprint("async=", async), func(t *testing.T) {
			t.Parallel()
			s := newDirSite(t, map[string]dirPage{
				"/":   {links: `<a href="/p1">1</a><a href="/p2">2</a><a href="/p3">3</a>`},
				"/p1": {links: `<a href="/c1">c1</a>`},
				"/p2": {headers: []string{"nofollow"}, links: `<a href="/c2">c2</a>`},
				"/p3": {links: `<a href="/c3">c3</a>`},
			})
			var mu sync.Mutex
			var got []string
			cr := crawlDirs(t, s, "/", func(c *colly.Collector, ext *Extension) {
				c.Async = async
				c.OnRequest(func(r *colly.Request) {
					if r.URL.Path == "/" {
						r.Ctx.Put("from", "root")
					}
				})
				c.OnHTML("title", func(e *colly.HTMLElement) {
					mu.Lock()
					defer mu.Unlock()
					got = append(got, e.Request.URL.Path+"="+e.Request.Ctx.Get("from"))
				})
			})
			if cr.err != nil {
				t.Fatalf("Visit: %v", cr.err)
			}
			fetched := slices.Sorted(slices.Values(cr.fetched))
			want := []string{"/", "/c1", "/c3", "/p1", "/p2", "/p3"}
			if !slices.Equal(fetched, want) {
				t.Errorf("fetched %v, want %v", fetched, want)
			}
			if len(cr.blockedURLs) != 1 || cr.blockedURLs[0] != "/c2" {
				t.Errorf("blocked %v, want [/c2]", cr.blockedURLs)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(got) != 6 {
				t.Errorf("titles seen %v, want 6", got)
			}
			for _, g := range got {
				if !strings.HasSuffix(g, "=root") {
					t.Errorf("Context value lost: %v", got)
				}
			}
		})
	}
}

// TestNofollowPageRetries: a nofollow page's own retries, from OnError
// (the first answer failed) and from OnScraped (after it was marked), are
// fetched; its links are refused each time. The first answer, a 503,
// pauses the host, and the retry from OnError waits for the pause: the
// subject is the page directives, not the back-off, so the pause is
// 100 ms (WithBackoffBase) instead of DefaultBackoffBase's 5 s.
func TestNofollowPageRetries(t *testing.T) {
	t.Parallel()
	s := newDirSite(t, map[string]dirPage{
		"/flaky": {headers: []string{"nofollow"}, links: `<a href="/c1">c</a>`, status: func(n int) int {
			if n == 1 {
				return http.StatusServiceUnavailable
			}
			return http.StatusOK
		}},
		"/again": {headers: []string{"nofollow"}, links: `<a href="/c2">c</a>`},
	})
	for _, start := range []string{"/flaky", "/again"} {
		t.Run(start, func(t *testing.T) {
			var retried atomic.Bool // sync.Once would deadlock: a synchronous Retry runs the callbacks again inside it
			cr := crawlDirs(t, s, start, func(c *colly.Collector, ext *Extension) {
				c.OnError(func(r *colly.Response, err error) {
					if retried.CompareAndSwap(false, true) {
						_ = r.Request.Retry()
					}
				})
				c.OnScraped(func(r *colly.Response) {
					if r.Request.URL.Path == "/again" {
						if retried.CompareAndSwap(false, true) {
							_ = r.Request.Retry()
						}
					}
				})
			}, WithBackoffBase(100*time.Millisecond))
			if cr.err != nil && start != "/flaky" {
				t.Errorf("Visit: %v", cr.err)
			}
			n := 0
			for _, p := range cr.fetched {
				if p == start {
					n++
				}
				if p == "/c1" || p == "/c2" {
					t.Errorf("link %s of the nofollow page fetched", p)
				}
			}
			if n != 2 {
				t.Errorf("%s fetched %d times, want 2 (fetched %v)", start, n, cr.fetched)
			}
			for i, u := range cr.blockedURLs {
				if u == start {
					t.Errorf("the page's own retry was refused: %+v", cr.blocked[i])
				}
			}
			if len(cr.blockedURLs) == 0 {
				t.Errorf("the page's link was not refused")
			}
		})
	}
}

// TestNofollowOptions: shadow mode reports without refusing, WithOverride
// hosts are exempt, WithNofollow(false) turns the refusal off.
func TestNofollowOptions(t *testing.T) {
	t.Parallel()
	pages := map[string]dirPage{"/page": {head: `<meta name="robots" content="nofollow">`, links: `<a href="/child">c</a>`}}
	tests := []struct {
		name        string
		opts        func(s *dirSite) []Option
		fetched     bool
		reported    int
		shadowed    uint64
		refusedStat uint64
	}{
		{"default", func(*dirSite) []Option { return nil }, false, 1, 0, 1},
		{"shadow", func(*dirSite) []Option { return []Option{WithShadowMode()} }, true, 1, 1, 1},
		{"override", func(s *dirSite) []Option { return []Option{WithOverride(s.Listener.Addr().String())} }, true, 0, 0, 0},
		{"off", func(*dirSite) []Option { return []Option{WithNofollow(false)} }, true, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newDirSite(t, pages)
			cr := crawlDirs(t, s, "/page", nil, tt.opts(s)...)
			if got := slices.Contains(cr.fetched, "/child"); got != tt.fetched {
				t.Errorf("child fetched = %v, want %v", got, tt.fetched)
			}
			st := cr.ext.Stats()
			if len(cr.blocked) != tt.reported || st.Shadowed != tt.shadowed || st.LinksRefused != tt.refusedStat {
				t.Errorf("reported %d, Shadowed %d, LinksRefused %d; want %d, %d, %d",
					len(cr.blocked), st.Shadowed, st.LinksRefused, tt.reported, tt.shadowed, tt.refusedStat)
			}
			if st.DirectivePages != 1 {
				t.Errorf("DirectivePages = %d, want 1", st.DirectivePages)
			}
			if !cr.pages["/page"].NoFollow {
				t.Errorf("Page does not report nofollow")
			}
		})
	}
}

// TestRelNofollow: with WithRelNofollow a link marked only rel="nofollow"
// is refused; one also linked without it is followed; without the option
// all are followed.
func TestRelNofollow(t *testing.T) {
	t.Parallel()
	pages := map[string]dirPage{"/page": {links: `<a rel="nofollow" href="/r1">1</a><a href="/r2">2</a>` +
		`<a rel="Nofollow ugc" href="r3">3</a><a href="/r3">3 again</a><a rel="external nofollow" href="/r4#top">4</a>`}}
	for _, on := range []bool{false, true} {
		t.Run(fmt.Sprint("option=", on), func(t *testing.T) {
			t.Parallel()
			s := newDirSite(t, pages)
			var opts []Option
			if on {
				opts = append(opts, WithRelNofollow())
			}
			cr := crawlDirs(t, s, "/page", nil, opts...)
			for _, p := range []string{"/r1", "/r2", "/r3", "/r4"} {
				want := !on || p == "/r2" || p == "/r3"
				if got := slices.Contains(cr.fetched, p); got != want {
					t.Errorf("%s fetched = %v, want %v (fetched %v)", p, got, want, cr.fetched)
				}
			}
			if on {
				if len(cr.blocked) != 2 || cr.blocked[0].Reason != ReasonRelNofollow || cr.blocked[0].Page != s.URL+"/page" {
					t.Errorf("blocked %v: %+v, want /r1 and /r4 with ReasonRelNofollow", cr.blockedURLs, cr.blocked)
				}
			}
		})
	}
}

// TestPageFromCallbacks: Page answers the same from OnResponse, OnHTML
// (e.Response) and OnScraped, on a page the Extension marked and on one it
// did not; Page(nil) is the zero Page.
func TestPageFromCallbacks(t *testing.T) {
	t.Parallel()
	s := newDirSite(t, map[string]dirPage{
		"/":   {head: `<meta name="robots" content="noarchive">`, links: `<a href="/nf">nf</a>`},
		"/nf": {headers: []string{"noindex"}, head: `<meta name="demobot" content="nofollow">`},
	})
	var mu sync.Mutex
	seen := map[string][]string{}
	record := func(where string, ext *Extension, r *colly.Response) {
		p := ext.Page(r)
		mu.Lock()
		defer mu.Unlock()
		seen[p.URL.Path] = append(seen[p.URL.Path], where+":"+p.Directives.String())
	}
	cr := crawlDirs(t, s, "/", func(c *colly.Collector, ext *Extension) {
		c.OnResponse(func(r *colly.Response) { record("response", ext, r) })
		c.OnHTML("title", func(e *colly.HTMLElement) { record("html", ext, e.Response) })
		c.OnScraped(func(r *colly.Response) { record("scraped", ext, r) })
	})
	if cr.err != nil {
		t.Fatal(cr.err)
	}
	want := map[string][]string{
		"/":   {"response:noarchive", "html:noarchive", "scraped:noarchive"},
		"/nf": {"response:noindex, nofollow", "html:noindex, nofollow", "scraped:noindex, nofollow"},
	}
	for path, w := range want {
		if !slices.Equal(seen[path], w) {
			t.Errorf("%s: %v, want %v", path, seen[path], w)
		}
	}
	if p := cr.ext.Page(nil); p.URL != nil || !p.Directives.IsZero() {
		t.Errorf("Page(nil) = %+v", p)
	}
}
