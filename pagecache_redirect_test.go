package robotsext

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/gocolly/colly/v2"
)

// TestPageCacheCachedRedirect: a redirect the page cache serves (a fresh
// 301 or 308) is followed, its hop paced, and the host's claim that hop
// took ends with its response, so the next page waits one Crawl-delay,
// not the two minutes a claim is kept when its end is never seen.
// Stats().Responses counts what the site sent (the target's 200, the next
// page's), not the cached redirect. Before: the request was still marked
// as answered locally when its hop's response came, the hop's claim never
// ended, the next page hung (2m0.5s with Crawl-delay 0.5; here until the
// crawl's 30 s context ended), and Responses said 3xx:1 without the 200.
func TestPageCacheCachedRedirect(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name        string
		status      int
		targetFresh bool // the target is itself a fresh hit in run 2
		async       bool // Async with a LimitRule
	}{
		{"301", http.StatusMovedPermanently, false, false},
		{"308", http.StatusPermanentRedirect, false, false},
		{"301 to a fresh target", http.StatusMovedPermanently, true, false},
		{"301, Async with a LimitRule", http.StatusMovedPermanently, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newCaseSite(t, func(w http.ResponseWriter, r *http.Request) {
				switch r.URL.Path {
				case "/old":
					w.Header().Set("Cache-Control", "max-age=86400")
					w.Header().Set("Location", "/new")
					w.WriteHeader(tt.status)
					return
				case "/new":
					if tt.targetFresh {
						w.Header().Set("Cache-Control", "max-age=86400")
					} else {
						w.Header().Set("Cache-Control", "no-cache")
					}
				}
				fmt.Fprint(w, "page", r.URL.Path)
			}, "0.5")
			dir := t.TempDir()
			crawlCase(t, s, dir, visit(s.URL+"/old"))
			run := crawlCase(t, s, dir, func(c *colly.Collector, e *Extension) {
				if tt.async {
					c.Async = true
					_ = c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 2})
				}
				_ = c.Visit(s.URL + "/old")
				c.Wait()
				_ = c.Visit(s.URL + "/other")
			})
			sent, wantSent := run.ext.Stats().Responses, int64(2)
			if tt.targetFresh {
				wantSent = 1
			}
			if len(run.got) != 2 || len(run.errs) != 0 || run.requests != wantSent {
				t.Errorf("callbacks got %q, errors %q, %d requests; want /new and /other, no error, %d requests", run.got, run.errs, run.requests, wantSent)
			}
			if sent[Status3xx] != 0 || int64(sent[Status2xx]) != wantSent {
				t.Errorf("Stats().Responses %v; want %d 2xx, no 3xx (the 301 was served from the cache)", sent, wantSent)
			}
			if run.moved >= time.Minute {
				t.Errorf("the run's pace waited %v, want about one Crawl-delay", run.moved)
			}
		})
	}
}
