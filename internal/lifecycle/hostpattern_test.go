package lifecycle

import (
	"strings"
	"testing"
)

// TestHostPatterns checks which patterns are refused, and which origins
// the others cover.
func TestHostPatterns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		bad     bool
		covers  []string // origins covered
		not     []string // origins not covered
	}{
		{"Example.ORG", false, []string{"http://example.org", "https://example.org:8443"}, []string{"http://www.example.org", "http://example.org.evil"}},
		{"*.example.org", false, []string{"http://a.example.org", "https://a.b.example.org"}, []string{"http://example.org", "http://aexample.org"}},
		{"example.org:8080", false, []string{"http://example.org:8080"}, []string{"http://example.org", "https://example.org"}},
		{"example.org:443", false, []string{"https://example.org"}, []string{"http://example.org"}},
		{"[::1]:80", false, []string{"http://[::1]"}, []string{"http://[::1]:8080"}},
		{"", true, nil, nil},
		{"*.org", true, nil, nil},
		{"http://example.org", true, nil, nil},
		{"a*.example.org", true, nil, nil},
		{"example.org/path", true, nil, nil},
		{"[fe80::1%25eth0]", true, nil, nil},
		{"bücher.example", true, nil, nil},
		{"example.org:x", true, nil, nil},
		{"*.[::1]", true, nil, nil},
		{".example.org", true, nil, nil},
	}
	origin := func(s string) Origin {
		if rest, ok := strings.CutPrefix(s, "https://"); ok {
			return Origin{HTTPS: true, Host: rest}
		}
		rest, _ := strings.CutPrefix(s, "http://")
		return Origin{Host: rest}
	}
	for _, tt := range tests {
		p, why := ParseHostPattern(tt.pattern)
		if (why != "") != tt.bad {
			t.Errorf("ParseHostPattern(%q): why %q, want refused: %v", tt.pattern, why, tt.bad)
			continue
		}
		for _, o := range tt.covers {
			if !Covers([]HostPattern{p}, origin(o)) {
				t.Errorf("%q does not cover %s", tt.pattern, o)
			}
		}
		for _, o := range tt.not {
			if Covers([]HostPattern{p}, origin(o)) {
				t.Errorf("%q covers %s", tt.pattern, o)
			}
		}
	}
	if Covers(nil, origin("http://example.org")) {
		t.Error("no pattern covers an origin")
	}
}
