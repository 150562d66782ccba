package robotsext

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/gocolly/colly/v2"
)

// usageRobots is the demo site's robots.txt: the attach draft's shape with
// a members area that is not for training and an area that is.
const usageRobots = `User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: /members/ train-ai=n
Content-Usage: /ai-ok/ train-ai=y
Content-Signal: /news/ ai-train=no, search=yes
`

// newUsageSite serves usageRobots and a home page linking to every case;
// /header-no answers with "Content-Usage: train-ai=n" and links on to
// /behind-header-no.
func newUsageSite(t *testing.T) *site {
	s := newSite(t, robotsTxt(usageRobots))
	s.route("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><body>
<a href="/members/a">members</a> <a href="/ai-ok/b">ok</a> <a href="/never/c">never</a>
<a href="/news/d">news</a> <a href="/header-no">header</a> <a href="/header-yes">header yes</a> <a href="/plain">plain</a>
</body></html>`)
	})
	s.route("/header-no", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Usage", "train-ai=n")
		fmt.Fprint(w, `<html><body><a href="/behind-header-no">more</a></body></html>`)
	})
	s.route("/header-yes", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Usage", "train-ai=y")
		fmt.Fprint(w, `<html><body>yes</body></html>`)
	})
	return s
}

// usageCrawl crawls the demo site from its home page, following links,
// and returns the pages OnResponse saw, the refusals and the Extension.
func usageCrawl(t *testing.T, s *site, opts ...Option) (pages []string, blocked *blockLog, errs []error, e *Extension) {
	t.Helper()
	c := colly.NewCollector(colly.UserAgent("TrainBot/1.0"))
	e = Apply(c, append([]Option{WithDefaultDelay(0)}, opts...)...) // the subject is usage, not the pace
	blocked = new(blockLog)
	e.OnBlocked(blocked.record)
	var mu sync.Mutex
	c.OnResponse(func(r *colly.Response) {
		mu.Lock()
		pages = append(pages, r.Request.URL.Path)
		mu.Unlock()
	})
	c.OnHTML("a[href]", func(el *colly.HTMLElement) { _ = el.Request.Visit(el.Attr("href")) })
	c.OnError(func(_ *colly.Response, err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	})
	if err := c.Visit(s.URL + "/"); err != nil {
		t.Fatal(err)
	}
	c.Wait()
	slices.Sort(pages)
	return pages, blocked, errs, e
}

func TestUsageCrawlTrainAI(t *testing.T) {
	t.Parallel()
	s := newUsageSite(t)
	pages, blocked, errs, e := usageCrawl(t, s, WithPurpose(PurposeTrainAI))

	if want := []string{"/", "/ai-ok/b", "/header-yes", "/plain"}; !slices.Equal(pages, want) {
		t.Errorf("OnResponse saw %q, want %q", pages, want)
	}
	// /header-no reached the server (its headers were needed) but its
	// links were not followed; /members/ and /news/ never left the
	// crawler. The origin's tdmrep.json was read once (it answers 404).
	if want := []string{"GET /", "GET /.well-known/tdmrep.json", "GET /ai-ok/b", "GET /header-no", "GET /header-yes", "GET /plain"}; !slices.Equal(s.seen(), want) {
		t.Errorf("server saw %q, want %q", s.seen(), want)
	}
	urls, vs := blocked.get()
	got := map[string]Verdict{}
	for i, u := range urls {
		got[u] = vs[i]
	}
	if v := got["GET /members/a"]; v.Reason != ReasonUsage || v.Line != 4 || v.Rule != "/members/ train-ai=n" || v.Usage.For(PurposeTrainAI) != PreferenceNo {
		t.Errorf("/members/a: %+v", v)
	}
	if v := got["GET /news/d"]; v.Reason != ReasonUsage || v.Line != 6 || v.Usage.String() != "search=y (Content-Signal line 6), train-ai=n (Content-Signal line 6)" {
		t.Errorf("/news/d: %+v", v)
	}
	if v := got["GET /never/c"]; v.Reason != ReasonDisallowRule || v.Line != 3 || !v.Usage.IsZero() {
		t.Errorf("/never/c: %+v", v)
	}
	if v := got["GET /header-no"]; v.Reason != ReasonUsage || v.Line != 0 || v.Rule != "Content-Usage: train-ai=n" ||
		v.Usage.Lookup("train-ai") != (UsageStatement{Key: "train-ai", Preference: PreferenceNo, Source: SourceHeader}) {
		t.Errorf("/header-no: %+v", v)
	}
	if len(urls) != 4 {
		t.Errorf("OnBlocked got %q, want 4 refusals", urls)
	}
	if len(errs) != 1 || !errors.Is(errs[0], colly.ErrAbortedAfterHeaders) {
		t.Errorf("OnError got %v, want the one abort at the headers", errs)
	}
	st := e.Stats()
	if st.UsageRefused != 2 || st.UsageWithheld != 1 || st.Blocked[ReasonUsage] != 2 || st.Blocked[ReasonDisallowRule] != 1 {
		t.Errorf("stats: refused %d withheld %d blocked %v", st.UsageRefused, st.UsageWithheld, st.Blocked)
	}
}

// TestUsageCrawlSeveralPurposes: a URL is refused only when every declared
// purpose is refused; "no statement" never refuses.
func TestUsageCrawlSeveralPurposes(t *testing.T) {
	t.Parallel()
	s := newUsageSite(t)
	pages, blocked, _, _ := usageCrawl(t, s, WithPurpose(PurposeTrainAI, PurposeSearch))
	// /news/ says search=yes, /members/ says nothing about search, and
	// the header says nothing about it either: only Disallow refuses.
	want := []string{"/", "/ai-ok/b", "/behind-header-no", "/header-no", "/header-yes", "/members/a", "/news/d", "/plain"}
	if !slices.Equal(pages, want) {
		t.Errorf("OnResponse saw %q, want %q", pages, want)
	}
	if urls, _ := blocked.get(); !slices.Equal(urls, []string{"GET /never/c"}) {
		t.Errorf("OnBlocked got %q", urls)
	}
}

// TestUsageCrawlWithoutPurpose: without WithPurpose nothing changes.
func TestUsageCrawlWithoutPurpose(t *testing.T) {
	t.Parallel()
	s := newUsageSite(t)
	pages, blocked, errs, e := usageCrawl(t, s)
	want := []string{"/", "/ai-ok/b", "/behind-header-no", "/header-no", "/header-yes", "/members/a", "/news/d", "/plain"}
	if !slices.Equal(pages, want) {
		t.Errorf("OnResponse saw %q, want %q", pages, want)
	}
	if urls, _ := blocked.get(); !slices.Equal(urls, []string{"GET /never/c"}) {
		t.Errorf("OnBlocked got %q", urls)
	}
	if len(errs) != 0 {
		t.Errorf("OnError got %v", errs)
	}
	// Check still reports the preferences.
	v, err := e.Check(s.URL + "/members/x")
	if err != nil || !v.Allowed || v.Usage.String() != "train-ai=n (Content-Usage line 4)" {
		t.Errorf("Check = %+v, %v", v, err)
	}
}

// TestUsageShadowMode: in shadow mode refusals are reported, not enforced.
func TestUsageShadowMode(t *testing.T) {
	t.Parallel()
	s := newUsageSite(t)
	pages, blocked, _, e := usageCrawl(t, s, WithPurpose(PurposeTrainAI), WithShadowMode())
	want := []string{"/", "/ai-ok/b", "/behind-header-no", "/header-no", "/header-yes", "/members/a", "/never/c", "/news/d", "/plain"}
	if !slices.Equal(pages, want) {
		t.Errorf("OnResponse saw %q, want %q", pages, want)
	}
	if urls, _ := blocked.get(); len(urls) != 4 {
		t.Errorf("OnBlocked got %q, want 4", urls)
	}
	if st := e.Stats(); st.UsageWithheld != 0 {
		t.Errorf("UsageWithheld = %d in shadow mode", st.UsageWithheld)
	}
}

// TestPageUsage: Page(resp).Usage, read from OnResponse, is robots.txt's
// preferences for the page merged with its Content-Usage header.
func TestPageUsage(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	s := newUsageSite(t)
	c := colly.NewCollector(colly.UserAgent("TrainBot/1.0"))
	e := Apply(c, WithDefaultDelay(0))
	var mu sync.Mutex
	got := map[string]string{}
	c.OnResponse(func(r *colly.Response) {
		mu.Lock()
		got[r.Request.URL.Path] = e.Page(r).Usage.String()
		mu.Unlock()
	})
	for _, p := range []string{"/members/a", "/header-no", "/header-yes", "/plain"} {
		_ = c.Visit(s.URL + p)
	}
	c.Wait()
	want := map[string]string{
		"/members/a":  "train-ai=n (Content-Usage line 4)",
		"/header-no":  "train-ai=n (Content-Usage header)",
		"/header-yes": "train-ai=y (Content-Usage header)",
		"/plain":      "no statement",
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("Page(%s).Usage = %q, want %q", p, got[p], w)
		}
	}
}
