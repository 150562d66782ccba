package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUsagePrinted: robotscheck prints the usage preferences of allowed
// URLs, as text and as JSON, and none for disallowed ones.
func TestUsagePrinted(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "robots.txt")
	body := "User-agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: / train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\nContent-Signal: /ai-ok/ search=yes\n"
	if err := os.WriteFile(file, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, _ := runCmd(t, "", "-robots", file, "-ua", "TrainBot", "/test", "/never/x", "/ai-ok/y")
	for _, want := range []string{
		"ALLOWED    /test  allowed by rule, line 2: Allow: /; usage: train-ai=n (Content-Usage line 4)\n",
		"DISALLOWED /never/x  disallowed by rule, line 3: Disallow: /never/\n",
		"ALLOWED    /ai-ok/y  allowed by rule, line 2: Allow: /; usage: search=y (Content-Signal line 6), train-ai=y (Content-Usage line 5)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = runCmd(t, "", "-json", "-robots", file, "-ua", "TrainBot", "/ai-ok/y")
	if want := `"usage":[{"key":"search","preference":"y","source":"Content-Signal line","line":6},{"key":"train-ai","preference":"y","source":"Content-Usage line","line":5}]`; !strings.Contains(out, want) {
		t.Errorf("JSON lacks %s:\n%s", want, out)
	}
}
