package robotstxt

import "testing"

// Select and Decide, the hook's per-token form of Check, agree with it, and
// are safe on a nil *Policy.
func TestCheckSel(t *testing.T) {
	t.Parallel()
	robots := "User-agent: *\nDisallow: /a\n\nUser-agent: FooBot\nUser-agent: BarBot\nDisallow: /b\n\nUser-agent: foobot\nAllow: /b/c\nUser-agent: *\nDisallow: /d\n"
	p := parsePolicy([]byte(robots))
	var nilPolicy *Policy
	for _, pol := range []*Policy{p, nilPolicy, {}, parsePolicy(nil)} {
		for _, ua := range []string{"FooBot", "barbot", "Other", ""} {
			sel := pol.Select(ua)
			for _, path := range []string{"/", "/a", "/b", "/b/c", "/d", "/robots.txt"} {
				if got, want := decide(pol, sel, path), check(pol, ua, path); got != want {
					t.Errorf("Decide(Select(%q), %q) = %+v; Check = %+v", ua, path, got, want)
				}
			}
		}
	}
	if a, b := p.Select("FooBot"), p.Select("FOOBOT"); a != b {
		t.Errorf("Select is not case-insensitive: %+v, %+v", a, b)
	}
	if v := decide(p, p.Select("FooBot"), "/b/c/x"); !v.Allowed || v.Line != 9 {
		t.Errorf("merged groups: %+v; want allowed by line 9", v)
	}
	if v := decide(p, p.Select("Other"), "/d"); v.Allowed || v.Line != 11 {
		t.Errorf("merged * groups: %+v; want disallowed by line 11", v)
	}
}
