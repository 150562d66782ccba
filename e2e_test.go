package robotsext

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/pacing"
)

// End-to-end tests: real Colly collectors against httptest servers on
// loopback, the extension applied as a user would.

// site is a test web server that serves robots.txt from robots and records
// every other request it receives.
type site struct {
	*httptest.Server
	robotsHits atomic.Int32
	mu         sync.Mutex
	hits       []string                    // "METHOD /path?query" of page requests
	robotsUA   []string                    // User-Agent of robots.txt requests
	routes     map[string]http.HandlerFunc // page handlers by path; default: a small HTML page
}

// newSite starts a site whose robots.txt is answered by robots.
func newSite(t *testing.T, robots http.HandlerFunc) *site {
	t.Helper()
	s := &site{routes: map[string]http.HandlerFunc{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve(robots)))
	t.Cleanup(s.Close)
	return s
}

// newSiteOn starts a site on l.
func newSiteOn(t *testing.T, l net.Listener, robots http.HandlerFunc) *site {
	t.Helper()
	s := &site{routes: map[string]http.HandlerFunc{}}
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve(robots)))
	s.Server.Listener.Close()
	s.Server.Listener = l
	s.Start()
	t.Cleanup(s.Close)
	return s
}

func (s *site) serve(robots http.HandlerFunc) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			s.robotsHits.Add(1)
			s.mu.Lock()
			s.robotsUA = append(s.robotsUA, r.UserAgent())
			s.mu.Unlock()
			robots(w, r)
			return
		}
		s.mu.Lock()
		s.hits = append(s.hits, r.Method+" "+r.URL.RequestURI())
		h := s.routes[r.URL.Path]
		s.mu.Unlock()
		if h != nil {
			h(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>ok</body></html>")
	}
}

// route sets the handler of a page path.
func (s *site) route(path string, h http.HandlerFunc) {
	s.mu.Lock()
	s.routes[path] = h
	s.mu.Unlock()
}

// redirectTo makes path redirect to target.
func (s *site) redirectTo(path, target string) {
	s.route(path, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, target, http.StatusFound) })
}

// seen returns the recorded page requests, sorted.
func (s *site) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(slices.Values(s.hits))
}

func (s *site) saw(req string) bool { return slices.Contains(s.seen(), req) }

// robotsTxt serves body as robots.txt.
func robotsTxt(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, body)
	}
}

func statusOnly(code int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(code) }
}

// blockLog collects OnBlocked calls.
type blockLog struct {
	mu   sync.Mutex
	urls []string
	vs   []Verdict
}

func (b *blockLog) record(r *colly.Request, v Verdict) {
	b.mu.Lock()
	b.urls = append(b.urls, r.Method+" "+r.URL.RequestURI())
	b.vs = append(b.vs, v)
	b.mu.Unlock()
}

func (b *blockLog) get() ([]string, []Verdict) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.urls), slices.Clone(b.vs)
}

const e2eRules = "User-agent: testbot\nDisallow: /private\nAllow: /private/ok\n\nUser-agent: *\nDisallow: /\n"

func TestE2EBlockedPathsNeverReachServer(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	s := newSite(t, robotsTxt(e2eRules))
	c := colly.NewCollector(colly.UserAgent("TestBot/1.0 (+https://example.com/bot)"))
	e := Apply(c, WithDefaultDelay(0))
	var blocked blockLog
	e.OnBlocked(blocked.record)

	for _, p := range []string{"/", "/public", "/private", "/private/x", "/private?x=1", "/private/ok", "/private/ok/deeper", "/%70rivate/encoded"} {
		c.Visit(s.URL + p)
	}
	c.Head(s.URL + "/private/head")
	c.Post(s.URL+"/private/post", map[string]string{"a": "b"})
	c.Wait()

	want := []string{"GET /", "GET /%70rivate/encoded", "GET /private/ok", "GET /private/ok/deeper", "GET /public"}
	if got := s.seen(); !slices.Equal(got, want) {
		t.Errorf("server saw %q\nwant %q", got, want)
	}
	urls, vs := blocked.get()
	wantBlocked := []string{"GET /private", "GET /private/x", "GET /private?x=1", "HEAD /private/head", "POST /private/post"}
	if !slices.Equal(urls, wantBlocked) {
		t.Errorf("OnBlocked got %q\nwant %q", urls, wantBlocked)
	}
	for _, v := range vs {
		if v != (Verdict{Allowed: false, Reason: ReasonDisallowRule, Line: 2, Rule: "/private"}) {
			t.Errorf("verdict %+v", v)
		}
	}
	if n := s.robotsHits.Load(); n != 1 {
		t.Errorf("%d robots.txt requests", n)
	}
	if s.robotsUA[0] != c.UserAgent {
		t.Errorf("robots.txt User-Agent %q", s.robotsUA[0])
	}
	st := e.Stats()
	if st.Blocked[ReasonDisallowRule] != 5 || st.Fetches[OutcomeOK] != 1 || st.CacheMisses != 1 || st.CacheHits != 9 {
		t.Errorf("stats %+v", st)
	}
	if !c.IgnoreRobotsTxt {
		t.Errorf("Colly's own robots.txt check left on")
	}
}

