package sitemap

import (
	"net/url"
	"reflect"
	"testing"
)

func TestRoots(t *testing.T) {
	t.Parallel()
	named := []string{"https://ex.com/sitemap.xml", "https://cdn.ex.net/ex.xml"}
	for _, tc := range []struct {
		in   string
		want []Root
	}{
		{"https://ex.com", []Root{{URL: named[0], NamedBy: "https://ex.com"}, {URL: named[1], NamedBy: "https://ex.com"}}},
		{"https://EX.com:443/", []Root{{URL: named[0], NamedBy: "https://ex.com"}, {URL: named[1], NamedBy: "https://ex.com"}}},
		{"https://ex.com/sitemap.xml", []Root{{URL: named[0], NamedBy: "https://ex.com"}}}, // named: a cross-submission
		{"https://ex.com/other.xml", []Root{{URL: "https://ex.com/other.xml"}}},            // not named: its own directory only
	} {
		u, _ := url.Parse(tc.in)
		if got := Roots(u, named); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Roots(%s) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
	// A site whose robots.txt names none: the conventional /sitemap.xml,
	// whose absence is then an error, not a silent empty stream.
	u, _ := url.Parse("https://EX.com/")
	if got, want := Roots(u, nil), []Root{{URL: "https://ex.com/sitemap.xml"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Roots(%s, none named) = %+v, want %+v", u, got, want)
	}
}

func TestScope(t *testing.T) {
	t.Parallel()
	sitemap, _ := url.Parse("https://ex.com/blog/sitemap.xml")
	for _, tc := range []struct {
		loc, named string
		page, map_ bool // held as a page, as an index's sitemap
	}{
		{"https://ex.com/blog/a", "", true, true},
		{"https://EX.COM:443/blog/a", "", true, true},
		{"https://ex.com/blog", "", false, true},
		{"https://ex.com/other", "", false, true},
		{"http://ex.com/blog/a", "", false, false},
		{"https://ex.com:8443/blog/a", "", false, false},
		{"https://ex.com/other", "https://ex.com", true, true},
		{"https://www.ex.com/", "https://www.ex.com", true, true},
		{"https://evil.com/blog/a", "https://ex.com", false, false},
	} {
		loc, _ := url.Parse(tc.loc)
		s := scopeOf(sitemap, tc.named)
		if s.holds(loc) != tc.page || s.holdsSitemap(loc) != tc.map_ {
			t.Errorf("%s named by %q: holds %v, holdsSitemap %v; want %v, %v", tc.loc, tc.named, s.holds(loc), s.holdsSitemap(loc), tc.page, tc.map_)
		}
	}
}

// TestClean: dot segments, percent-encoded or not, are resolved before
// the location rule judges a path; a path without them is kept as is.
func TestClean(t *testing.T) {
	t.Parallel()
	sitemap, _ := url.Parse("https://ex.com/blog/s.xml")
	s := scopeOf(sitemap, "")
	for _, tc := range []struct {
		in, want string
		held     bool
	}{
		{"https://ex.com/blog/a", "https://ex.com/blog/a", true},
		{"https://ex.com/blog/../admin", "https://ex.com/admin", false},
		{"https://ex.com/blog/%2e%2e/admin2", "https://ex.com/admin2", false},
		{"https://ex.com/blog/.%2E/admin3", "https://ex.com/admin3", false},
		{"https://ex.com/blog/%2E./x?q=1", "https://ex.com/x?q=1", false},
		{"https://ex.com/blog/./a/../b", "https://ex.com/blog/b", true},
		{"https://ex.com/blog/a/..", "https://ex.com/blog/", true},
		{"https://ex.com/blog/../../../../etc", "https://ex.com/etc", false},
		{"https://ex.com/blog/a%2Fb/..%2f", "https://ex.com/blog/a%2Fb/..%2f", true}, // "..%2f" is a name
		{"https://ex.com/blog/...", "https://ex.com/blog/...", true},
	} {
		u, _ := url.Parse(tc.in)
		c := clean(u)
		if c.String() != tc.want || s.holds(c) != tc.held {
			t.Errorf("clean(%s) = %s, held %v; want %s, %v", tc.in, c, s.holds(c), tc.want, tc.held)
		}
	}
}
