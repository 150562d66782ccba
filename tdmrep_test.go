package robotsext

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
)

// tdmSite is a site whose tdmrep.json answers with the handler in file,
// which a test may swap, and counts the requests for it.
type tdmSite struct {
	*site
	hits atomic.Int32
	mu   sync.Mutex
	file http.HandlerFunc
	ua   []string // the User-Agent and Accept of each request
}

func newTDMSite(t *testing.T, robots string, file http.HandlerFunc) *tdmSite {
	t.Helper()
	s := &tdmSite{site: newSite(t, robotsTxt(robots)), file: file}
	s.route("/.well-known/tdmrep.json", func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.mu.Lock()
		s.ua = append(s.ua, r.UserAgent()+" | "+r.Header.Get("Accept"))
		h := s.file
		s.mu.Unlock()
		h(w, r)
	})
	return s
}

func (s *tdmSite) serve(h http.HandlerFunc) {
	s.mu.Lock()
	s.file = h
	s.mu.Unlock()
}

const archiveReserved = `[{"location": "/archive/", "tdm-reservation": 1}]`

// TestTDMRepOneFetch: requests for an origin whose tdmrep.json is being
// fetched wait for that one fetch; the request carries the robots.txt
// request's User-Agent.
func TestTDMRepOneFetch(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	release := make(chan struct{})
	s := newTDMSite(t, "User-agent: *\nAllow: /\n", func(w http.ResponseWriter, r *http.Request) {
		<-release
		jsonFile(archiveReserved)(w, r)
	})
	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; TrainBot/1.0; +https://example.com/bot)"))
	e := Apply(c, WithDefaultDelay(0), quiet(), WithPurpose(PurposeTrainAI))
	var wg sync.WaitGroup
	refused := atomic.Int32{}
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := e.Check(fmt.Sprintf("%s/archive/%d", s.URL, i))
			if err != nil {
				t.Error(err)
			}
			if v.Reason == ReasonUsage {
				refused.Add(1)
			}
		}()
	}
	close(release)
	wg.Wait()
	if n := s.hits.Load(); n != 1 {
		t.Errorf("tdmrep.json fetched %d times, want 1", n)
	}
	if refused.Load() != 20 {
		t.Errorf("%d of 20 URLs refused", refused.Load())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if want := "Mozilla/5.0 (compatible; TrainBot/1.0; +https://example.com/bot) | application/json"; len(s.ua) != 1 || s.ua[0] != want {
		t.Errorf("request headers %q, want %q", s.ua, want)
	}
}

// TestTDMRepLifetime: the file is kept for its response's lifetime, and
// fetched again once it has expired; an unreachable origin keeps its good
// copy and is asked again after a backoff; a file gone (404) states
// nothing.
func TestTDMRepLifetime(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	clk := newClock()
	s := newTDMSite(t, "User-agent: *\nAllow: /\n", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=600")
		jsonFile(archiveReserved)(w, r)
	})
	e := Apply(nil, WithDefaultDelay(0), quiet(), WithUserAgent("TrainBot"), WithPurpose(PurposeTrainAI), WithClock(clk.Now))
	check := func(when string, wantReason Reason, wantHits int32) {
		t.Helper()
		v, err := e.Check(s.URL + "/archive/a")
		if err != nil {
			t.Fatal(err)
		}
		if v.Reason != wantReason || s.hits.Load() != wantHits {
			t.Errorf("%s: %v after %d fetches, want %v after %d", when, v.Reason, s.hits.Load(), wantReason, wantHits)
		}
	}
	check("first", ReasonUsage, 1)
	clk.Advance(9 * time.Minute)
	check("within max-age", ReasonUsage, 1)
	s.serve(statusOnly(http.StatusServiceUnavailable))
	clk.Advance(2 * time.Minute)
	check("unreachable: the good copy", ReasonUsage, 2)
	clk.Advance(30 * time.Second)
	check("within the backoff", ReasonUsage, 2)
	s.serve(statusOnly(http.StatusNotFound))
	clk.Advance(time.Minute)
	check("gone", ReasonAllowRule, 3)
	if st := e.Stats(); st.TDMRepFetches != 3 || st.TDMRepFiles != 1 {
		t.Errorf("stats: %d fetches, %d files", st.TDMRepFetches, st.TDMRepFiles)
	}
}

