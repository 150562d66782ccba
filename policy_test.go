package robotsext

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/robotsext/robotsext/internal/robotstxt"
)

func TestCrawlDelay(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		robots string
		ua     string
		want   time.Duration
		ok     bool
	}{
		{"seconds", "User-agent: *\nCrawl-delay: 5\n", "FooBot", 5 * time.Second, true},
		{"decimal", "User-agent: *\nCrawl-delay: 0.5\n", "FooBot", 500 * time.Millisecond, true},
		{"key case", "User-agent: *\nCRAWL-DELAY: 2\n", "FooBot", 2 * time.Second, true},
		{"comment after value", "User-agent: *\nCrawl-delay: 3 # be nice\n", "FooBot", 3 * time.Second, true},
		{"none", "User-agent: *\nDisallow: /\n", "FooBot", 0, false},
		{"zero stated", "User-agent: *\nCrawl-delay: 0\n", "FooBot", 0, true},
		{"zero stated for the token wins over star", "User-agent: *\nCrawl-delay: 5\n\nUser-agent: FooBot\nCrawl-delay: 0\n", "FooBot", 0, true},
		{"zero and a slower line: the slower", "User-agent: *\nCrawl-delay: 0\nCrawl-delay: 2\n", "FooBot", 2 * time.Second, true},
		{"delay for another crawler only", "User-agent: OtherBot\nCrawl-delay: 5\n\nUser-agent: *\nDisallow: /x\n", "FooBot", 0, false},
		{"negative ignored", "User-agent: *\nCrawl-delay: -4\n", "FooBot", 0, false},
		{"non-numeric ignored", "User-agent: *\nCrawl-delay: soon\n", "FooBot", 0, false},
		{"NaN ignored", "User-agent: *\nCrawl-delay: NaN\n", "FooBot", 0, false},
		{"huge saturates", "User-agent: *\nCrawl-delay: 1e300\n", "FooBot", 1<<63 - 1, true},
		{"before any group ignored", "Crawl-delay: 5\nUser-agent: *\nDisallow: /\n", "FooBot", 0, false},
		{"specific group", "User-agent: *\nCrawl-delay: 5\n\nUser-agent: FooBot\nCrawl-delay: 1\n", "FooBot", time.Second, true},
		{"star fallback", "User-agent: *\nCrawl-delay: 5\n\nUser-agent: FooBot\nCrawl-delay: 1\n", "BarBot", 5 * time.Second, true},
		{"specific group without delay replaces star", "User-agent: *\nCrawl-delay: 5\nDisallow: /x\nUser-agent: FooBot\nDisallow: /y\n", "FooBot", 0, false},
		{"slowest of merged groups", "User-agent: FooBot\nCrawl-delay: 1\nDisallow: /a\nUser-agent: FooBot\nCrawl-delay: 4\n", "FooBot", 4 * time.Second, true},
		{"shared by consecutive agents", "User-agent: FooBot\nUser-agent: BarBot\nCrawl-delay: 2\nDisallow: /\n", "FooBot", 2 * time.Second, true},
		{"delay applies to the agents above it", "User-agent: FooBot\nCrawl-delay: 2\nUser-agent: BarBot\nDisallow: /\n", "BarBot", 0, false},
		{"delay after rules still in scope", "User-agent: FooBot\nDisallow: /a\nCrawl-delay: 2\n", "FooBot", 2 * time.Second, true},
		{"star delay with blank line", "User-agent: *\nCrawl-delay: 5\n\nUser-agent: FooBot\nCrawl-delay: 1\n", "OtherBot", 5 * time.Second, true},
		{"request-rate per second", "User-agent: *\nRequest-rate: 1/5\n", "FooBot", 5 * time.Second, true},
		{"request-rate seconds unit", "User-agent: *\nRequest-rate: 1/1s\n", "FooBot", time.Second, true},
		{"request-rate minutes", "User-agent: *\nRequest-rate: 3/1m\n", "FooBot", 20 * time.Second, true},
		{"request-rate hours", "User-agent: *\nRequest-rate: 60/1h\n", "FooBot", time.Minute, true},
		{"request-rate with window", "User-agent: *\nRequest-rate: 1/10s 0600-0845\n", "FooBot", 10 * time.Second, true},
		{"request-rate invalid", "User-agent: *\nRequest-rate: 0/10s\nRequest-rate: fast\nRequest-rate: 1/0\n", "FooBot", 0, false},
		{"slower of crawl-delay and request-rate", "User-agent: *\nCrawl-delay: 2\nRequest-rate: 1/10s\n", "FooBot", 10 * time.Second, true},
		{"crawl-delay slower than request-rate", "User-agent: *\nRequest-rate: 10/1s\nCrawl-delay: 2\n", "FooBot", 2 * time.Second, true},
		{"bad value keeps the rest of the file", "User-agent: *\nCrawl-delay: x\nCrawl-delay: 3\nDisallow: /a\n", "FooBot", 3 * time.Second, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := ParsePolicy([]byte(tc.robots)).CrawlDelay(tc.ua)
			if got != tc.want || ok != tc.ok {
				t.Errorf("CrawlDelay(%q) = %v, %v; want %v, %v", tc.ua, got, ok, tc.want, tc.ok)
			}
		})
	}
	// A malformed delay never disables the rules.
	if v := ParsePolicy([]byte("User-agent: *\nCrawl-delay: x\nDisallow: /a\n")).Check("FooBot", "/a"); v.Allowed {
		t.Errorf("rules after a bad Crawl-delay were dropped: %+v", v)
	}
}

