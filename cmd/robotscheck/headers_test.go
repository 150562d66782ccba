package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// headerSite serves pages whose headers state usage preferences, under a
// robots.txt allowing everything with a Crawl-delay of delay, and records
// when each page request arrived.
type headerSite struct {
	*httptest.Server
	mu    sync.Mutex
	times map[string][]time.Time // path → arrivals
	order []string
}

func newHeaderSite(t *testing.T, delay string) *headerSite {
	t.Helper()
	s := &headerSite{times: map[string][]time.Time{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.times[r.URL.Path] = append(s.times[r.URL.Path], time.Now())
		s.order = append(s.order, r.URL.Path)
		s.mu.Unlock()
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprintf(w, "User-agent: *\nAllow: /\nCrawl-delay: %s\n", delay)
			return
		case "/.well-known/tdmrep.json":
			http.NotFound(w, r)
			return
		case "/signal":
			w.Header().Set("Content-Signal", "search=yes, ai-train=no")
		case "/tdm":
			w.Header().Set("tdm-reservation", "1")
		case "/noai":
			w.Header().Set("X-Robots-Tag", "noai")
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><head><title>page</title></head><body>a page</body></html>")
	}))
	t.Cleanup(s.Close)
	return s
}

// pageTimes returns the arrivals of every request but tdmrep.json's, in
// order.
func (s *headerSite) arrivals() (paths []string, at []time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[string]int{}
	for _, p := range s.order {
		if p == "/.well-known/tdmrep.json" {
			continue
		}
		paths = append(paths, p)
		at = append(at, s.times[p][seen[p]])
		seen[p]++
	}
	return paths, at
}

// TestPageRefusedAtHeaders: with -purpose and -page, a page a collector
// declaring the purpose aborts at its headers is DISALLOWED (exit 1,
// "allowed": false in JSON) with the header and value that decided, as a
// robots.txt refusal is; without -purpose it is allowed. A page whose
// headers say nothing is allowed either way.
func TestPageRefusedAtHeaders(t *testing.T) {
	t.Parallel()
	s := newHeaderSite(t, "0.01") // the pace is not the subject here
	tests := []struct {
		path string
		rule string // the header and value that decided; "" : allowed
	}{
		{"/signal", "Content-Signal: search=yes, ai-train=no"},
		{"/tdm", "tdm-reservation: 1"},
		{"/noai", "X-Robots-Tag: noai"},
		{"/plain", ""},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			raw := s.URL + tt.path
			out, errOut, code := runCmd(t, "", "-ua", "TrainBot", "-purpose", "train-ai", "-page", raw)
			t.Log("\n" + out)
			wantCode := exitDisallowed
			if tt.rule == "" {
				wantCode = exitAllowed
			}
			if code != wantCode {
				t.Errorf("exit %d, want %d; stderr %s", code, wantCode, errOut)
			}
			if tt.rule != "" {
				want := "DISALLOWED " + raw + "  usage preferences refuse every declared purpose: "
				if !strings.Contains(out, want) || !strings.Contains(out, tt.rule) {
					t.Errorf("output lacks %q and %q", want, tt.rule)
				}
				if !strings.Contains(out, "a collector aborts the page at its headers") {
					t.Errorf("the page line does not say the page is aborted at its headers")
				}
			} else if !strings.Contains(out, "ALLOWED    "+raw) {
				t.Errorf("output lacks ALLOWED %s", raw)
			}

			out, _, code = runCmd(t, "", "-json", "-ua", "TrainBot", "-purpose", "train-ai", "-page", raw)
			var res struct {
				Allowed bool        `json:"allowed"`
				Reason  string      `json:"reason"`
				Rule    string      `json:"rule"`
				Page    *pageResult `json:"page"`
			}
			if err := json.Unmarshal([]byte(out), &res); err != nil {
				t.Fatalf("JSON %q: %v", out, err)
			}
			if res.Allowed != (tt.rule == "") || code != wantCode || tt.rule != "" && (!strings.Contains(res.Rule, tt.rule) || res.Page == nil || !res.Page.AbortedAtHeaders) {
				t.Errorf("JSON %s (exit %d)", out, code)
			}

			// Without -purpose, the crawl declares nothing: the page is
			// fetched and allowed.
			out, _, code = runCmd(t, "", "-ua", "TrainBot", "-page", raw)
			if code != exitAllowed || !strings.Contains(out, "ALLOWED    "+raw) {
				t.Errorf("without -purpose: exit %d:\n%s", code, out)
			}
		})
	}
}

// TestPagePace: -page fetches the pages of one host at the pace its
// header announces, as a collector does: each request starts at least
// Crawl-delay after the one before, robots.txt included.
func TestPagePace(t *testing.T) {
	t.Parallel()
	s := newHeaderSite(t, "0.2")
	out, errOut, code := runCmd(t, "", "-ua", "TrainBot", "-purpose", "train-ai", "-page", s.URL+"/a", s.URL+"/signal", s.URL+"/b")
	if code != exitDisallowed {
		t.Errorf("exit %d; stderr %s", code, errOut)
	}
	if !strings.Contains(out, "# crawl-delay for TrainBot: 200ms") {
		t.Errorf("the header does not announce the pace:\n%s", out)
	}
	paths, at := s.arrivals()
	t.Logf("the server saw %v", paths)
	// The pace counts from the Extension's robots.txt request, the
	// last one (the report fetches its own first).
	last := 0
	for i, p := range paths {
		if p == "/robots.txt" {
			last = i
		}
	}
	pages, pageAt := paths[last:], at[last:]
	if strings.Join(pages, " ") != "/robots.txt /a /signal /b" {
		t.Fatalf("the server saw %v", paths)
	}
	for i := 1; i < len(pageAt); i++ {
		if gap := pageAt[i].Sub(pageAt[i-1]); gap < 200*time.Millisecond {
			t.Errorf("%s came %v after %s: the 200ms pace was not kept (%v)", pages[i], gap, pages[i-1], paths)
		} else {
			t.Logf("%s %v after %s", pages[i], gap.Round(time.Millisecond), pages[i-1])
		}
	}
}
