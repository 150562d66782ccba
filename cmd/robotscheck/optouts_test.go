package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// optoutSite serves a robots.txt with a Content-Signal line under a
// longer Content-Usage line, a tdmrep.json reserving /archive/, and a page
// reserved by its meta tag, which also sends a Content-Signal header.
func optoutSite(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\nContent-Signal: /news/ search=yes, ai-train=no\nContent-Usage: /news/open/ train-ai=y\nCrawl-delay: 0.01\n") // -page keeps the pace; not the subject
		case "/.well-known/tdmrep.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `[{"location": "/archive/", "tdm-reservation": 1, "tdm-policy": "https://example.com/policy"}]`)
		case "/page":
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Signal", "search=yes")
			fmt.Fprint(w, `<html><head><meta name="tdm-reservation" content="1"><meta name="robots" content="noimageai"></head></html>`)
		default:
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<html><head><title>plain</title></head></html>")
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestPurpose: -purpose decides as a collector declaring the purposes:
// robots.txt's usage lines and the origin's tdmrep.json, every statement
// shown when one overrules another.
func TestPurpose(t *testing.T) {
	t.Parallel()
	srv := optoutSite(t)
	out, errOut, code := runCmd(t, "", "-ua", "TrainBot", "-purpose", "train-ai", "-page",
		srv.URL+"/news/open/a", srv.URL+"/archive/a", srv.URL+"/page")
	if code != exitDisallowed {
		t.Errorf("exit %d, want %d; stderr %s", code, exitDisallowed, errOut)
	}
	t.Log("\n" + out)
	for _, want := range []string{
		"DISALLOWED " + srv.URL + "/news/open/a  usage preferences refuse every declared purpose, line 3: Content-Signal: /news/ search=yes, ai-train=no; " +
			"usage: search=y (Content-Signal line 3), train-ai=n (Content-Signal line 3) " +
			"(every statement: search=y (Content-Signal line 3), train-ai=y (Content-Usage line 4), train-ai=n (Content-Signal line 3))\n",
		"DISALLOWED " + srv.URL + "/archive/a  usage preferences refuse every declared purpose: tdmrep.json rule 0: /archive/ tdm-reservation 1; usage: train-ai=n (tdmrep.json rule 0)\n",
		"ALLOWED    " + srv.URL + "/page  allowed by rule, line 2: Allow: /\n",
		"           page usage: search=y (Content-Signal header), train-ai=n (tdm-reservation meta) (refused for every purpose: its links are refused)\n",
		"           page tdm-reservation: 1 (tdm-reservation meta)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = runCmd(t, "", "-json", "-ua", "TrainBot", "-purpose", "train-ai", srv.URL+"/news/open/a")
	if want := `"usage_statements":[{"key":"search","preference":"y","source":"Content-Signal line","line":3},{"key":"train-ai","preference":"y","source":"Content-Usage line","line":4},{"key":"train-ai","preference":"n","source":"Content-Signal line","line":3}]`; !strings.Contains(out, want) {
		t.Errorf("JSON lacks %s:\n%s", want, out)
	}
	// Without -purpose nothing is refused and tdmrep.json is not read.
	out, _, code = runCmd(t, "", "-ua", "TrainBot", srv.URL+"/archive/a")
	if code != exitAllowed || strings.Contains(out, "tdmrep") {
		t.Errorf("without -purpose: exit %d:\n%s", code, out)
	}
	if _, errOut, code := runCmd(t, "", "-purpose", "Train-AI", srv.URL+"/"); code != exitError || !strings.Contains(errOut, "-purpose") {
		t.Errorf("-purpose Train-AI: exit %d, %s", code, errOut)
	}
}
