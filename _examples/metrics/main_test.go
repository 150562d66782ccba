package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestRun runs the example and checks the lines it prints: the values
// that follow from the demo sites, sorted, with no timing in them.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")[1:] // after the heading
	if !slices.IsSorted(lines) {
		t.Error("lines not sorted")
	}
	tests := []struct {
		line string
		why  string
	}{
		{`robotsext_robotstxt_fetches_total{outcome="ok"} 1`, "the shop's robots.txt"},
		{`robotsext_robotstxt_fetches_total{outcome="unavailable"} 1`, "the blog has none (404)"},
		{`robotsext_checks_total 9`, "7 pages fetched, 2 refused"},
		{`robotsext_allowed_total{reason="no_match"} 3`, "the shop's /, /products/1, /products/2"},
		{`robotsext_allowed_total{reason="allow_rule"} 1`, "the shop's /account/help"},
		{`robotsext_allowed_total{reason="unavailable"} 3`, "the blog's three pages"},
		{`robotsext_blocked_total{reason="disallow_rule"} 2`, "the shop's /cart and /account/orders"},
		{`robotsext_cache_origins 2`, "the shop and the blog"},
		{`robotsext_pace_wait_seconds_count 7`, "the shop's four pages, paced by its Crawl-delay, and the blog's three, by the default pace"},
		{`robotsext_responses_total{class="2xx"} 7`, "the seven pages fetched"},
		{`robotsext_robotstxt_fetch_duration_seconds_count 2`, "two robots.txt fetches"},
	}
	for _, tt := range tests {
		if !slices.Contains(lines, tt.line) {
			t.Errorf("no line %s (%s)", tt.line, tt.why)
		}
	}
	for _, line := range lines {
		if !strings.HasPrefix(line, "robotsext_") || strings.Contains(line, "_bucket") || strings.Contains(line, "_seconds_sum") {
			t.Errorf("line %q should not be printed", line)
		}
	}
}
