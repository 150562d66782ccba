package robotsext

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
)

// TestReadSitemapsRefusals: a sitemap refused is reported as a page is
// (OnBlocked with its Verdict, Stats.Blocked) and yielded as an error
// wrapping ErrSitemapNotFetched and, for a robots.txt or back-off
// refusal, ErrBlocked with the Verdict (a *BlockedError, RetryAt for the
// back-off); in shadow mode the refusal is reported and the sitemap read.
func TestReadSitemapsRefusals(t *testing.T) {
	t.Parallel()
	var srv *httptest.Server
	var mu sync.Mutex
	sent := map[string]int{}
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sent[r.URL.Path]++
		mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			if strings.HasPrefix(r.Host, "localhost") {
				w.WriteHeader(http.StatusServiceUnavailable) // the same server under another host: its robots.txt is down
				return
			}
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		case "/private/s.xml", "/s.xml":
			fmt.Fprintf(w, "<urlset><url><loc>http://%s/private/page</loc></url></urlset>", r.Host)
		case "/redirect.xml":
			http.Redirect(w, r, "/private/s.xml", http.StatusFound)
		case "/busy.xml":
			w.Header().Set("Retry-After", "3600")
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	local := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	for _, tc := range []struct {
		name    string
		shadow  bool
		urls    []string // read in turn; the last one's stream is checked
		entries int
		errs    []error // each must wrap these
		reason  Reason  // the Verdict carried and reported
		blocked int     // OnBlocked calls
		private int     // requests for /private/s.xml
	}{
		{name: "disallowed", urls: []string{srv.URL + "/private/s.xml"}, errs: []error{ErrSitemapNotFetched, ErrBlocked}, reason: ReasonDisallowRule, blocked: 1},
		{name: "disallowed, shadow mode", shadow: true, urls: []string{srv.URL + "/private/s.xml"}, entries: 1, reason: ReasonDisallowRule, blocked: 1, private: 1},
		{name: "redirect to a disallowed URL", urls: []string{srv.URL + "/redirect.xml"}, errs: []error{ErrSitemapNotFetched, ErrBlocked}, reason: ReasonDisallowRule, blocked: 1},
		{name: "robots.txt answers 503", urls: []string{local + "/s.xml"}, errs: []error{ErrSitemapNotFetched, ErrBlocked}, reason: ReasonUnreachable, blocked: 1},
		{name: "host backing off", urls: []string{srv.URL + "/busy.xml", srv.URL + "/s.xml"}, errs: []error{ErrSitemapNotFetched, ErrBlocked}, reason: ReasonBackoff, blocked: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			clear(sent)
			mu.Unlock()
			opts := []Option{WithLogger(slog.New(slog.DiscardHandler)), WithBackoffWait(time.Second)}
			if tc.shadow {
				opts = append(opts, WithShadowMode())
			}
			e := Apply(colly.NewCollector(), opts...)
			var reported []Verdict
			e.OnBlocked(func(r *colly.Request, v Verdict) {
				if r == nil || r.URL == nil {
					t.Errorf("OnBlocked without the sitemap's request")
				}
				reported = append(reported, v)
			})
			var locs []string
			var errs []error
			for _, u := range tc.urls {
				locs, errs = readSitemaps(e, u)
			}
			if len(locs) != tc.entries {
				t.Errorf("entries %v, want %d", locs, tc.entries)
			}
			if len(errs) != len(tc.errs[:min(len(tc.errs), 1)]) {
				t.Fatalf("errors %v", errs)
			}
			for _, err := range errs {
				for _, want := range tc.errs {
					if !errors.Is(err, want) {
						t.Errorf("error %v does not wrap %v", err, want)
					}
				}
				var be *BlockedError
				if !errors.As(err, &be) || be.Verdict.Reason != tc.reason || tc.reason == ReasonBackoff && be.Verdict.RetryAt.IsZero() {
					t.Errorf("error %v carries no Verdict of reason %v (and RetryAt for a back-off)", err, tc.reason)
				}
			}
			if len(reported) != tc.blocked || len(reported) > 0 && reported[0].Reason != tc.reason {
				t.Errorf("OnBlocked got %+v, want %d of reason %v", reported, tc.blocked, tc.reason)
			}
			st := e.Stats()
			if st.Blocked[tc.reason] != uint64(tc.blocked) || tc.shadow && st.Shadowed != 1 {
				t.Errorf("Stats.Blocked %v, Shadowed %d", st.Blocked, st.Shadowed)
			}
			mu.Lock()
			defer mu.Unlock()
			if sent["/private/s.xml"] != tc.private {
				t.Errorf("/private/s.xml requested %d times, want %d", sent["/private/s.xml"], tc.private)
			}
		})
	}
}
