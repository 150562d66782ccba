package robotsext

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gocolly/colly/v2"
)

// optPage is one page of an opt-out test site: its response headers
// (name, value pairs), its Content-Type (text/html when ""), its head and
// the links of its body.
type optPage struct {
	headers []string
	ctype   string
	head    string
	links   []string
}

// handler serves p.
func (p optPage) handler() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(p.headers); i += 2 {
			w.Header().Add(p.headers[i], p.headers[i+1])
		}
		ct := p.ctype
		if ct == "" {
			ct = "text/html; charset=utf-8"
		}
		w.Header().Set("Content-Type", ct)
		if !strings.HasPrefix(ct, "text/html") {
			fmt.Fprint(w, "\x89PNG\r\n\x1a\n")
			return
		}
		var b strings.Builder
		for _, l := range p.links {
			fmt.Fprintf(&b, `<a href="%s">%s</a> `, l, l)
		}
		fmt.Fprintf(w, "<!DOCTYPE html><html><head><title>%s</title>%s</head><body>%s</body></html>", r.URL.Path, p.head, b.String())
	}
}

// optCase is one opt-out mechanism on a site of its own, crawled from "/"
// with and without WithPurpose(PurposeTrainAI).
type optCase struct {
	name   string
	robots string
	tdmrep http.HandlerFunc // the origin's tdmrep.json; nil: 404
	pages  map[string]optPage
	// With the purpose: the pages whose body was read (OnResponse), and
	// the refusals (OnBlocked) as "path: rule", "<page" added for a
	// refusal made for a page's sake.
	fetched, refused []string
	// Without it.
	fetchedWithout, refusedWithout []string
}

// optOutcome is what one crawl of an optCase saw.
type optOutcome struct {
	fetched, refused []string
	tdmrepHits       int
	ext              *Extension
	refusedPages     []string // Page(resp).Refused, from OnResponse
}

// crawlOpt crawls c's site from "/" (Async, links followed with
// e.Request.Visit) with opts.
func crawlOpt(t *testing.T, tc optCase, opts ...Option) optOutcome {
	t.Helper()
	robots := tc.robots
	if robots == "" {
		robots = "User-agent: *\nAllow: /\n"
	}
	s := newSite(t, robotsTxt(robots))
	for path, p := range tc.pages {
		s.route(path, p.handler())
	}
	if tc.tdmrep != nil {
		s.route("/.well-known/tdmrep.json", tc.tdmrep)
	} else {
		s.route("/.well-known/tdmrep.json", statusOnly(http.StatusNotFound))
	}
	c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; TrainBot/1.0; +https://example.com/bot)"), colly.Async(true))
	ext := Apply(c, append([]Option{quiet(), WithDefaultDelay(0)}, opts...)...) // the subject is the opt-outs, not the pace
	var out optOutcome
	var mu sync.Mutex
	ext.OnBlocked(func(r *colly.Request, v Verdict) {
		line := r.URL.Path + ": " + v.Rule
		if v.Page != "" {
			line += " <" + strings.TrimPrefix(v.Page, s.URL)
		}
		mu.Lock()
		out.refused = append(out.refused, line)
		mu.Unlock()
	})
	c.OnResponse(func(r *colly.Response) {
		refused := ext.Page(r).Refused
		mu.Lock()
		out.fetched = append(out.fetched, r.Request.URL.Path)
		if refused {
			out.refusedPages = append(out.refusedPages, r.Request.URL.Path)
		}
		mu.Unlock()
	})
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { _ = e.Request.Visit(e.Attr("href")) })
	if err := c.Visit(s.URL + "/"); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	slices.Sort(out.fetched)
	slices.Sort(out.refused)
	slices.Sort(out.refusedPages)
	out.tdmrepHits = strings.Count(strings.Join(s.seen(), "\n"), "GET /.well-known/tdmrep.json")
	out.ext = ext
	return out
}

// jsonFile serves body as a tdmrep.json.
func jsonFile(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, body)
	}
}