func TestE2ERobotsOutsideCollector(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	s := newSite(t, robotsTxt("User-agent: *\nDisallow: /private\n"))
	c := colly.NewCollector(
		colly.MaxRequests(2),
		colly.URLFilters(regexp.MustCompile(`/(a|b|private)$`)), // robots.txt does not pass the filter
	)
	Apply(c, WithDefaultDelay(0))
	var responses, requests []string
	var mu sync.Mutex
	c.OnRequest(func(r *colly.Request) { mu.Lock(); requests = append(requests, r.URL.Path); mu.Unlock() })
	c.OnResponse(func(r *colly.Response) { mu.Lock(); responses = append(responses, r.Request.URL.Path); mu.Unlock() })
	for _, p := range []string{"/a", "/b"} {
		if err := c.Visit(s.URL + p); err != nil {
			t.Errorf("Visit %s: %v", p, err)
		}
	}
	if got := s.seen(); !slices.Equal(got, []string{"GET /a", "GET /b"}) {
		t.Errorf("MaxRequests 2 let through %q", got)
	}
	if !slices.Equal(responses, []string{"/a", "/b"}) || slices.Contains(requests, "/robots.txt") {
		t.Errorf("callbacks saw requests %q responses %q", requests, responses)
	}
	if visited, _ := c.HasVisited(s.URL + "/robots.txt"); visited {
		t.Errorf("robots.txt marked visited in the collector's storage")
	}
	if s.robotsHits.Load() != 1 {
		t.Errorf("robots.txt requests: %d", s.robotsHits.Load())
	}
}

func TestE2EOneRobotsFetchUnderParallelism(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	const pages = 200
	var e *Extension
	ready := make(chan struct{})
	s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
		<-ready
		// Hold the answer until every page request has asked for it, so
		// that they all overlap the one fetch (bounded, in case of a bug).
		for deadline := time.Now().Add(5 * time.Second); e.Stats().CacheMisses < pages && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		robotsTxt("User-agent: *\nDisallow: /p/1\n")(w, r)
	})
	c := colly.NewCollector(colly.Async(true))
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 16}); err != nil {
		t.Fatal(err)
	}
	e = Apply(c, WithDefaultDelay(0))
	close(ready)
	for i := 0; i < pages; i++ {
		c.Visit(fmt.Sprintf("%s/p/%d", s.URL, i))
	}
	c.Wait()
	if n := s.robotsHits.Load(); n != 1 {
		t.Errorf("%d robots.txt requests, want 1", n)
	}
	// /p/1 and /p/10…/p/19 and /p/100…/p/199 are disallowed: 111 blocked.
	if got := len(s.seen()); got != pages-111 {
		t.Errorf("%d pages fetched, want %d", got, pages-111)
	}
	if st := e.Stats(); st.Blocked[ReasonDisallowRule] != 111 || st.Fetches[OutcomeOK] != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestE2EFailModes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		robots http.HandlerFunc
		mode   FailMode
		opts   []Option
		fetch  bool
		reason Reason
	}{
		{"503 fail-closed", statusOnly(503), FailClosed, nil, false, ReasonUnreachable},
		{"503 fail-open", statusOnly(503), FailOpen, nil, true, ReasonUnreachable},
		{"429 fail-closed", statusOnly(429), FailClosed, nil, false, ReasonUnreachable},
		{"404", statusOnly(404), FailClosed, nil, true, ReasonUnavailable},
		{"403", statusOnly(403), FailClosed, nil, true, ReasonUnavailable},
		{"403 disallow-all", statusOnly(403), FailOpen, []Option{WithUnauthorizedDisallowAll()}, false, ReasonUnauthorized},
		{"stall fail-closed", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, FailClosed, []Option{WithTimeout(50 * time.Millisecond)}, false, ReasonUnreachable},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSite(t, tt.robots)
			c := colly.NewCollector()
			e := Apply(c, append(tt.opts, WithFailMode(tt.mode), WithDefaultDelay(0))...) // the outcomes, not the pace
			var blocked blockLog
			e.OnBlocked(blocked.record)
			c.Visit(s.URL + "/page")
			c.Visit(s.URL + "/other")
			if got := len(s.seen()); got != map[bool]int{true: 2, false: 0}[tt.fetch] {
				t.Errorf("server saw %q", s.seen())
			}
			_, vs := blocked.get()
			st := e.Stats()
			if tt.fetch {
				if len(vs) != 0 || st.Allowed[tt.reason] != 2 {
					t.Errorf("blocked %v, stats %+v", vs, st)
				}
			} else if len(vs) != 2 || vs[0].Reason != tt.reason || st.Blocked[tt.reason] != 2 {
				t.Errorf("blocked %v, stats %+v", vs, st)
			}
			// Once, and never again within the back-off. The stalled row's
			// 50 ms can end before a loaded machine runs the handler at all
			// (seen under the race detector beside other test binaries): the
			// request was sent and timed out, which is the row's subject, but
			// the server may not have counted it.
			n := s.robotsHits.Load()
			if n > 1 || n == 0 && !strings.HasPrefix(tt.name, "stall") {
				t.Errorf("robots.txt fetched %d times (backoff not honoured)", n)
			}
		})
	}
}