// TestTDMRepMalformedLoggedOnce: a malformed file states nothing and is
// logged once, however often it is fetched again while it stays so.
func TestTDMRepMalformedLoggedOnce(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	clk := newClock()
	s := newTDMSite(t, "User-agent: *\nAllow: /\n", jsonFile(`{"location": "/archive/", "tdm-reservation": 1}`))
	var logs bytes.Buffer
	var mu sync.Mutex
	e := Apply(nil, WithDefaultDelay(0), WithLogger(slog.New(slog.NewTextHandler(&lockedWriter{mu: &mu, w: &logs}, nil))),
		WithUserAgent("TrainBot"), WithPurpose(PurposeTrainAI), WithClock(clk.Now))
	for range 3 {
		v, err := e.Check(s.URL + "/archive/a")
		if err != nil || !v.Allowed {
			t.Fatalf("Check = %+v, %v", v, err)
		}
		clk.Advance(25 * time.Hour)
	}
	mu.Lock()
	defer mu.Unlock()
	if n := strings.Count(logs.String(), "tdmrep.json is malformed"); n != 1 || s.hits.Load() != 3 {
		t.Errorf("%d warnings over %d fetches, want 1 over 3:\n%s", n, s.hits.Load(), logs.String())
	}
	if st := e.Stats(); st.TDMRepMalformed != 3 {
		t.Errorf("TDMRepMalformed = %d", st.TDMRepMalformed)
	}
}

// TestTDMRepOverride: a host under WithOverride is crawled regardless:
// its tdmrep.json is not read.
func TestTDMRepOverride(t *testing.T) {
	t.Parallel()
	s := newTDMSite(t, "User-agent: *\nAllow: /\n", jsonFile(archiveReserved))
	e := Apply(nil, quiet(), WithUserAgent("TrainBot"), WithPurpose(PurposeTrainAI), WithOverride("127.0.0.1"))
	v, err := e.Check(s.URL + "/archive/a")
	if err != nil || !v.Allowed || s.hits.Load() != 0 {
		t.Errorf("Check = %+v, %v after %d fetches", v, err, s.hits.Load())
	}
}

// TestTDMRepRedirectHop: a redirect into a reserved URL is refused at the
// hop.
func TestTDMRepRedirectHop(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	s := newTDMSite(t, "User-agent: *\nAllow: /\n", jsonFile(archiveReserved))
	s.redirectTo("/old", "/archive/a")
	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; TrainBot/1.0; +https://example.com/bot)"))
	e := Apply(c, WithDefaultDelay(0), quiet(), WithPurpose(PurposeTrainAI))
	var blocked blockLog
	e.OnBlocked(blocked.record)
	err := c.Visit(s.URL + "/old")
	if err == nil || s.saw("GET /archive/a") {
		t.Errorf("Visit = %v; server saw %v", err, s.seen())
	}
	if urls, vs := blocked.get(); len(urls) != 1 || urls[0] != "GET /archive/a" || vs[0].Rule != "tdmrep.json rule 0: /archive/ tdm-reservation 1" {
		t.Errorf("refused %v %+v", urls, vs)
	}
}

// TestTDMRepPercentEncoding: locations are matched as robots.txt patterns
// are: "%24" is the escape, not '$'.
func TestTDMRepPercentEncoding(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	s := newTDMSite(t, "User-agent: *\nAllow: /\n", jsonFile(`[{"location": "/caf\u00e9/", "tdm-reservation": 1}, {"location": "/price-%24", "tdm-reservation": 1}]`))
	e := Apply(nil, WithDefaultDelay(0), quiet(), WithUserAgent("TrainBot"), WithPurpose(PurposeTrainAI))
	for _, tc := range []struct {
		path    string
		refused bool
	}{
		{"/caf%C3%A9/menu", true},
		{"/café/menu", true},
		{"/price-%24", true},
		{"/price-$", false},
	} {
		v, err := e.Check(s.URL + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Reason == ReasonUsage; got != tc.refused {
			t.Errorf("%s: %+v, refused %v", tc.path, v, tc.refused)
		}
	}
}

// TestPageTDMRep: Page(resp).TDMRep is the file, the header and the meta
// tags laid over one another, and Page.Usage keeps each mechanism's
// statement. Without the purpose the file is not read.
func TestPageTDMRep(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	s := newTDMSite(t, "User-agent: *\nAllow: /\nContent-Usage: /open/ train-ai=y\n",
		jsonFile(`[{"location": "/open/", "tdm-reservation": 0, "tdm-policy": "https://example.com/file-policy"}]`))
	s.route("/open/page", optPage{
		headers: []string{"Content-Signal", "search=yes", "tdm-policy", "https://example.com/header-policy"},
		head:    `<meta name="tdm-reservation" content="1">`,
	}.handler())
	for _, tc := range []struct {
		opts            []Option
		tdm, usage, all string
		refused         bool
	}{
		{[]Option{WithPurpose(PurposeSearch, PurposeTrainAI)},
			"{Reservation:1 Policy:https://example.com/header-policy Source:tdm-reservation meta Rule:0}",
			"search=y (Content-Signal header), train-ai=n (tdm-reservation meta)",
			"search=y (Content-Signal header), train-ai=y (Content-Usage line 3), train-ai=n (tdm-reservation meta)", false},
		{[]Option{WithPurpose(PurposeTrainAI)},
			"{Reservation:1 Policy:https://example.com/header-policy Source:tdm-reservation meta Rule:0}",
			"search=y (Content-Signal header), train-ai=n (tdm-reservation meta)",
			"search=y (Content-Signal header), train-ai=y (Content-Usage line 3), train-ai=n (tdm-reservation meta)", true},
		{nil,
			"{Reservation:1 Policy:https://example.com/header-policy Source:tdm-reservation meta Rule:0}",
			"search=y (Content-Signal header), train-ai=n (tdm-reservation meta)",
			"search=y (Content-Signal header), train-ai=y (Content-Usage line 3), train-ai=n (tdm-reservation meta)", false},
	} {
		c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; TrainBot/1.0; +https://example.com/bot)"))
		e := Apply(c, append([]Option{quiet(), WithDefaultDelay(0)}, tc.opts...)...)
		var p Page
		c.OnResponse(func(r *colly.Response) { p = e.Page(r) })
		if err := c.Visit(s.URL + "/open/page"); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%+v", p.TDMRep); got != tc.tdm {
			t.Errorf("%d: TDMRep = %s, want %s", len(tc.opts), got, tc.tdm)
		}
		if got := p.Usage.String(); got != tc.usage {
			t.Errorf("Usage = %q, want %q", got, tc.usage)
		}
		if got := joinStatements(p.Usage.All()); got != tc.all {
			t.Errorf("Usage.All = %q, want %q", got, tc.all)
		}
		if p.Refused != tc.refused {
			t.Errorf("Refused = %v, want %v", p.Refused, tc.refused)
		}
	}
	// The file alone: its rule and policy, with the purpose.
	s.route("/open/plain", optPage{}.handler())
	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; TrainBot/1.0; +https://example.com/bot)"))
	e := Apply(c, WithDefaultDelay(0), quiet(), WithPurpose(PurposeSearch))
	var p Page
	c.OnResponse(func(r *colly.Response) { p = e.Page(r) })
	if err := c.Visit(s.URL + "/open/plain"); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprintf("%+v", p.TDMRep), "{Reservation:0 Policy:https://example.com/file-policy Source:tdmrep.json Rule:0}"; got != want {
		t.Errorf("file alone: TDMRep = %s, want %s", got, want)
	}
	if got, want := joinStatements(p.Usage.All()), "train-ai=y (Content-Usage line 3), train-ai=y (tdmrep.json rule 0)"; got != want {
		t.Errorf("file alone: Usage.All = %q, want %q", got, want)
	}
}

