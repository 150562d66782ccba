package robotsext

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
)

// Acceptance tests of issue 9 (the crawler's identity as users write it,
// failures that are never silent, Check reading URLs as Visit does),
// through real Colly collectors and loopback httptest servers, observed
// from the server side. The helpers here (prefix acc) are shared with
// attach_test.go and shared_test.go.

// accSlack is how much shorter than a Crawl-delay a gap between two
// arrivals at the server may be, beyond what the clients' transit explains
// (see accCheckGaps): timer and clock granularity, and the few
// microseconds between the pacer's gate and the transport; 2 ms allows
// for -race. Gaps are only ever checked as lower bounds.
const accSlack = 2 * time.Millisecond

// accSentHeader carries the moment (UnixNano) a request entered the
// client's transport, right after the pacer let it go, so that the server
// can tell the pacer's spacing from the time each request then spent in
// transit (dial, goroutine scheduling on both sides: several milliseconds
// on a loaded 2-CPU machine under -race).
const accSentHeader = "X-Acc-Sent"

// accStamp is a RoundTripper that stamps accSentHeader on every request
// (robots.txt and pages alike) and passes it to the next transport.
type accStamp struct{ next http.RoundTripper }

func (s accStamp) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(accSentHeader, strconv.FormatInt(time.Now().UnixNano(), 10))
	return s.next.RoundTrip(r)
}

// accTransport returns a stamping transport for collectors
// (c.WithTransport) and for WithHTTPClient.
func accTransport(t *testing.T) http.RoundTripper {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)
	return accStamp{tr}
}

// accHit is one request as the server saw it.
type accHit struct {
	at     time.Time
	method string
	host   string // the Host header
	uri    string // RequestURI as received
	path   string // URL.Path, decoded
	ua     string
	inm    string // If-None-Match
	sent   int64  // accSentHeader, 0 when absent
}

// accSite is a loopback web server that records every request it
// receives, robots.txt included, and answers robots.txt with a handler
// that the test may replace.
type accSite struct {
	*httptest.Server

	mu     sync.Mutex
	hits   []accHit         // guarded by mu, in arrival order
	robots http.HandlerFunc // guarded by mu
}

func newAccSite(t *testing.T, robots http.HandlerFunc) *accSite {
	t.Helper()
	s := &accSite{robots: robots}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *accSite) serve(w http.ResponseWriter, r *http.Request) {
	h := accHit{at: time.Now(), method: r.Method, host: r.Host, uri: r.RequestURI,
		path: r.URL.Path, ua: r.UserAgent(), inm: r.Header.Get("If-None-Match")}
	h.sent, _ = strconv.ParseInt(r.Header.Get(accSentHeader), 10, 64)
	s.mu.Lock()
	s.hits = append(s.hits, h)
	robots := s.robots
	s.mu.Unlock()
	if r.URL.Path == "/robots.txt" {
		robots(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html")
	fmt.Fprint(w, "<html><body>page</body></html>")
}

// setRobots replaces the robots.txt handler.
func (s *accSite) setRobots(h http.HandlerFunc) {
	s.mu.Lock()
	s.robots = h
	s.mu.Unlock()
}

// all returns every request received, in arrival order.
func (s *accSite) all() []accHit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.hits)
}

// robotsHits returns the robots.txt requests.
func (s *accSite) robotsHits() []accHit {
	return slices.DeleteFunc(s.all(), func(h accHit) bool { return h.path != "/robots.txt" })
}

// pages returns the sorted paths of the page (non-robots.txt) requests.
func (s *accSite) pages() []string {
	var ps []string
	for _, h := range s.all() {
		if h.path != "/robots.txt" {
			ps = append(ps, h.path)
		}
	}
	slices.Sort(ps)
	return ps
}

// accBody serves body as robots.txt.
func accBody(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, body)
	}
}

// accGaps returns the gaps between consecutive arrivals of hits (which
// must be in arrival order, as all returns them) and the smallest one.
func accGaps(hits []accHit) (gaps []time.Duration, minGap time.Duration) {
	minGap = time.Duration(1<<63 - 1)
	for i := 1; i < len(hits); i++ {
		g := hits[i].at.Sub(hits[i-1].at)
		gaps = append(gaps, g)
		minGap = min(minGap, g)
	}
	return gaps, minGap
}