func TestE2EOverride(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	s := newSite(t, robotsTxt("User-agent: *\nDisallow: /\nSitemap: /relative-ignored\nSitemap: http://example.com/sitemap.xml\n"))
	u, _ := url.Parse(s.URL)
	c := colly.NewCollector()
	e := Apply(c, WithDefaultDelay(0), WithOverride(u.Host))
	c.Visit(s.URL + "/anything")
	c.Visit(s.URL + "/else")
	if got := s.seen(); len(got) != 2 {
		t.Errorf("override: server saw %q", got)
	}
	if st := e.Stats(); st.Overrides != 2 || st.Allowed[ReasonOverride] != 2 || s.robotsHits.Load() != 1 {
		t.Errorf("stats %+v, robots hits %d", st, s.robotsHits.Load())
	}
	if sm, err := e.Sitemaps(s.URL); err != nil || !slices.Equal(sm, []string{"http://example.com/sitemap.xml"}) {
		t.Errorf("Sitemaps %q %v", sm, err)
	}

	// Another port of the same host is not overridden.
	other := newSite(t, robotsTxt("User-agent: *\nDisallow: /\n"))
	c.Visit(other.URL + "/anything")
	if len(other.seen()) != 0 {
		t.Errorf("override leaked to %s", other.URL)
	}
}