// TestUsageLinksStayReachable: the links of a page whose meta tags refuse
// the crawl, and an image of a noimageai page, are refused for the page's
// sake: found on another page, or visited, they are fetched.
func TestUsageLinksStayReachable(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	s := newSite(t, robotsTxt("User-agent: *\nAllow: /\n"))
	s.route("/.well-known/tdmrep.json", statusOnly(http.StatusNotFound))
	s.route("/reserved", optPage{head: `<meta name="tdm-reservation" content="1">`, links: []string{"/x"}}.handler())
	s.route("/gallery", optPage{head: `<meta name="robots" content="noimageai">`, links: []string{"/art.png"}}.handler())
	s.route("/art.png", optPage{ctype: "image/png"}.handler())
	s.route("/open", optPage{links: []string{"/x", "/art.png"}}.handler())
	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; TrainBot/1.0; +https://example.com/bot)"))
	e := Apply(c, WithDefaultDelay(0), quiet(), WithPurpose(PurposeTrainAI))
	var blocked blockLog
	e.OnBlocked(blocked.record)
	var mu sync.Mutex
	var bodies []string
	c.OnResponse(func(r *colly.Response) {
		mu.Lock()
		bodies = append(bodies, r.Request.URL.Path)
		mu.Unlock()
	})
	c.OnHTML("a[href]", func(el *colly.HTMLElement) { _ = el.Request.Visit(el.Attr("href")) })
	for _, p := range []string{"/reserved", "/gallery", "/open"} {
		if err := c.Visit(s.URL + p); err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"/reserved", "/gallery", "/open", "/x", "/art.png"}; fmt.Sprint(bodies) != fmt.Sprint(want) {
		t.Errorf("read %v, want %v", bodies, want)
	}
	if urls, _ := blocked.get(); fmt.Sprint(urls) != "[GET /reserved GET /x GET /art.png]" {
		t.Errorf("refused %v", urls)
	}
}

// TestUsageShadowModeSignals: in shadow mode every new signal is reported
// and nothing is refused.
func TestUsageShadowModeSignals(t *testing.T) {
	t.Parallel()
	for _, tc := range optCases {
		if len(tc.refused) == 0 {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := crawlOpt(t, tc, WithPurpose(PurposeTrainAI), WithShadowMode())
			if fmt.Sprint(out.fetched) != fmt.Sprint(tc.fetchedWithout) {
				t.Errorf("fetched %v, want %v", out.fetched, tc.fetchedWithout)
			}
			if len(out.refused) < len(tc.refused) {
				t.Errorf("reported %q, want at least %q", out.refused, tc.refused)
			}
			if st := out.ext.Stats(); st.UsageWithheld+st.UsageMetaRefused != 0 {
				t.Errorf("stats count refusals in shadow mode: %+v", st)
			}
		})
	}
}