// accGateOverrun is 0: the gate keeps the delay at the wire (a request
// passes it no earlier than the delay after the previous response's
// headers), so no overrun is tolerated. It was the tolerance for a bug
// fixed since (see TestIssue9GateCountsActualStart).
func accGateOverrun(time.Duration) time.Duration { return 0 }

// accCheckGaps fails t for every arrival that came less than delay after
// the previous one, allowing only accSlack for the server's own clock
// readings. It returns the smallest gap at the server and the smallest
// spacing at which the requests left the clients (from accSentHeader).
func accCheckGaps(t *testing.T, hits []accHit, delay time.Duration) (minGap, minSent time.Duration) {
	t.Helper()
	if len(hits) < 2 {
		t.Fatalf("only %d requests reached the server, nothing to measure", len(hits))
	}
	gaps, minGap := accGaps(hits)
	minSent = time.Duration(1<<63 - 1)
	for i, g := range gaps {
		a, b := hits[i], hits[i+1]
		if a.sent != 0 && b.sent != 0 {
			minSent = min(minSent, time.Duration(b.sent-a.sent))
		}
		if want := delay - accSlack; g < want {
			t.Errorf("%s arrived %v after %s, want at least %v (Crawl-delay) - %v (slack)",
				b.path, g, a.path, delay, accSlack)
		}
	}
	return minGap, minSent
}

// accBlocked collects OnBlocked calls.
type accBlocked struct {
	mu    sync.Mutex
	paths []string
	vs    []Verdict
}

func (b *accBlocked) record(r *colly.Request, v Verdict) {
	b.mu.Lock()
	b.paths = append(b.paths, r.URL.Path)
	b.vs = append(b.vs, v)
	b.mu.Unlock()
}

func (b *accBlocked) get() ([]string, []Verdict) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.paths), slices.Clone(b.vs)
}

// sortedPaths returns the blocked paths, sorted.
func (b *accBlocked) sortedPaths() []string {
	ps, _ := b.get()
	slices.Sort(ps)
	return ps
}

// accLog is a buffer for a JSON slog handler, safe for concurrent use,
// whose records the test reads back.
type accLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *accLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

// logger returns a logger writing every record, Debug included, to l.
func (l *accLog) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// records returns the records written so far, decoded.
func (l *accLog) records(t *testing.T) []map[string]any {
	t.Helper()
	l.mu.Lock()
	data := slices.Clone(l.buf.Bytes())
	l.mu.Unlock()
	var rs []map[string]any
	for line := range bytes.Lines(data) {
		var r map[string]any
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		rs = append(rs, r)
	}
	return rs
}

// atLevel returns the records at level.
func (l *accLog) atLevel(t *testing.T, level slog.Level) []map[string]any {
	return slices.DeleteFunc(l.records(t), func(r map[string]any) bool { return r["level"] != level.String() })
}

// accLineOf returns the 1-based line of body that equals text.
func accLineOf(t *testing.T, body, text string) int {
	t.Helper()
	for i, l := range strings.Split(body, "\n") {
		if l == text {
			return i + 1
		}
	}
	t.Fatalf("no line %q in robots.txt", text)
	return 0
}

// accCollector returns an asynchronous collector with ua (Colly's default
// when empty) whose crawl ends with the test, at the latest after 20 s so
// that a pacing bug fails the test instead of hanging it, and the option
// giving the Extension the collector's (stamping) transport for
// robots.txt, as the README recommends.
func accCollector(t *testing.T, ua string) (*colly.Collector, Option) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	t.Cleanup(cancel)
	opts := []colly.CollectorOption{colly.Async(true), colly.StdlibContext(ctx)}
	if ua != "" {
		opts = append(opts, colly.UserAgent(ua))
	}
	c := colly.NewCollector(opts...)
	tr := accTransport(t)
	c.WithTransport(tr)
	return c, WithHTTPClient(&http.Client{Transport: tr})
}