func TestE2EShadowMode(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	s := newSite(t, robotsTxt("User-agent: *\nDisallow: /private\n"))
	s.redirectTo("/go", "/private/target")
	c := colly.NewCollector()
	e := Apply(c, WithDefaultDelay(0), WithShadowMode())
	var blocked blockLog
	e.OnBlocked(blocked.record)
	c.Visit(s.URL + "/private/a")
	c.Visit(s.URL + "/go")
	c.Visit(s.URL + "/public")
	want := []string{"GET /go", "GET /private/a", "GET /private/target", "GET /public"}
	if got := s.seen(); !slices.Equal(got, want) {
		t.Errorf("shadow mode: server saw %q, want %q", got, want)
	}
	urls, _ := blocked.get()
	if !slices.Equal(urls, []string{"GET /private/a", "GET /private/target"}) {
		t.Errorf("would-be blocks %q", urls)
	}
	if st := e.Stats(); st.Shadowed != 2 || st.Blocked[ReasonDisallowRule] != 2 || st.RedirectsBlocked != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestE2ERedirectIntoDisallowedPath(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	b := newSite(t, robotsTxt("User-agent: *\nDisallow: /secret\n"))
	a := newSite(t, robotsTxt("User-agent: *\nDisallow: /private\n"))
	a.redirectTo("/go", "/private/target")
	a.redirectTo("/go-ok", "/public")
	a.redirectTo("/go-b", b.URL+"/secret")
	a.redirectTo("/go-b-ok", b.URL+"/open")

	var userHops atomic.Int32
	c := colly.NewCollector()
	e := Apply(c, WithDefaultDelay(0), WithRedirectHandler(func(req *http.Request, via []*http.Request) error {
		userHops.Add(1)
		return nil
	}))
	var blocked blockLog
	e.OnBlocked(blocked.record)
	var errs sync.Map
	c.OnError(func(r *colly.Response, err error) { errs.Store(r.Request.URL.Path, err) })
	for _, p := range []string{"/go", "/go-ok", "/go-b", "/go-b-ok"} {
		c.Visit(a.URL + p)
	}
	if a.saw("GET /private/target") || b.saw("GET /secret") {
		t.Errorf("a disallowed redirect target was fetched: a %q b %q", a.seen(), b.seen())
	}
	if !a.saw("GET /public") || !b.saw("GET /open") {
		t.Errorf("allowed redirect targets not fetched: a %q b %q", a.seen(), b.seen())
	}
	for _, p := range []string{"/go", "/go-b"} {
		err, _ := errs.Load(p)
		var be *BlockedError
		if e, ok := err.(error); !ok || !errors.Is(e, ErrBlocked) || !errors.As(e, &be) || be.Verdict.Reason != ReasonDisallowRule {
			t.Errorf("OnError for %s: %v", p, err)
		}
	}
	urls, _ := blocked.get()
	if !slices.Equal(urls, []string{"GET /private/target", "GET /secret"}) {
		t.Errorf("OnBlocked %q", urls)
	}
	if n := userHops.Load(); n != 2 {
		t.Errorf("the user's redirect handler ran %d times, want 2 (allowed hops only)", n)
	}
	if st := e.Stats(); st.RedirectsBlocked != 2 {
		t.Errorf("stats %+v", st)
	}
}

func TestE2ERobotsRedirectsToSameURL(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	shared := newSite(t, robotsTxt("User-agent: *\nDisallow: /secret\n"))
	redirectRobots := func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, shared.URL+"/robots.txt", http.StatusMovedPermanently)
	}
	a := newSite(t, redirectRobots)
	b := newSite(t, redirectRobots)
	c := colly.NewCollector(colly.Async(true))
	c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 4})
	e := Apply(c, WithDefaultDelay(0))
	for _, s := range []*site{a, b} {
		for _, p := range []string{"/secret", "/secret/x", "/open"} {
			c.Visit(s.URL + p)
		}
	}
	c.Wait()
	for _, s := range []*site{a, b} {
		if got := s.seen(); !slices.Equal(got, []string{"GET /open"}) {
			t.Errorf("%s saw %q", s.URL, got)
		}
		if s.robotsHits.Load() != 1 {
			t.Errorf("%s robots.txt requested %d times", s.URL, s.robotsHits.Load())
		}
	}
	if n := shared.robotsHits.Load(); n != 2 {
		t.Errorf("the shared robots.txt was requested %d times, want once per origin", n)
	}
	if st := e.Stats(); st.Fetches[OutcomeOK] != 2 || st.Origins != 2 {
		t.Errorf("stats %+v", st)
	}
}

func TestE2EIPv6Loopback(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	l, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	s := newSiteOn(t, l, robotsTxt("User-agent: *\nDisallow: /private\n"))
	if !strings.HasPrefix(s.URL, "http://[::1]:") {
		t.Fatalf("unexpected URL %s", s.URL)
	}
	c := colly.NewCollector()
	e := Apply(c, WithDefaultDelay(0))
	c.Visit(s.URL + "/private/x")
	c.Visit(s.URL + "/public")
	if got := s.seen(); !slices.Equal(got, []string{"GET /public"}) {
		t.Errorf("server saw %q", got)
	}
	if v, err := e.Check(s.URL + "/private"); err != nil || v.Allowed {
		t.Errorf("Check: %+v %v", v, err)
	}
	u, _ := url.Parse(s.URL)
	c2 := colly.NewCollector()
	Apply(c2, WithDefaultDelay(0), WithOverride(u.Host))
	c2.Visit(s.URL + "/private/y")
	if !s.saw("GET /private/y") {
		t.Errorf("IPv6 override not applied")
	}
	if s.robotsHits.Load() != 2 {
		t.Errorf("robots.txt requests: %d", s.robotsHits.Load())
	}
}

