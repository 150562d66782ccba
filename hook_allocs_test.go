package robotsext

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
)

// TestHookAllocsWithTimings: the timings behind Stats.PaceWaits and
// Stats.FetchDurations cost the OnRequest hook's fast path no
// allocation (recording a duration allocates nothing: internal/tally's
// TestDurationsAllocs): the hook on a cached origin allocates nothing,
// whether the host is paced (its wait recorded in PaceWaits, on a clock
// the test moves) or not. The counts are logged.
func TestHookAllocsWithTimings(t *testing.T) {
	for _, tt := range []struct {
		name, url string
		paced     bool
		opts      []Option
	}{
		{"unpaced host", "http://bench.test/articles/2024/robots-exclusion.html", false, []Option{WithDefaultDelay(0), quiet()}},
		{"silent host, the default pace", "http://bench.test/articles/2024/robots-exclusion.html", true, nil},
		{"paced host", "http://paced.test/dir/", true, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			clk := &stepClock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
			c := colly.NewCollector(colly.UserAgent("BenchBot/1.0"))
			e := Apply(c, append([]Option{WithHTTPClient(&http.Client{Transport: pacedMemTransport{}}), WithClock(clk.now), withSleep(clk.sleep)}, tt.opts...)...)
			if _, err := e.Check(tt.url); err != nil {
				t.Fatal(err)
			}
			u, err := url.Parse(tt.url)
			if err != nil {
				t.Fatal(err)
			}
			r := &colly.Request{URL: u, Method: http.MethodGet, Headers: &http.Header{}, Ctx: colly.NewContext()}
			e.onRequest(c, r) // the first pace slot, and anything done once
			before := e.Stats().PaceWaits.Count
			n := testing.AllocsPerRun(200, func() { e.onRequest(c, r) })
			if r.IsAbort() {
				t.Fatalf("%s was blocked", tt.url)
			}
			waits := e.Stats().PaceWaits.Count - before
			if tt.paced && waits == 0 {
				t.Errorf("no pace wait recorded: the paced path was not taken")
			}
			if !tt.paced && waits != 0 {
				t.Errorf("%d pace waits recorded for an unpaced host", waits)
			}
			if n != 0 {
				t.Errorf("onRequest: %v allocations per call, want 0", n)
			}
			t.Logf("onRequest on a cached origin (%s): %v allocations per call; %d pace waits recorded", tt.name, n, waits)
		})
	}
}

// pacedMemTransport is memTransport, except that paced.test's robots.txt
// asks for Crawl-delay: 1.
type pacedMemTransport struct{}

func (pacedMemTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := memTransport{}.RoundTrip(req)
	if err == nil && req.URL.Host == "paced.test" && req.URL.Path == "/robots.txt" {
		body := "User-agent: *\nCrawl-delay: 1\n"
		resp.Body = io.NopCloser(strings.NewReader(body))
		resp.ContentLength = int64(len(body))
	}
	return resp, err
}

// TestHookAllocsWithPurpose: with WithPurpose, the OnRequest hook on a
// cached origin allocates nothing when the site states no preference
// (its tdmrep.json an HTML page, as on most sites), whether the path is a
// string of the URL or has to be built, nor when its tdmrep.json has
// rules that do not match (the path then built in a stack buffer).
func TestHookAllocsWithPurpose(t *testing.T) {
	for _, raw := range []string{
		"http://bench.test/articles/2024/robots-exclusion.html",
		"http://bench.test/search?q=robots&page=2",
		"http://rules.test/articles/2024/robots-exclusion.html",
		"http://rules.test/search?q=robots&page=2",
	} {
		c := colly.NewCollector(colly.UserAgent("BenchBot/1.0"))
		// The subject is the purpose's path, not the pace (whose path
		// TestHookAllocsWithTimings covers): WithDefaultDelay(0).
		e := Apply(c, quiet(), WithHTTPClient(&http.Client{Transport: tdmMemTransport{}}), WithPurpose(PurposeTrainAI), WithDefaultDelay(0))
		if v, err := e.Check(raw); err != nil || !v.Allowed {
			t.Fatalf("Check(%s) = %+v, %v", raw, v, err)
		}
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		r := &colly.Request{URL: u, Method: http.MethodGet, Headers: &http.Header{}, Ctx: colly.NewContext()}
		if n := testing.AllocsPerRun(200, func() { e.onRequest(c, r) }); n != 0 || r.IsAbort() {
			t.Errorf("%s: %v allocations per call (aborted %v), want 0", raw, n, r.IsAbort())
		}
	}
}

// tdmMemTransport is memTransport, except that rules.test's tdmrep.json
// reserves /archive/.
type tdmMemTransport struct{}

func (tdmMemTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := memTransport{}.RoundTrip(req)
	if err == nil && req.URL.Host == "rules.test" && req.URL.Path == "/.well-known/tdmrep.json" {
		body := `[{"location": "/archive/", "tdm-reservation": 1}]`
		resp.Header = http.Header{"Content-Type": {"application/json"}}
		resp.Body = io.NopCloser(strings.NewReader(body))
		resp.ContentLength = int64(len(body))
	}
	return resp, err
}