// accVisit visits base+path for every path.
func accVisit(t *testing.T, c *colly.Collector, base string, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := c.Visit(base + p); err != nil {
			t.Errorf("Visit %s: %v", p, err)
		}
	}
}

// accIdentityRobots names four crawlers, each with its own disallowed
// directory and Crawl-delay, and gives "*" other rules and a short delay.
const accIdentityRobots = `# issue 9 acceptance
User-agent: AcmeBot
Disallow: /a/
Crawl-delay: 0.16

User-agent: Googlebot
Disallow: /g/
Crawl-delay: 0.14

User-agent: FooBot
Disallow: /f/
Crawl-delay: 0.12

User-agent: colly
Disallow: /c/
Crawl-delay: 0.1

User-agent: *
Disallow: /s/
Crawl-delay: 0.05
`

// accIdentityPages are requested by every identity test: one page in each
// crawler's directory, one in the "*" directory, two open pages.
var accIdentityPages = []string{"/a/p", "/g/p", "/f/p", "/c/p", "/s/p", "/open/1", "/open/2"}

// accExpectPages returns accIdentityPages without the blocked ones, sorted.
func accExpectPages(blocked string) []string {
	ps := slices.DeleteFunc(slices.Clone(accIdentityPages), func(p string) bool { return p == blocked })
	slices.Sort(ps)
	return ps
}

// TestIssue9UserAgentFormsPickTheirGroup crawls with each User-Agent form
// of issue 9 and no WithUserAgent: the token found in the User-Agent picks
// its own group, so the page in its directory never reaches the server
// while the "*"-only page does, and the server sees the group's
// Crawl-delay, not the shorter "*" one, between all requests (robots.txt
// included). The fetch log record names the token and the group's line.
func TestIssue9UserAgentFormsPickTheirGroup(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, ua, token, blocked, group string
		delay                           time.Duration
	}{
		{"compatible", "Mozilla/5.0 (compatible; AcmeBot/2.1; +https://acme.example/bot)", "AcmeBot", "/a/p", "User-agent: AcmeBot", 160 * time.Millisecond},
		{"googlebot chrome-style", "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/120.0.0.0 Safari/537.36", "Googlebot", "/g/p", "User-agent: Googlebot", 140 * time.Millisecond},
		{"leading product", "FooBot/1.0 (+https://foo.example/bot)", "FooBot", "/f/p", "User-agent: FooBot", 120 * time.Millisecond},
		{"colly default", "", "colly", "/c/p", "User-agent: colly", 100 * time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newAccSite(t, accBody(accIdentityRobots))
			c, client := accCollector(t, tt.ua)
			var log accLog
			e := Apply(c, client, WithLogger(log.logger()))
			var blocked accBlocked
			e.OnBlocked(blocked.record)
			accVisit(t, c, s.URL, accIdentityPages...)
			c.Wait()

			if got, want := s.pages(), accExpectPages(tt.blocked); !slices.Equal(got, want) {
				t.Errorf("server saw pages %q, want %q", got, want)
			}
			paths, vs := blocked.get()
			if line := accLineOf(t, accIdentityRobots, "Disallow: "+tt.blocked[:3]); !slices.Equal(paths, []string{tt.blocked}) ||
				vs[0].Reason != ReasonDisallowRule || vs[0].Line != line {
				t.Errorf("OnBlocked saw %q %+v, want %s by line %d", paths, vs, tt.blocked, line)
			}
			robots := s.robotsHits()
			wantUA := tt.ua
			if wantUA == "" {
				wantUA = c.UserAgent
			}
			if len(robots) != 1 || robots[0].ua != wantUA {
				t.Errorf("robots.txt requests %+v, want one with User-Agent %q", robots, wantUA)
			}
			if rules := e.LimitRules(); len(rules) != 1 || rules[0].Delay != tt.delay {
				t.Errorf("LimitRules %+v, want one with Delay %v", rules, tt.delay)
			}
			minGap, minSent := accCheckGaps(t, s.all(), tt.delay)
			t.Logf("token %s: %d requests, smallest gap %v at the server, %v as sent (Crawl-delay %v)", tt.token, len(s.all()), minGap, minSent, tt.delay)

			// The fetch record names the token and the group.
			var fetched []map[string]any
			for _, r := range log.records(t) {
				if r["msg"] == "robotsext: fetched robots.txt" {
					fetched = append(fetched, r)
				}
			}
			groupLine := float64(accLineOf(t, accIdentityRobots, tt.group))
			if len(fetched) != 1 || fetched[0]["token"] != tt.token || fetched[0]["group_specific"] != true ||
				!slices.Equal(anySlice(fetched[0]["group_lines"]), []any{groupLine}) {
				t.Errorf("fetch records %v, want one with token %s and group_lines [%v]", fetched, tt.token, groupLine)
			}
			// Colly's default User-Agent gets the one warning due to a
			// framework's default token (issue 36); the others none.
			w := log.atLevel(t, slog.LevelWarn)
			if tt.ua == "" && (len(w) != 1 || w[0]["token"] != "colly" || !strings.Contains(fmt.Sprint(w[0]["msg"]), "framework's default")) {
				t.Errorf("warnings %v, want one about Colly's default token", w)
			} else if tt.ua != "" && len(w) != 0 {
				t.Errorf("unexpected warnings %v", w)
			}
		})
	}
}