func TestE2ECancelledContext(t *testing.T) {
	t.Parallel()
	t.Run("before", func(t *testing.T) {
		t.Parallel()
		s := newSite(t, robotsTxt("User-agent: *\nDisallow:\n"))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		c := colly.NewCollector()
		c.Context = ctx
		e := Apply(c)
		var errs atomic.Int32
		c.OnError(func(r *colly.Response, err error) {
			if errors.Is(err, context.Canceled) {
				errs.Add(1)
			}
		})
		c.Visit(s.URL + "/a")
		if len(s.seen()) != 0 || s.robotsHits.Load() != 0 {
			t.Errorf("requests sent under a cancelled context: %q, robots %d", s.seen(), s.robotsHits.Load())
		}
		if errs.Load() != 1 || e.Stats().Cancelled != 1 {
			t.Errorf("OnError context errors %d, stats %+v", errs.Load(), e.Stats())
		}
	})
	t.Run("during robots.txt", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		entered := make(chan struct{}, 1)
		s := newSite(t, func(w http.ResponseWriter, r *http.Request) {
			entered <- struct{}{}
			<-r.Context().Done() // stall until the client gives up
		})
		c := colly.NewCollector(colly.Async(true))
		c.Context = ctx
		Apply(c, WithTimeout(time.Minute))
		for i := 0; i < 20; i++ {
			c.Visit(fmt.Sprintf("%s/p/%d", s.URL, i))
		}
		<-entered
		cancel()
		done := make(chan struct{})
		go func() { c.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("collector hangs after its context was cancelled")
		}
		if len(s.seen()) != 0 {
			t.Errorf("pages fetched: %q", s.seen())
		}
	})
}

func TestE2EMalformedURLsNeverPanic(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	s := newSite(t, robotsTxt("User-agent: *\nDisallow: /private\n"))
	bad := []string{
		"", " ", "http://", "http://[::1", "http://[::1]:99999/", "http://%zz/", "http://a b/", "://x",
		"http:///path", "http:opaque", "mailto:x@example.com", "javascript:alert(1)", "data:text/plain,hi",
		"ftp://example.com/", "http://host:port/", "http://[fe80::1%25en0]:8080/", "//no-scheme/x",
		"http://" + strings.Repeat("a", 300) + ".test/", "http://a.test/" + strings.Repeat("%", 1000),
		"http://\x00/", "http://a.test/\xff\xfe", "HTTP://EXAMPLE.invalid:0/",
	}
	s.route("/links", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>")
		for _, b := range bad {
			fmt.Fprintf(w, "<a href=%q>x</a>", b)
		}
		fmt.Fprint(w, `<a href="/private">p</a><a href="/ok">o</a></body></html>`)
	})
	c := colly.NewCollector(colly.Async(true))
	c.SetRequestTimeout(2 * time.Second)
	e := Apply(c, WithDefaultDelay(0), WithTimeout(time.Second))
	c.OnHTML("a[href]", func(h *colly.HTMLElement) { h.Request.Visit(h.Attr("href")) })
	for _, b := range bad {
		c.Visit(b)
		e.Check(b)
		e.Sitemaps(b)
		(&Robots{}).Verdict("bot", b, FailClosed)
		FetchRobots(context.Background(), b, WithTimeout(time.Second), WithHTTPClient(s.Client()))
	}
	c.Visit(s.URL + "/links")
	c.Wait()
	if s.saw("GET /private") || !s.saw("GET /ok") {
		t.Errorf("server saw %q", s.seen())
	}
}

func TestE2ECrawlDelayReachesPacer(t *testing.T) {
	t.Parallel()
	s := newSite(t, robotsTxt("User-agent: *\nCrawl-delay: 86400\n"))
	u, _ := url.Parse(s.URL)
	e := Apply(colly.NewCollector())
	if _, err := e.Check(s.URL + "/"); err != nil {
		t.Fatal(err)
	}
	if st := e.Stats(); st.CrawlDelaysClamped != 1 {
		t.Errorf("CrawlDelaysClamped %d", st.CrawlDelaysClamped)
	}
	rules := e.LimitRules()
	if len(rules) != 1 || !regexp.MustCompile(rules[0].DomainRegexp).MatchString(u.Host) || rules[0].Delay != pacing.DefaultMaxDelay {
		t.Errorf("LimitRules %+v", rules)
	}
}