// optCases are the opt-out mechanisms, one site each. Their outcomes are
// quoted in docs/usage-preferences.md.
var optCases = []optCase{
	{
		name:   "tdmrep.json",
		tdmrep: jsonFile(`[{"location": "/archive/", "tdm-reservation": 1, "tdm-policy": "https://example.com/policy.json"}, {"location": "/", "tdm-reservation": 0}]`),
		pages: map[string]optPage{
			"/": {links: []string{"/archive/a", "/open/a"}},
		},
		fetched:        []string{"/", "/open/a"},
		refused:        []string{"/archive/a: tdmrep.json rule 0: /archive/ tdm-reservation 1"},
		fetchedWithout: []string{"/", "/archive/a", "/open/a"},
	},
	{
		name:   "tdmrep.json, /.well-known/ disallowed",
		robots: "User-agent: *\nDisallow: /.well-known/\n",
		tdmrep: jsonFile(`[{"location": "/archive/", "tdm-reservation": 1}]`),
		pages: map[string]optPage{
			"/": {links: []string{"/archive/a", "/open/a"}},
		},
		fetched:        []string{"/", "/open/a"},
		refused:        []string{"/archive/a: tdmrep.json rule 0: /archive/ tdm-reservation 1"},
		fetchedWithout: []string{"/", "/archive/a", "/open/a"},
	},
	{
		name:   "tdmrep.json malformed",
		tdmrep: jsonFile(`[{"location": "/archive/", "tdm-reservation": 1},]`),
		pages: map[string]optPage{
			"/": {links: []string{"/archive/a"}},
		},
		fetched:        []string{"/", "/archive/a"},
		fetchedWithout: []string{"/", "/archive/a"},
	},
	{
		name:   "tdmrep.json unreachable",
		tdmrep: statusOnly(http.StatusServiceUnavailable),
		pages: map[string]optPage{
			"/": {links: []string{"/archive/a"}},
		},
		fetched:        []string{"/", "/archive/a"},
		fetchedWithout: []string{"/", "/archive/a"},
	},
	{
		name: "tdm-reservation header",
		pages: map[string]optPage{
			"/":         {links: []string{"/reserved", "/free"}},
			"/reserved": {headers: []string{"tdm-reservation", "1"}, links: []string{"/behind"}},
			"/free":     {headers: []string{"tdm-reservation", "0"}},
		},
		fetched:        []string{"/", "/free"},
		refused:        []string{"/reserved: tdm-reservation: 1"},
		fetchedWithout: []string{"/", "/behind", "/free", "/reserved"},
	},
	{
		name: "tdm-reservation meta",
		pages: map[string]optPage{
			"/":         {links: []string{"/reserved"}},
			"/reserved": {head: `<meta name="tdm-reservation" content="1">`, links: []string{"/behind"}},
		},
		fetched: []string{"/", "/reserved"},
		refused: []string{
			"/behind: meta tdm-reservation: 1 </reserved",
			"/reserved: meta tdm-reservation: 1",
		},
		fetchedWithout: []string{"/", "/behind", "/reserved"},
	},
	{
		name: "Content-Signal header",
		pages: map[string]optPage{
			"/":       {links: []string{"/signal", "/search"}},
			"/signal": {headers: []string{"Content-Signal", "search=yes, ai-train=no"}, links: []string{"/behind"}},
			"/search": {headers: []string{"Content-Signal", "search=no"}},
		},
		fetched:        []string{"/", "/search"},
		refused:        []string{"/signal: Content-Signal: search=yes, ai-train=no"},
		fetchedWithout: []string{"/", "/behind", "/search", "/signal"},
	},
	{
		name:   "Content-Signal header and robots.txt",
		robots: "User-agent: *\nAllow: /\nContent-Usage: train-ai=y\n",
		pages: map[string]optPage{
			"/":       {links: []string{"/signal"}},
			"/signal": {headers: []string{"Content-Signal", "ai-train=no"}},
		},
		fetched:        []string{"/"},
		refused:        []string{"/signal: Content-Signal: ai-train=no"},
		fetchedWithout: []string{"/", "/signal"},
	},
	{
		name:   "Content-Signal line under a longer Content-Usage yes",
		robots: "User-agent: *\nAllow: /\nContent-Signal: /news/ search=yes, ai-train=no\nContent-Usage: /news/open/ train-ai=y\n",
		pages: map[string]optPage{
			"/": {links: []string{"/news/open/a", "/news/b"}},
		},
		fetched:        []string{"/"},
		refused:        []string{"/news/b: /news/ search=yes, ai-train=no", "/news/open/a: /news/ search=yes, ai-train=no"},
		fetchedWithout: []string{"/", "/news/b", "/news/open/a"},
	},
	{
		name: "noai in X-Robots-Tag",
		pages: map[string]optPage{
			"/":      {links: []string{"/noai", "/other"}},
			"/noai":  {headers: []string{"X-Robots-Tag", "noai"}, links: []string{"/behind"}},
			"/other": {headers: []string{"X-Robots-Tag", "otherbot: noai"}},
		},
		fetched:        []string{"/", "/other"},
		refused:        []string{"/noai: X-Robots-Tag: noai"},
		fetchedWithout: []string{"/", "/behind", "/noai", "/other"},
	},
	{
		name: "noai in meta robots",
		pages: map[string]optPage{
			"/":     {links: []string{"/noai"}},
			"/noai": {head: `<meta name="robots" content="noai">`, links: []string{"/behind"}},
		},
		fetched:        []string{"/", "/noai"},
		refused:        []string{"/behind: meta robots: noai </noai", "/noai: meta robots: noai"},
		fetchedWithout: []string{"/", "/behind", "/noai"},
	},
	{
		name: "noimageai",
		pages: map[string]optPage{
			"/":          {links: []string{"/gallery", "/photo.png"}},
			"/gallery":   {head: `<meta name="robots" content="noimageai">`, links: []string{"/art.png", "/text"}},
			"/art.png":   {ctype: "image/png"},
			"/photo.png": {ctype: "image/png", headers: []string{"X-Robots-Tag", "noimageai"}},
		},
		fetched: []string{"/", "/gallery", "/text"},
		refused: []string{
			"/art.png: meta robots: noimageai </gallery",
			"/photo.png: X-Robots-Tag: noimageai",
		},
		fetchedWithout: []string{"/", "/art.png", "/gallery", "/photo.png", "/text"},
	},
}