func anySlice(v any) []any {
	s, _ := v.([]any)
	return s
}

// TestIssue9WithUserAgentReduced gives WithUserAgent "AcmeBot/2.1", which
// is not a bare token: the Extension behaves as AcmeBot (its Disallow and
// its 0.16 s Crawl-delay at the server) and logs exactly one Warn saying
// which token it used. The collector's User-Agent, "AcmeBot-Crawler/3.0",
// contains the token (so no other warning is due) but would by itself
// select only "*": the control run without WithUserAgent fetches /a/p.
func TestIssue9WithUserAgentReduced(t *testing.T) {
	t.Parallel()
	const ua = "AcmeBot-Crawler/3.0 (+https://acme.example/bot)"
	t.Run("WithUserAgent", func(t *testing.T) {
		t.Parallel()
		s := newAccSite(t, accBody(accIdentityRobots))
		c, client := accCollector(t, ua)
		var log accLog
		e := Apply(c, client, WithUserAgent("AcmeBot/2.1"), WithLogger(log.logger()))
		var blocked accBlocked
		e.OnBlocked(blocked.record)
		accVisit(t, c, s.URL, accIdentityPages...)
		c.Wait()
		if got, want := s.pages(), accExpectPages("/a/p"); !slices.Equal(got, want) {
			t.Errorf("server saw pages %q, want %q", got, want)
		}
		if got := blocked.sortedPaths(); !slices.Equal(got, []string{"/a/p"}) {
			t.Errorf("OnBlocked saw %q", got)
		}
		minGap, minSent := accCheckGaps(t, s.all(), 160*time.Millisecond)
		t.Logf("smallest gap %v at the server, %v as sent (AcmeBot Crawl-delay 160ms)", minGap, minSent)
		warns := log.atLevel(t, slog.LevelWarn)
		if len(warns) != 1 || warns[0]["token"] != "AcmeBot" || warns[0]["given"] != "AcmeBot/2.1" ||
			!strings.Contains(fmt.Sprint(warns[0]["msg"]), "token") {
			t.Errorf("warnings %v, want exactly one naming the token AcmeBot used for AcmeBot/2.1", warns)
		} else {
			t.Logf("the warning: %v", warns[0])
		}
	})
	t.Run("control without WithUserAgent", func(t *testing.T) {
		t.Parallel()
		s := newAccSite(t, accBody(accIdentityRobots))
		c, client := accCollector(t, ua)
		Apply(c, client, WithLogger(slog.New(slog.DiscardHandler)))
		accVisit(t, c, s.URL, accIdentityPages...)
		c.Wait()
		if got, want := s.pages(), accExpectPages("/s/p"); !slices.Equal(got, want) {
			t.Errorf("server saw pages %q, want %q (the \"*\" group)", got, want)
		}
	})
}