// TestE2EAbortBookkeeping pins down how an aborted request looks to the
// collector, where it differs from Colly's built-in check (which fails
// Visit with ErrRobotsTxtBlocked before any bookkeeping): Visit returns nil,
// the URL is marked visited, and the request counts toward MaxRequests.
func TestE2EAbortBookkeeping(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	s := newSite(t, robotsTxt("User-agent: *\nDisallow: /private\n"))
	c := colly.NewCollector(colly.MaxRequests(2))
	Apply(c, WithDefaultDelay(0))
	if err := c.Visit(s.URL + "/private"); err != nil {
		t.Errorf("Visit of a blocked URL: %v", err)
	}
	if visited, _ := c.HasVisited(s.URL + "/private"); !visited {
		t.Errorf("blocked URL not marked visited")
	}
	c.Visit(s.URL + "/a")
	if err := c.Visit(s.URL + "/b"); !errors.Is(err, colly.ErrMaxRequests) {
		t.Errorf("third request: %v, want ErrMaxRequests (the blocked one counted)", err)
	}
	if got := s.seen(); !slices.Equal(got, []string{"GET /a"}) {
		t.Errorf("server saw %q", got)
	}
}

// TestE2EDifferencesFromBuiltin runs the same crawl through Colly's
// built-in check (IgnoreRobotsTxt = false) and through the extension, for
// the points where they differ (see the README's table).
func TestE2EDifferencesFromBuiltin(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	type crawl func(c *colly.Collector, s *site)
	tests := []struct {
		name          string
		robots        string
		status        int // robots.txt status when not 200
		setup         func(s *site)
		run           crawl
		builtin, ours []string // what the server sees
	}{
		{
			name:    "HEAD requests are checked",
			robots:  "User-agent: *\nDisallow: /private\n",
			run:     func(c *colly.Collector, s *site) { c.Head(s.URL + "/private/x") },
			builtin: []string{"HEAD /private/x"},
			ours:    nil,
		},
		{
			name:    "429 is unreachable, not allow-all",
			status:  http.StatusTooManyRequests,
			run:     func(c *colly.Collector, s *site) { c.Visit(s.URL + "/page") },
			builtin: []string{"GET /page"},
			ours:    nil,
		},
		{
			name:    "redirect hops are checked",
			robots:  "User-agent: *\nDisallow: /private\n",
			setup:   func(s *site) { s.redirectTo("/go", "/private/target") },
			run:     func(c *colly.Collector, s *site) { c.Visit(s.URL + "/go") },
			builtin: []string{"GET /go", "GET /private/target"},
			ours:    []string{"GET /go"},
		},
		{
			name:    "the query is matched as sent, not re-encoded",
			robots:  "User-agent: *\nDisallow: /s?b=\n",
			run:     func(c *colly.Collector, s *site) { c.Visit(s.URL + "/s?b=1&a=2") },
			builtin: []string{"GET /s?b=1&a=2"},
			ours:    nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, builtin := range []bool{true, false} {
				robots := robotsTxt(tt.robots)
				if tt.status != 0 {
					robots = statusOnly(tt.status)
				}
				s := newSite(t, robots)
				if tt.setup != nil {
					tt.setup(s)
				}
				c := colly.NewCollector()
				want := tt.ours
				if builtin {
					c.IgnoreRobotsTxt = false
					want = tt.builtin
				} else {
					Apply(c, WithDefaultDelay(0))
				}
				tt.run(c, s)
				if got := s.seen(); !slices.Equal(got, want) {
					t.Errorf("builtin=%v: server saw %q, want %q", builtin, got, want)
				}
			}
		})
	}

	// A transient 5xx. The built-in check means to cache "disallow all",
	// but Colly asks temoto/robotstxt through FindGroup, which ignores that
	// flag: everything is allowed while robots.txt fails. The extension
	// blocks (fail-closed) and fetches robots.txt again after its backoff.
	t.Run("5xx blocks, then is retried after a backoff", func(t *testing.T) {
		t.Parallel()
		var healthy atomic.Bool
		robots := func(w http.ResponseWriter, r *http.Request) {
			if !healthy.Load() {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			robotsTxt("User-agent: *\nDisallow:\n")(w, r)
		}
		for _, builtin := range []bool{true, false} {
			healthy.Store(false)
			s := newSite(t, robots)
			clk := newClock()
			c := colly.NewCollector(colly.AllowURLRevisit())
			if builtin {
				c.IgnoreRobotsTxt = false
			} else {
				Apply(c, WithDefaultDelay(0), withClock(clk.Now))
			}
			c.Visit(s.URL + "/page")
			healthy.Store(true)
			clk.Advance(time.Minute)
			c.Visit(s.URL + "/page")
			want := []string{"GET /page"}
			if builtin {
				want = []string{"GET /page", "GET /page"}
			}
			if got := s.seen(); !slices.Equal(got, want) {
				t.Errorf("builtin=%v: server saw %q, want %q", builtin, got, want)
			}
		}
	})
}