func TestSitemaps(t *testing.T) {
	t.Parallel()
	robots := `Sitemap: https://example.com/a.xml
User-agent: *
Disallow: /
sitemap: http://example.com/b.xml
Site-map: https://example.com/c.xml
Sitemap: https://example.com/a.xml
Sitemap: /relative.xml
Sitemap: ftp://example.com/d.xml
Sitemap: https:///nohost.xml
SITEMAP: HTTPS://example.com/e.xml # comment
`
	want := []string{"https://example.com/a.xml", "http://example.com/b.xml", "https://example.com/c.xml", "HTTPS://example.com/e.xml"}
	p := ParsePolicy([]byte(robots))
	got := p.Sitemaps()
	if !slices.Equal(got, want) {
		t.Errorf("Sitemaps() = %q; want %q", got, want)
	}
	got[0] = "changed"
	if p.Sitemaps()[0] != want[0] {
		t.Error("Sitemaps returned the policy's own slice")
	}
	// Many sitemaps: deduplicated past the linear-scan limit too.
	var b strings.Builder
	for i := range 100 {
		b.WriteString("Sitemap: https://example.com/s" + letters(i%40) + ".xml\n")
	}
	if n := len(ParsePolicy([]byte(b.String())).Sitemaps()); n != 40 {
		t.Errorf("got %d sitemaps; want 40 distinct", n)
	}
}

func TestGroups(t *testing.T) {
	t.Parallel()
	robots := "User-agent: *\nDisallow: /a\n\nUser-agent: FooBot\nUser-agent: BarBot\nDisallow: /b\n\nUser-agent: foobot\nAllow: /c\n"
	tests := []struct {
		ua       string
		lines    []int
		specific bool
	}{
		{"FooBot", []int{4, 8}, true},
		{"BarBot", []int{4}, true},
		{"Other", []int{1}, false},
	}
	p := ParsePolicy([]byte(robots))
	for _, tc := range tests {
		lines, specific := p.Groups(tc.ua)
		if !slices.Equal(lines, tc.lines) || specific != tc.specific {
			t.Errorf("Groups(%q) = %v, %v; want %v, %v", tc.ua, lines, specific, tc.lines, tc.specific)
		}
	}
	if lines, _ := ParsePolicy([]byte("Disallow: /\n")).Groups("FooBot"); lines != nil {
		t.Errorf("no groups: got %v", lines)
	}
}

// ParsePolicy keeps its own copy: the caller may reuse the buffer.
func TestParsePolicyCopiesInput(t *testing.T) {
	t.Parallel()
	buf := []byte("User-agent: FooBot\nDisallow: /private\nSitemap: https://e.com/s.xml\n")
	p := ParsePolicy(buf)
	for i := range buf {
		buf[i] = 'x'
	}
	if v := p.Check("FooBot", "/private"); v.Allowed || v.Rule != "/private" {
		t.Errorf("after reusing the buffer: %+v", v)
	}
	if s := p.Sitemaps(); len(s) != 1 || s[0] != "https://e.com/s.xml" {
		t.Errorf("after reusing the buffer: sitemaps %q", s)
	}
}

// Check allocates nothing on a compiled policy for ordinary URLs. This is a
// count, not a timing, so it is stable on a busy machine.
func TestCheckDoesNotAllocate(t *testing.T) {
	p := ParsePolicy([]byte(typicalRobots))
	urls := []string{"/", "https://www.example.com/wp-admin/x", "/tag/go/page/2", "/a?replytocom=1", "/private/press/x"}
	for _, ua := range []string{"FooBot", "foobot", "OtherBot"} {
		for _, u := range urls {
			if n := testing.AllocsPerRun(100, func() { _ = p.Check(ua, u) }); n != 0 {
				t.Errorf("Check(%q, %q) allocates %v times", ua, u, n)
			}
		}
	}
}