// TestIssue9BrowserUserAgentWarnsOnce crawls with a browser's User-Agent,
// which names no crawler: only the "*" group applies (its Disallow and its
// Crawl-delay; the named crawlers' directories are fetched), and one Warn
// record says so, however many requests are made; one other says once
// that it carries no contact (issue 36).
func TestIssue9BrowserUserAgentWarnsOnce(t *testing.T) {
	t.Parallel()
	const ua = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
	s := newAccSite(t, accBody(accIdentityRobots))
	c, client := accCollector(t, ua)
	var log accLog
	e := Apply(c, client, WithLogger(log.logger()))
	var blocked accBlocked
	e.OnBlocked(blocked.record)
	pages := slices.Clone(accIdentityPages)
	for i := range 8 {
		pages = append(pages, fmt.Sprintf("/open/more%d", i), fmt.Sprintf("/s/more%d", i))
	}
	accVisit(t, c, s.URL, pages...)
	c.Wait()
	// A second collector attached later still warns no more.
	d := c.Clone()
	e.Attach(d)
	accVisit(t, d, s.URL, "/open/late", "/s/late")
	d.Wait()

	var want []string
	for _, p := range append(pages, "/open/late", "/s/late") {
		if !strings.HasPrefix(p, "/s/") {
			want = append(want, p)
		}
	}
	slices.Sort(want)
	if got := s.pages(); !slices.Equal(got, want) {
		t.Errorf("server saw pages %q, want %q", got, want)
	}
	if got := blocked.sortedPaths(); len(got) != 10 || slices.ContainsFunc(got, func(p string) bool { return !strings.HasPrefix(p, "/s/") }) {
		t.Errorf("OnBlocked saw %q, want the 10 /s/ pages", got)
	}
	if rules := e.LimitRules(); len(rules) != 1 || rules[0].Delay != 50*time.Millisecond {
		t.Errorf("LimitRules %+v, want one with the \"*\" Delay 50ms", rules)
	}
	minGap, minSent := accCheckGaps(t, s.all(), 50*time.Millisecond)
	t.Logf("%d requests, smallest gap %v at the server, %v as sent (\"*\" Crawl-delay 50ms)", len(s.all()), minGap, minSent)
	warns := log.atLevel(t, slog.LevelWarn)
	// The contact is judged at the first request sent, the token when
	// robots.txt is asked for: either may come first.
	if len(warns) == 2 && strings.Contains(fmt.Sprint(warns[0]["msg"]), "WithUserAgent") {
		warns[0], warns[1] = warns[1], warns[0]
	}
	if len(warns) != 2 || !strings.Contains(fmt.Sprint(warns[0]["msg"]), "no contact") ||
		!strings.Contains(fmt.Sprint(warns[1]["msg"]), "WithUserAgent") || warns[1]["user_agent"] != ua {
		t.Errorf("warnings %v, want one about the missing contact and exactly one saying to set WithUserAgent", warns)
	} else {
		t.Logf("the warning: %v", warns[1]["msg"])
	}
	for _, r := range log.records(t) {
		if r["msg"] == "robotsext: fetched robots.txt" && (r["token"] != noToken || r["group_specific"] != false) {
			t.Errorf("fetch record %v, want token %q and the \"*\" group", r, noToken)
		}
	}
}

// accDefaultLog swaps slog.Default for a logger writing every level to a
// buffer, restoring it when the test ends. Tests using it must not be
// parallel.
func accDefaultLog(t *testing.T) *accLog {
	var log accLog
	old := slog.Default()
	slog.SetDefault(log.logger())
	t.Cleanup(func() { slog.SetDefault(old) })
	return &log
}

