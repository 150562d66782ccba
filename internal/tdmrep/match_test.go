package tdmrep

import (
	"testing"
	"unsafe"
)

func TestPatternMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, loc, path string
		want            bool
	}{
		{"prefix", "/docs/", "/docs/a.html", true},
		{"prefix itself", "/docs/", "/docs/", true},
		{"prefix shorter path", "/docs/", "/docs", false},
		{"root matches all", "/", "/anything?q=1", true},
		{"case sensitive", "/Docs/", "/docs/a", false},
		{"query is part of the path", "/list?page=", "/list?page=2", true},
		{"query not matched by anchored", "/*.png$", "/cat.png?size=2", false},
		{"query matched without anchor", "/*.png", "/cat.png?size=2", true},
		{"anchored exact", "/exact$", "/exact", true},
		{"anchored longer", "/exact$", "/exactly", false},
		{"anchored root only", "/$", "/", true},
		{"anchored root not deeper", "/$", "/a", false},
		{"star middle", "/a/*/c", "/a/b/c", true},
		{"star middle empty run", "/a/*/c", "/a//c", true},
		{"star middle needs piece", "/a/*/c", "/a/b/d", false},
		{"star at start", "*.pdf", "/x/y.pdf", true},
		{"star at start not found", "*.pdf", "/x/y.doc", false},
		{"only star", "*", "/", true},
		{"star dollar", "/a*$", "/a/any", true},
		{"many stars in order", "/*a*b*c", "/xaybzc", true},
		{"many stars out of order", "/*a*b*c", "/cba", false},
		{"double star", "/a**b", "/a-b", true},
		{"tail leftmost piece", "/*ab*ab", "/abab", true},
		{"anchored tail after pieces", "/*x*.gz$", "/x.gz", true},
		{"anchored tail may not overlap", "/*ab*b$", "/ab", false},
		{"dollar in middle literal", "/a$b", "/a$b/c", true},
		{"dollar in middle not anchor", "/a$b", "/ab", false},
		{"double dollar", "/a$$", "/a$", true},
		{"escaped dollar is not the character", "/foo-%24", "/foo-$", false},
		{"escaped dollar matches its escape", "/foo-%24", "/foo-%24", true},
		{"literal dollar before star", "/foo-$*", "/foo-$", true},
		{"non-ascii location encoded", "/caf\u00e9", "/caf%C3%A9", true},
		{"lower-case escape upper-cased", "/caf%c3%a9", "/caf%C3%A9", true},
		{"path escape not decoded", "/a%2Fb", "/a/b", false},
		{"unreserved not decoded", "/%7Ejoe", "/~joe", false},
		{"path lower-case escape not folded", "/a%3C", "/a%3c", false},
		{"bad escape kept", "/a%zz", "/a%zz", true},
		{"short escape kept", "/a%4", "/a%4", true},
		{"empty path", "/", "", false},
	}
	for _, tc := range tests {
		p := compile(tc.loc)
		if got := p.match(tc.path); got != tc.want {
			t.Errorf("%s: %q matching %q = %v; want %v", tc.name, tc.loc, tc.path, got, tc.want)
		}
	}
}

func TestNormalise(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"/plain", "/plain"},
		{"/caf\u00e9", "/caf%C3%A9"},
		{"/a%2fb", "/a%2Fb"},
		{"/a%2Fb", "/a%2Fb"},
		{"/a%zz%e9", "/a%zz%E9"},
		{"/\xff", "/%FF"},
		{"/%", "/%"},
		{"/%a", "/%a"},
	}
	for _, tc := range tests {
		if got := normalise(tc.in); got != tc.want {
			t.Errorf("normalise(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
	// Nothing to change: the same string, no copy.
	s := "/nothing/to/change"
	if got := normalise(s); unsafe.StringData(got) != unsafe.StringData(s) {
		t.Errorf("normalise(%q) made a copy", s)
	}
}