// Check builds its Verdict from the engine's Match: every reason a rule
// can give, with its line and the rule as written, and TokenErr for a
// string that is not a product token. (The matching itself is tested in
// internal/robotstxt.)
func TestCheckVerdicts(t *testing.T) {
	t.Parallel()
	p := ParsePolicy([]byte("User-agent: *\nDisallow: /caf\u00e9\nAllow: /caf\u00e9/menu\nDisallow:\n"))
	tests := []struct {
		token, url string
		want       Verdict
	}{
		{"FooBot", "/caf%C3%A9/x", Verdict{Allowed: false, Reason: ReasonDisallowRule, Line: 2, Rule: "/caf\u00e9"}},
		{"FooBot", "https://e.com/caf\u00e9/menu", Verdict{Allowed: true, Reason: ReasonAllowRule, Line: 3, Rule: "/caf\u00e9/menu"}},
		{"FooBot", "/other", Verdict{Allowed: true, Reason: ReasonEmptyRule, Line: 4}},
		{"FooBot", "/robots.txt", Verdict{Allowed: true, Reason: ReasonRobotsTxt}},
		{"*", "/caf%C3%A9", Verdict{Allowed: false, Reason: ReasonDisallowRule, Line: 2, Rule: "/caf\u00e9"}},
	}
	for _, tt := range tests {
		if got := p.Check(tt.token, tt.url); got != tt.want {
			t.Errorf("Check(%q, %q) = %+v; want %+v", tt.token, tt.url, got, tt.want)
		}
	}
	if v := ParsePolicy([]byte("User-agent: *\nDisallow: /a\n")).Check("FooBot", "/b"); v != (Verdict{Allowed: true, Reason: ReasonNoMatch}) {
		t.Errorf("no rule matched: %+v", v)
	}
	v := p.Check("FooBot/1.0", "/caf%C3%A9")
	if !errors.Is(v.TokenErr, ErrNotProductToken) || v.Allowed || v.Line != 2 {
		t.Errorf("Check(\"FooBot/1.0\") = %+v; want the \"*\" decision and a TokenErr", v)
	}
}

// The zero Policy and a nil *Policy allow everything and state nothing.
func TestZeroPolicy(t *testing.T) {
	t.Parallel()
	var nilPolicy *Policy
	for _, p := range []*Policy{nilPolicy, {}, ParsePolicy(nil)} {
		if v := p.Check("FooBot", "/a"); v != (Verdict{Allowed: true, Reason: ReasonNoMatch}) {
			t.Errorf("Check on an empty policy = %+v; want allowed", v)
		}
		if d, ok := p.CrawlDelay("FooBot"); ok || d != 0 {
			t.Errorf("CrawlDelay on an empty policy = %v, %v", d, ok)
		}
		if s := p.Sitemaps(); s != nil {
			t.Errorf("Sitemaps on an empty policy = %v", s)
		}
		if lines, specific := p.Groups("FooBot"); lines != nil || specific {
			t.Errorf("Groups on an empty policy = %v, %v", lines, specific)
		}
		if u := p.Usage("FooBot", "/a"); !u.IsZero() {
			t.Errorf("Usage on an empty policy = %v", u)
		}
		if !p.Empty() {
			t.Error("an empty policy is not Empty")
		}
		if n := p.engine().MemSize(); n < 0 || n > 1024 {
			t.Errorf("MemSize of an empty policy = %d", n)
		}
	}
}

// robotstxt.RequestPath and Check's own path extraction agree, and Check never
// allocates for paths that fit its stack buffer.
func TestCheckPathWithoutAllocation(t *testing.T) {
	p := ParsePolicy([]byte("User-agent: *\nDisallow: /caf\u00e9\nAllow: /a\n"))
	for _, in := range []string{"/café", "café", "http://e.com/café#x", "//e.com/é", "e.com/x/é?é", "ftp://e.com/é", "http://e.com?é", "HTTPS://e.com/é"} {
		if n := testing.AllocsPerRun(100, func() { _ = p.Check("FooBot", in) }); n != 0 {
			t.Errorf("Check(%q) allocates %v times", in, n)
		}
		if got, want := p.Check("FooBot", in), p.checkPath("FooBot", robotstxt.RequestPath(in)); got != want {
			t.Errorf("Check(%q) = %+v; checkPath(RequestPath) = %+v", in, got, want)
		}
	}
}

// TestPolicyOfEngine holds policyOf to its premise: a Policy is its
// compiled file and nothing else, so that a pointer to either is a pointer
// to both; policyOf is then engine's reverse, nil for nil.
func TestPolicyOfEngine(t *testing.T) {
	t.Parallel()
	if a, b := unsafe.Sizeof(Policy{}), unsafe.Sizeof(robotstxt.Policy{}); a != b || unsafe.Offsetof(Policy{}.e) != 0 {
		t.Fatalf("Policy is %d bytes with its file at %d; the file is %d bytes: policyOf may not convert", a, unsafe.Offsetof(Policy{}.e), b)
	}
	p := ParsePolicy([]byte(testRules))
	if policyOf(p.engine()) != p || policyOf(nil) != nil {
		t.Error("policyOf is not engine's reverse")
	}
	e := new(robotstxt.Policy)
	e.Parse([]byte(testRules))
	if v := policyOf(e).Check("bot", "/private"); v.Allowed || v.Line != 2 {
		t.Errorf("a policy parsed by the engine, as the lifecycle does: %+v", v)
	}
}