// TestIssue9UnreachableIsVisible (not parallel: it replaces slog.Default)
// crawls three origins without WithLogger: one whose robots.txt answers
// 503, one on a closed port, one fine. The first two are blocked, OnBlocked
// gets Verdict.Err saying why (a *StatusError with the 503; the dial's
// connection refused), and slog.Default receives a Warn for each, while
// the Info and Debug records (the good fetch, the blocked requests) are
// dropped.
func TestIssue9UnreachableIsVisible(t *testing.T) {
	log := accDefaultLog(t)

	down := newAccSite(t, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) })
	fine := newAccSite(t, accBody("User-agent: *\nDisallow: /nothing\nCrawl-delay: 0\n")) // not a test of the pace
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()

	c, client := accCollector(t, "FooBot/1.0 (+https://foo.example/bot)")
	e := Apply(c, client)
	var blocked accBlocked
	e.OnBlocked(blocked.record)
	byURL := map[string]Verdict{}
	var mu sync.Mutex
	e.OnBlocked(func(r *colly.Request, v Verdict) {
		mu.Lock()
		byURL[r.URL.Scheme+"://"+r.URL.Host] = v
		mu.Unlock()
	})
	accVisit(t, c, down.URL, "/page")
	accVisit(t, c, closed, "/page")
	accVisit(t, c, fine.URL, "/page")
	c.Wait()

	if got := down.pages(); len(got) != 0 {
		t.Errorf("the 503 origin saw pages %q", got)
	}
	if got := fine.pages(); !slices.Equal(got, []string{"/page"}) {
		t.Errorf("the good origin saw %q", got)
	}
	mu.Lock()
	v503, vClosed := byURL[down.URL], byURL[closed]
	n := len(byURL)
	mu.Unlock()
	if n != 2 {
		t.Errorf("OnBlocked for %d origins, want 2: %v", n, byURL)
	}
	var se *StatusError
	if v503.Reason != ReasonUnreachable || !errors.As(v503.Err, &se) || se.StatusCode != 503 || !errors.Is(v503.Err, ErrUnreachable) {
		t.Errorf("503 verdict %+v (Err %v), want ReasonUnreachable with a *StatusError 503", v503, v503.Err)
	}
	if vClosed.Reason != ReasonUnreachable || vClosed.Err == nil || !errors.Is(vClosed.Err, syscall.ECONNREFUSED) || errors.Is(vClosed.Err, ErrLocal) {
		t.Errorf("closed-port verdict %+v (Err %v), want ReasonUnreachable with connection refused", vClosed, vClosed.Err)
	}
	t.Logf("Verdict.Err: %v | %v", v503.Err, vClosed.Err)

	warned := map[string]bool{}
	for _, r := range log.records(t) {
		if r["level"] != slog.LevelWarn.String() {
			t.Errorf("slog.Default got a %v record: %v", r["level"], r)
			continue
		}
		if r["outcome"] == "unreachable" {
			u, _ := url.Parse(fmt.Sprint(r["url"]))
			warned["http://"+u.Host] = true
			if r["error"] == nil || r["error"] == "" {
				t.Errorf("unreachable record without the error: %v", r)
			}
		}
	}
	if !warned[down.URL] || !warned[closed] || len(warned) != 2 {
		t.Errorf("slog.Default warned for %v, want %s and %s; records %v", warned, down.URL, closed, log.records(t))
	}
}