// TestOptOutCrawls crawls one site per opt-out mechanism through Colly,
// with and without the purpose, and checks what was fetched and what was
// refused, and why. Run with -v, it prints the table docs/usage-preferences.md
// quotes.
func TestOptOutCrawls(t *testing.T) {
	t.Parallel()
	for _, tc := range optCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			with := crawlOpt(t, tc, WithPurpose(PurposeTrainAI))
			without := crawlOpt(t, tc)
			t.Logf("%s, train-ai: fetched %v; refused %q", tc.name, with.fetched, with.refused)
			t.Logf("%s, no purpose: fetched %v; refused %q", tc.name, without.fetched, without.refused)
			if !slices.Equal(with.fetched, tc.fetched) {
				t.Errorf("train-ai: fetched %v, want %v", with.fetched, tc.fetched)
			}
			if !slices.Equal(with.refused, sorted(tc.refused)) {
				t.Errorf("train-ai: refused %q, want %q", with.refused, sorted(tc.refused))
			}
			if !slices.Equal(without.fetched, tc.fetchedWithout) {
				t.Errorf("no purpose: fetched %v, want %v", without.fetched, tc.fetchedWithout)
			}
			if !slices.Equal(without.refused, sorted(tc.refusedWithout)) {
				t.Errorf("no purpose: refused %q, want %q", without.refused, sorted(tc.refusedWithout))
			}
			// tdmrep.json: once with the purpose (the page requests
			// racing for it wait for one fetch), never without.
			if with.tdmrepHits != 1 || without.tdmrepHits != 0 {
				t.Errorf("tdmrep.json fetched %d times with the purpose, %d without; want 1 and 0", with.tdmrepHits, without.tdmrepHits)
			}
			st := with.ext.Stats()
			if st.TDMRepFetches != 1 || (st.TDMRepMalformed == 1) != strings.Contains(tc.name, "malformed") {
				t.Errorf("train-ai: TDMRepFetches %d, TDMRepMalformed %d", st.TDMRepFetches, st.TDMRepMalformed)
			}
			if got := len(with.refusedPages); got != int(st.UsageMetaRefused) {
				t.Errorf("train-ai: Page.Refused for %v, UsageMetaRefused %d", with.refusedPages, st.UsageMetaRefused)
			}
			if st := without.ext.Stats(); st.TDMRepFetches != 0 || st.UsageRefused+st.UsageWithheld+st.UsageMetaRefused != 0 {
				t.Errorf("no purpose: stats %+v", st)
			}
			if without.refusedPages != nil {
				t.Errorf("no purpose: Page.Refused for %v", without.refusedPages)
			}
		})
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
