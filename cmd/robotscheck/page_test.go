package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestPage: -page fetches allowed URLs and prints their directives for the
// agent, in text and JSON; disallowed URLs are not fetched.
func TestPage(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var fetched []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\nCrawl-delay: 0.01\n") // -page keeps the pace; not the subject
			return
		case "/nofollow":
			w.Header().Add("X-Robots-Tag", "otherbot: noindex")
			w.Header().Add("X-Robots-Tag", "demobot: nofollow")
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><head><meta name="robots" content="noarchive, unavailable_after: 25 Jun 2027 15:00:00 PST"></head><body></body></html>`)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><head><title>plain</title></head></html>")
		}
		mu.Lock()
		fetched = append(fetched, r.URL.Path)
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)

	out, errOut, code := runCmd(t, "", "-ua", "DemoBot", "-page", srv.URL+"/nofollow", srv.URL+"/plain", srv.URL+"/private/x")
	if code != exitDisallowed {
		t.Errorf("exit %d, want %d; stderr %s", code, exitDisallowed, errOut)
	}
	for _, want := range []string{
		"page: HTTP 200; directives for DemoBot: nofollow, noarchive, unavailable_after:2027-06-25T23:00:00Z (links refused by a collector: X-Robots-Tag: demobot: nofollow)",
		"page: HTTP 200; directives for DemoBot: none stated",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	mu.Lock()
	seen := strings.Join(fetched, " ")
	mu.Unlock()
	if strings.Contains(seen, "/private") {
		t.Errorf("a disallowed page was fetched: %v", seen)
	}

	out, _, _ = runCmd(t, "", "-json", "-ua", "DemoBot", "-page", srv.URL+"/nofollow")
	var res struct {
		Page *pageResult `json:"page"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Page == nil {
		t.Fatalf("JSON %q: %v", out, err)
	}
	if !res.Page.NoFollow || res.Page.NoIndex || res.Page.UnavailableAfter != "2027-06-25T23:00:00Z" {
		t.Errorf("page = %+v", *res.Page)
	}

	if _, errOut, code := runCmd(t, "", "-page", "-robots", "x", "/a"); code != exitError || !strings.Contains(errOut, "-page") {
		t.Errorf("-page with -robots: exit %d, stderr %q", code, errOut)
	}
}