// TestIssue9CheckAgreesWithVisit decides URLs that Colly rewrites before
// sending them (dot segments, case and default port, IDNA, spaces and
// single '%', backslashes, tabs and newlines) with Extension.Check, then
// visits them: whatever Check said, the server saw the request exactly
// when Check allowed it. Every host is dialled to the test server (the
// same transport for the collector and WithHTTPClient), and the cases are
// chosen so that reading the raw string instead of Colly's URL would
// decide some of them the other way.
func TestIssue9CheckAgreesWithVisit(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	const robots = "User-agent: *\nDisallow: /private/\nDisallow: /a/b\nDisallow: /sp%20ace/\nDisallow: /100%25/\nDisallow: /~user/\nDisallow: /X\n"
	s := newAccSite(t, accBody(robots))
	addr := s.Listener.Addr().String()
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	c := colly.NewCollector(colly.UserAgent("FooBot/1.0"), colly.StdlibContext(t.Context()))
	c.WithTransport(tr)
	e := Apply(c, WithDefaultDelay(0), WithHTTPClient(&http.Client{Transport: tr}), WithLogger(slog.New(slog.DiscardHandler)))

	const (
		either = iota
		allow
		block
	)
	// Each URL ends with a unique marker kNN, found again in the path the
	// server receives; want is the path Colly sends, "" when not checked.
	for _, tt := range []struct {
		raw, host, want string
		expect          int
	}{
		{"http://host.example/a/./b/k01", "host.example", "/a/b/k01", block},
		{"http://host.example/a/./c/k02", "host.example", "/a/c/k02", allow},
		{"http://host.example/a/../private/k03", "host.example", "/private/k03", block},
		{"http://host.example/private/../public/k04", "host.example", "/public/k04", allow},
		{"http://host.example/a/%2e/b/k05", "host.example", "/a/b/k05", block},
		{"HTTP://HOST.Example:80/Xk06", "host.example", "/Xk06", block},
		{"HTTP://HOST.Example:80/xk07", "host.example", "/xk07", allow},
		{"http://bücher.example/private/k08", "xn--bcher-kva.example", "/private/k08", block},
		{"http://bücher.example/open/k09", "xn--bcher-kva.example", "/open/k09", allow},
		{"http://host.example/sp ace/k10", "host.example", "/sp%20ace/k10", block},
		{"http://host.example/sp ace2/k11", "host.example", "/sp%20ace2/k11", allow},
		{"http://host.example/100%/k12", "host.example", "/100%25/k12", block},
		{"http://host.example/100%25/k13", "host.example", "/100%25/k13", block},
		{"http://host.example/%7Euser/k14", "host.example", "", either},
		{"http://host.example/~user/k15", "host.example", "/~user/k15", block},
		{`http://host.example\private\k16`, "host.example", "/private/k16", block},
		{`http://host.example\open\k17`, "host.example", "/open/k17", allow},
		{"http://host.example/pri\tvate/k18", "host.example", "/private/k18", block},
		{"http://host.ex\nample/pri\nvate/k19", "host.example", "/private/k19", block},
		{" \thttp://host.example/open/k20\n", "host.example", "/open/k20", allow},
		{"http://host.example/private%2Fk21", "host.example", "", either},
		{"http://HOST.example./private/k22", "", "", either},
		{"http://host.example:8080/private/k23", "host.example:8080", "/private/k23", block},
		{"http://host.example/privat%65/k24", "host.example", "", either},
		{"http://host.example/ünï/k25", "host.example", "/%C3%BCn%C3%AF/k25", allow},
	} {
		marker := tt.raw[strings.LastIndex(tt.raw, "k"):]
		marker = strings.TrimSpace(marker)
		v, err := e.Check(tt.raw)
		before := len(s.all())
		visitErr := c.Visit(tt.raw)
		var got []accHit
		for _, h := range s.all()[before:] {
			if h.path != "/robots.txt" {
				got = append(got, h)
			}
		}
		if err != nil {
			if len(got) != 0 {
				t.Errorf("%q: Check failed (%v) but the server saw %+v", tt.raw, err, got)
			}
			t.Logf("%q: Check error %v, Visit error %v", tt.raw, err, visitErr)
			continue
		}
		requested := len(got) == 1 && strings.HasSuffix(got[0].path, marker)
		if v.Allowed != requested {
			t.Errorf("%q: Check says allowed=%v (%v, line %d) but the server saw %+v", tt.raw, v.Allowed, v.Reason, v.Line, got)
			continue
		}
		switch {
		case tt.expect == allow && !v.Allowed, tt.expect == block && v.Allowed:
			t.Errorf("%q: Check and Visit agree on allowed=%v, but Colly's URL decides the other way (%v)", tt.raw, v.Allowed, v.Reason)
		}
		if requested {
			if tt.want != "" && strings.SplitN(got[0].uri, "?", 2)[0] != tt.want {
				t.Errorf("%q: server saw %q, want %q", tt.raw, got[0].uri, tt.want)
			}
			if tt.host != "" && got[0].host != tt.host {
				t.Errorf("%q: server saw Host %q, want %q", tt.raw, got[0].host, tt.host)
			}
		}
		t.Logf("%-45q allowed=%-5v %-24v line %d server %v", tt.raw, v.Allowed, v.Reason, v.Line, func() string {
			if requested {
				return got[0].host + got[0].uri
			}
			return "-"
		}())
	}
}
