package robotstxt

import (
	"fmt"
	"strings"
	"testing"
)

// checkCase is one decision: robots.txt, the crawler's token, a URL, and the
// expected verdict. line 0 means no rule decided.
type checkCase struct {
	name    string
	robots  string
	ua      string
	url     string
	allowed bool
	line    int
	reason  reason
}

func runCheckCases(t *testing.T, cases []checkCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ua := tc.ua
			if ua == "" {
				ua = "FooBot"
			}
			got := check(parsePolicy([]byte(tc.robots)), ua, tc.url)
			if got.Allowed != tc.allowed || got.Line != tc.line || got.Reason != tc.reason {
				t.Errorf("Check(%q, %q) = %+v; want allowed=%v line=%d reason=%q\nrobots.txt:\n%s",
					ua, tc.url, got, tc.allowed, tc.line, tc.reason, tc.robots)
			}
		})
	}
}

// The worked examples of the matcher issue.
func TestCheckWorkedExamples(t *testing.T) {
	t.Parallel()
	site := "User-agent: *\nDisallow: /private/\nDisallow: /*.pdf$\nAllow: /private/public-page.html\n"
	docs := "User-agent: *\nDisallow: /docs\nAllow: /docs/public\n"
	runCheckCases(t, []checkCase{
		{"about", site, "", "https://example.com/about", true, 0, noMatch},
		{"private", site, "", "https://example.com/private/secrets", false, 2, disallowRule},
		{"public page", site, "", "https://example.com/private/public-page.html", true, 4, allowRule},
		{"pdf", site, "", "https://example.com/docs/manual.pdf", false, 3, disallowRule},
		{"pdf with query", site, "", "https://example.com/docs/manual.pdf?download=1", true, 0, noMatch},
		{"explicit allow", docs, "", "/docs/public/a", true, 3, allowRule},
		{"docs secret", docs, "", "/docs/secret", false, 2, disallowRule},
		{"no rule matched", "User-agent: *\nDisallow: /private\n", "", "/public", true, 0, noMatch},
	})
}

// Examples from RFC 9309 §2.2.2, §2.2.3 and §5.
func TestCheckRFCExamples(t *testing.T) {
	t.Parallel()
	// §5.1: a file with several groups.
	rfc51 := `User-Agent: *
Disallow: *.gif$
Disallow: /example/
Allow: /publications/

User-Agent: foobot
Disallow:/
Allow:/example/page.html
Allow:/example/allowed.gif

User-Agent: barbot
User-Agent: bazbot
Disallow: /example/page.html

User-Agent: quxbot

EOF`
	// §5.2: longest match.
	rfc52 := "User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n"
	runCheckCases(t, []checkCase{
		{"5.1 star gif", rfc51, "ExampleBot", "/foo.gif", false, 2, disallowRule},
		{"5.1 star example", rfc51, "ExampleBot", "/example/x", false, 3, disallowRule},
		{"5.1 star publications", rfc51, "ExampleBot", "/publications/x", true, 4, allowRule},
		{"5.1 foobot root", rfc51, "foobot", "/", false, 7, disallowRule},
		{"5.1 foobot page", rfc51, "foobot", "/example/page.html", true, 8, allowRule},
		{"5.1 foobot gif", rfc51, "foobot", "/example/allowed.gif", true, 9, allowRule},
		{"5.1 barbot page", rfc51, "barbot", "/example/page.html", false, 13, disallowRule},
		{"5.1 bazbot page", rfc51, "bazbot", "/example/page.html", false, 13, disallowRule},
		{"5.1 bazbot gif not star", rfc51, "bazbot", "/foo.gif", true, 0, noMatch},
		{"5.1 quxbot empty group", rfc51, "quxbot", "/example/x", true, 0, noMatch},
		{"5.2 longest allow", rfc52, "foobot", "/example/page/", true, 2, allowRule},
		{"5.2 longest disallow", rfc52, "foobot", "/example/page/disallowed.gif", false, 3, disallowRule},
		// §2.2.3 special characters.
		{"$ anchors", "User-agent: *\nAllow: /this/path$\nDisallow: /this\n", "", "/this/path", true, 2, allowRule},
		{"$ anchors longer", "User-agent: *\nAllow: /this/path$\nDisallow: /this\n", "", "/this/path/x", false, 3, disallowRule},
		{"star any", "User-agent: *\nDisallow: /path/*/file\n", "", "/path/a/b/file.html", false, 2, disallowRule},
		{"percent encoded slash", "User-agent: *\nDisallow: /path/file-with-a-%2F.html\n", "", "/path/file-with-a-%2F.html", false, 2, disallowRule},
		{"percent encoded slash is not slash", "User-agent: *\nDisallow: /path/foo-%2F\n", "", "/path/foo-/", true, 0, noMatch},
	})
}

func TestCheckGroups(t *testing.T) {
	t.Parallel()
	runCheckCases(t, []checkCase{
		{"specific replaces star", "User-agent: *\nDisallow: /\nUser-agent: FooBot\nDisallow: /x\n", "", "/y", true, 0, noMatch},
		{"star used when no match", "User-agent: *\nDisallow: /\nUser-agent: BarBot\nDisallow: /x\n", "", "/y", false, 2, disallowRule},
		{"blank line does not close group", "User-agent: FooBot\n\nUser-agent: *\nDisallow: /\n", "", "/y", false, 4, disallowRule},
		{"agent line at end replaces star", "User-agent: *\nDisallow: /\nUser-agent: FooBot\n", "", "/y", true, 0, noMatch},
		{"groups merged", "User-agent: FooBot\nDisallow: /a\nUser-agent: BarBot\nDisallow: /b\nUser-agent: FooBot\nDisallow: /c\n", "", "/c", false, 6, disallowRule},
		{"star groups merged", "User-agent: *\nDisallow: /a\nUser-agent: BarBot\nDisallow: /b\nUser-agent: *\nDisallow: /c\n", "", "/c", false, 6, disallowRule},
		{"consecutive agents share a group", "User-agent: BarBot\nUser-agent: FooBot\nDisallow: /a\n", "", "/a", false, 3, disallowRule},
		{"sitemap does not close group", "User-agent: BarBot\nSitemap: https://x/s.xml\nUser-agent: FooBot\nDisallow: /a\n", "", "/a", false, 4, disallowRule},
		{"crawl-delay does not close group", "User-agent: FooBot\nCrawl-delay: 5\nUser-agent: BarBot\nDisallow: /a\n", "", "/a", false, 4, disallowRule},
		{"unknown key does not close group", "User-agent: FooBot\nNoindex: /x\nUser-agent: BarBot\nDisallow: /a\n", "", "/a", false, 4, disallowRule},
		{"rule closes group", "User-agent: FooBot\nDisallow: /b\nUser-agent: BarBot\nDisallow: /a\n", "", "/a", true, 0, noMatch},
		{"rules before any group ignored", "Disallow: /a\nUser-agent: *\nDisallow: /b\n", "", "/a", true, 0, noMatch},
		{"agent case-insensitive", "User-agent: FOOBOT\nDisallow: /a\n", "foobot", "/a", false, 2, disallowRule},
		{"agent value cut at version", "User-agent: FooBot/1.2\nDisallow: /a\n", "FooBot", "/a", false, 2, disallowRule},
		{"agent value cut at digit", "User-agent: Foo2Bot\nDisallow: /a\n", "Foo", "/a", false, 2, disallowRule},
		{"agent value cut at space", "User-agent: Foo Bar\nDisallow: /a\n", "Foo", "/a", false, 2, disallowRule},
		{"crawler token compared as given", "User-agent: FooBot\nDisallow: /a\n", "FooBot/1.0", "/a", true, 0, noMatch},
		{"agent with underscore and dash", "User-agent: Foo_Bot-x\nDisallow: /a\n", "foo_bot-X", "/a", false, 2, disallowRule},
		{"star followed by text is global", "User-agent: * FooBot\nDisallow: /a\n", "BarBot", "/a", false, 2, disallowRule},
		{"star glued to text is not global", "User-agent: *FooBot\nDisallow: /a\n", "BarBot", "/a", true, 0, noMatch},
		{"star and specific in one group", "User-agent: *\nUser-agent: FooBot\nDisallow: /a\nUser-agent: *\nDisallow: /b\n", "", "/b", true, 0, noMatch},
		{"star and specific in one group, other bot", "User-agent: *\nUser-agent: FooBot\nDisallow: /a\nUser-agent: *\nDisallow: /b\n", "BarBot", "/a", false, 3, disallowRule},
	})
}

func TestCheckPrecedence(t *testing.T) {
	t.Parallel()
	runCheckCases(t, []checkCase{
		{"longest wins", "User-agent: *\nAllow: /a\nDisallow: /a/b\n", "", "/a/b/c", false, 3, disallowRule},
		{"allow wins tie", "User-agent: *\nDisallow: /a\nAllow: /a\n", "", "/a", true, 3, allowRule},
		{"allow wins wildcard tie", "User-agent: *\nDisallow: /*b\nAllow: /a*\n", "", "/ab", true, 3, allowRule},
		{"star counts toward length", "User-agent: *\nAllow: /page\nDisallow: /*.htm\n", "", "/page.htm", false, 3, disallowRule},
		{"dollar counts toward length", "User-agent: *\nAllow: /a$\nDisallow: /a\n", "", "/a", true, 2, allowRule},
		{"earliest line on equal disallows", "User-agent: *\nDisallow: /a*\nDisallow: /*a\n", "", "/a", false, 2, disallowRule},
		{"earliest line on repeated pattern", "User-agent: *\nDisallow: /a\nDisallow: /a\n", "", "/a", false, 2, disallowRule},
		{"empty disallow matches nothing", "User-agent: *\nDisallow:\n", "", "/a", true, 2, emptyRule},
		{"empty allow", "User-agent: *\nAllow:\n", "", "/a", true, 2, emptyRule},
		{"empty disallow and empty allow", "User-agent: *\nDisallow:\nAllow:\n", "", "/a", true, 3, emptyRule},
		{"empty specific group ignores star", "User-agent: *\nDisallow: /\nUser-agent: FooBot\nDisallow:\n", "", "/a", true, 4, emptyRule},
		{"robots.txt always allowed", "User-agent: *\nDisallow: /\n", "", "http://example.com/robots.txt", true, 0, robotsTxt},
		{"robots.txt with query follows rules", "User-agent: *\nDisallow: /\n", "", "http://example.com/robots.txt?x", false, 2, disallowRule},
		{"case-sensitive paths", "User-agent: *\nDisallow: /Admin\n", "", "/admin", true, 0, noMatch},
		{"disallow all", "User-agent: *\nDisallow: /\n", "", "/", false, 2, disallowRule},
	})
}

func TestCheckPatterns(t *testing.T) {
	t.Parallel()
	one := func(rule string) string { return "User-agent: *\nDisallow: " + rule + "\n" }
	runCheckCases(t, []checkCase{
		{"prefix", one("/fish"), "", "/fish.html", false, 2, disallowRule},
		{"prefix no match", one("/fish"), "", "/Fish", true, 0, noMatch},
		{"star middle", one("/fish*.php"), "", "/fish/salmon.php", false, 2, disallowRule},
		{"star middle no match", one("/fish*.php"), "", "/fish.PHP", true, 0, noMatch},
		{"star end same as none", one("/fish*"), "", "/fishheads", false, 2, disallowRule},
		{"leading star", one("*.php"), "", "/index.php", false, 2, disallowRule},
		{"anchored", one("/*.php$"), "", "/filename.php", false, 2, disallowRule},
		{"anchored query", one("/*.php$"), "", "/filename.php?parameters", true, 0, noMatch},
		{"anchored no star", one("/exact$"), "", "/exact", false, 2, disallowRule},
		{"anchored no star longer", one("/exact$"), "", "/exactly", true, 0, noMatch},
		{"dollar in middle is literal", one("/a$b"), "", "/a$b/c", false, 2, disallowRule},
		{"dollar in middle no match", one("/a$b"), "", "/ab", true, 0, noMatch},
		{"double dollar", one("/a$$"), "", "/a$", false, 2, disallowRule},
		{"star dollar", one("/a*$"), "", "/a/anything", false, 2, disallowRule},
		{"only dollar matches nothing", one("$"), "", "/", true, 0, noMatch},
		{"many stars", one("/*a*b*c*"), "", "/xaybzc", false, 2, disallowRule},
		{"stars need order", one("/*a*b*c"), "", "/cba", true, 0, noMatch},
		{"query matched", one("/*?sort="), "", "/list?sort=asc&page=2", false, 2, disallowRule},
		{"fragment ignored", one("/a$"), "", "http://example.com/a#frag", false, 2, disallowRule},
		{"params matched", one("/a;jsessionid"), "", "http://example.com/a;jsessionid=1", false, 2, disallowRule},
		{"no path is root", one("/$"), "", "http://example.com", false, 2, disallowRule},
		{"query without path", one("/?q"), "", "http://example.com?q=1", false, 2, disallowRule},
		{"host with port", one("/a"), "", "http://example.com:8080/a", false, 2, disallowRule},
		{"ipv6 host", one("/a"), "", "http://[::1]:8080/a", false, 2, disallowRule},
		{"scheme-relative", one("/a"), "", "//example.com/a", false, 2, disallowRule},
		// Percent-encoding: patterns are normalised, URLs are not decoded.
		{"non-ascii pattern encoded", one("/caf\u00e9"), "", "/caf%C3%A9", false, 2, disallowRule},
		{"non-ascii url encoded", one("/caf\u00e9"), "", "/caf\u00e9", false, 2, disallowRule},
		{"lowercase escape in pattern upper-cased", one("/a%3cb"), "", "/a%3Cb", false, 2, disallowRule},
		{"lowercase escape in url not decoded", one("/a%3Cb"), "", "/a%3cb", true, 0, noMatch},
		{"escape not decoded", one("/a%2Fb"), "", "/a/b", true, 0, noMatch},
		{"unreserved not decoded", one("/%7Ejoe"), "", "/~joe", true, 0, noMatch},
		{"encoded length decides", "User-agent: *\nAllow: /\u00e9\nDisallow: /%C3%A9x\n", "", "/%C3%A9x", false, 3, disallowRule},
		// The reference's index.html rule.
		{"index.html allows dir", "User-agent: *\nDisallow: /\nAllow: /d/index.html\n", "", "/d/", true, 3, allowRule},
		{"index.htm allows dir", "User-agent: *\nDisallow: /\nAllow: /d/index.htm\n", "", "/d/", true, 3, allowRule},
		{"index.html not subdirs", "User-agent: *\nDisallow: /\nAllow: /d/index.html\n", "", "/d/x", false, 2, disallowRule},
		{"index.html itself", "User-agent: *\nDisallow: /\nAllow: /d/index.html\n", "", "/d/index.html", true, 3, allowRule},
		{"index.html only for allow", "User-agent: *\nDisallow: /d/index.html\n", "", "/d/", true, 0, noMatch},
	})
}

// Leniencies of the reference parser that site owners rely on.
func TestCheckParserLeniency(t *testing.T) {
	t.Parallel()
	runCheckCases(t, []checkCase{
		{"missing colon", "User-agent *\nDisallow /a\n", "", "/a", false, 2, disallowRule},
		{"missing colon with tab", "User-agent\t*\nDisallow\t/a\n", "", "/a", false, 2, disallowRule},
		{"missing colon three words ignored", "User-agent: *\nDisallow /a /b\n", "", "/a", true, 0, noMatch},
		{"misspelled disallow", "User-agent: *\nDissallow: /a\nDissalow: /b\nDisalow: /c\nDiasllow: /d\nDisallaw: /e\n", "", "/e", false, 6, disallowRule},
		{"misspelled user-agent", "Useragent: *\nDisallow: /a\n", "", "/a", false, 2, disallowRule},
		{"user agent with space", "User agent: *\nDisallow: /a\n", "", "/a", false, 2, disallowRule},
		{"key prefix accepted", "User-agents: *\nDisallowed: /a\n", "", "/a", false, 2, disallowRule},
		{"allow has no typos", "User-agent: *\nDisallow: /\nAlow: /a\n", "", "/a", false, 2, disallowRule},
		{"keys case-insensitive", "USER-AGENT: *\nDISALLOW: /a\n", "", "/a", false, 2, disallowRule},
		{"whitespace around colon", "User-agent :   *  \n  Disallow \t:\t /a  \n", "", "/a", false, 2, disallowRule},
		{"comment stripped", "User-agent: * # everyone\nDisallow: /a#b\n", "", "/a", false, 2, disallowRule},
		{"comment line", "# hello\nUser-agent: *\n# Disallow: /a\nDisallow: /b\n", "", "/a", true, 0, noMatch},
		{"first colon separates", "User-agent: *\nDisallow /a:b\n", "", "/a", true, 0, noMatch},
		{"BOM", "\xEF\xBB\xBFUser-agent: *\nDisallow: /a\n", "", "/a", false, 2, disallowRule},
		{"partial BOM", "\xEF\xBBUser-agent: *\nDisallow: /a\n", "", "/a", false, 2, disallowRule},
		{"BOM later is not skipped", "User-agent: *\n\xEF\xBB\xBFDisallow: /a\n", "", "/a", true, 0, noMatch},
		{"CRLF", "User-agent: *\r\nAllow: /b\r\nDisallow: /a\r\n", "", "/a", false, 3, disallowRule},
		{"CR only", "User-agent: *\rAllow: /b\rDisallow: /a\r", "", "/a", false, 3, disallowRule},
		{"LF CR is two lines", "User-agent: *\n\rAllow: /b\n\rDisallow: /a\n", "", "/a", false, 5, disallowRule},
		{"blank lines counted", "User-agent: *\n\n\nDisallow: /a", "", "/a", false, 4, disallowRule},
		{"no final newline", "User-agent: *\nDisallow: /a", "", "/a", false, 2, disallowRule},
		{"NUL ends the line", "User-agent: *\nDisallow: /a\x00/b\n", "", "/a", false, 2, disallowRule},
		{"NUL before key ignores line", "User-agent: *\n\x00Disallow: /a\n", "", "/a", true, 0, noMatch},
		{"invalid UTF-8 encoded", "User-agent: *\nDisallow: /\xff\xfe\n", "", "/%FF%FE", false, 2, disallowRule},
		{"overlong line truncated", "User-agent: *\nDisallow: /" + strings.Repeat("a", maxLineLen) + "\n", "", "/" + strings.Repeat("a", maxLineLen-len("Disallow: /")), false, 2, disallowRule},
		{"overlong line tail ignored", "User-agent: *\nDisallow: /" + strings.Repeat("a", maxLineLen) + "\nDisallow: /b\n", "", "/b", false, 3, disallowRule},
	})
}

// Verdict.Rule reports the pattern as written, before percent-encoding.
func TestCheckRuleAsWritten(t *testing.T) {
	t.Parallel()
	tests := []struct{ robots, url, rule string }{
		{"User-agent: *\nDisallow: /caf\u00e9\n", "/caf%C3%A9", "/caf\u00e9"},
		{"User-agent: *\nDisallow: /a%3cb\n", "/a%3Cb", "/a%3cb"},
		{"User-agent: *\nDisallow: /\nAllow: /d/index.html\n", "/d/", "/d/index.html"},
		{"User-agent: *\nDisallow: /*.pdf$ # pdfs\n", "/x.pdf", "/*.pdf$"},
	}
	for _, tc := range tests {
		if got := check(parsePolicy([]byte(tc.robots)), "FooBot", tc.url); got.Rule != tc.rule {
			t.Errorf("Check(%q).Rule = %q; want %q", tc.url, got.Rule, tc.rule)
		}
	}
}

func TestCheckZeroPolicy(t *testing.T) {
	t.Parallel()
	var nilPolicy *Policy
	for _, p := range []*Policy{nilPolicy, {}, parsePolicy(nil)} {
		if v := check(p, "FooBot", "/a"); !v.Allowed || v.Reason != noMatch {
			t.Errorf("Check on empty policy = %+v; want allowed", v)
		}
		if d, ok := p.CrawlDelay("FooBot"); ok || d != 0 {
			t.Errorf("CrawlDelay on empty policy = %v, %v", d, ok)
		}
		if s := p.Sitemaps(); s != nil {
			t.Errorf("Sitemaps on empty policy = %v", s)
		}
	}
}

func TestRequestPath(t *testing.T) {
	t.Parallel()
	tests := []struct{ url, want string }{
		{"", "/"},
		{"http://example.com", "/"},
		{"http://example.com/", "/"},
		{"http://example.com/a/b?c=d#e", "/a/b?c=d"},
		{"http://example.com#/a", "/"},
		{"http://example.com?q", "/?q"},
		{"http://example.com;p", "/;p"},
		{"/a?b", "/a?b"},
		{"//example.com/a", "/a"},
		{"example.com/a", "/a"},
		{"http://example.com/a://b", "/a://b"},
		{"/a://b", "/a://b"},
		{"http://example.com/\u00e9", "/%C3%A9"},
		{"http://example.com//a", "//a"},
	}
	for _, tc := range tests {
		if got := RequestPath(tc.url); got != tc.want {
			t.Errorf("RequestPath(%q) = %q; want %q", tc.url, got, tc.want)
		}
	}
}

func TestMatchWild(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"", "/", true},
		{"*", "/", true},
		{"$", "/", false},
		{"*$", "/", true},
		{"/a*", "/a", true},
		{"/a*$", "/a", true},
		{"/*/b$", "/x/y/b", true},
		{"/*/b$", "/x/b/c", false},
		{"/*b*b$", "/bb", true},
		{"/*b*b$", "/b", false},
		{"/a*a*a", "/aa", false},
		{"/a*a*a", "/aaa", true},
		{"/**x", "/yx", true},
	}
	for _, tc := range tests {
		if got := matchWild(tc.pattern, tc.path); got != tc.want {
			t.Errorf("matchWild(%q, %q) = %v; want %v", tc.pattern, tc.path, got, tc.want)
		}
		if got := naiveMatch(tc.pattern, tc.path); got != tc.want {
			t.Errorf("naiveMatch(%q, %q) = %v; want %v", tc.pattern, tc.path, got, tc.want)
		}
	}
}

// Repeated patterns keep their earliest line even when the Allow rules
// between them are moved ahead of the Disallow rules, and when the rules
// are listed sorted or not.
func TestRepeatedPatternsKeepEarliestLine(t *testing.T) {
	t.Parallel()
	runCheckCases(t, []checkCase{
		{"sorted with allow after", "User-agent: *\nDisallow: /a\nDisallow: /a\nAllow: /b\n", "", "/a", false, 2, disallowRule},
		{"allow between repeats", "User-agent: *\nDisallow: /a\nAllow: /b\nDisallow: /a\nAllow: /c\n", "", "/a", false, 2, disallowRule},
		{"allows last", "User-agent: *\nDisallow: /b\nDisallow: /a\nDisallow: /a\nAllow: /z\nAllow: /y\n", "", "/a", false, 3, disallowRule},
		{"unsorted repeats", "User-agent: *\nDisallow: /c\nDisallow: /a\nDisallow: /b\nDisallow: /a\n", "", "/a", false, 3, disallowRule},
		{"allow repeats", "User-agent: *\nAllow: /a\nDisallow: /x\nAllow: /a\nDisallow: /\n", "", "/a", true, 2, allowRule},
	})
}

// valueTraits reads the last octets of a value as one word, from the value
// or past its end within its capacity; every length and capacity must give
// what a plain loop over the octets gives.
func TestValueTraitsEveryTail(t *testing.T) {
	t.Parallel()
	octets := []byte{'a', '%', '*', 0x80, 0xff, 0, '/'}
	for n := range 20 {
		for _, pick := range []int{0, 1, 2, 3, 4, 5, 6} {
			for slack := range 9 {
				buf := make([]byte, n+slack)
				for i := range buf {
					buf[i] = '%' // past the value: must not be seen
				}
				for i := range n {
					buf[i] = octets[(i*pick+i/3)%len(octets)]
				}
				if n > 0 {
					buf[n-1] = octets[pick]
				}
				s := buf[:n]
				var wantEsc, wantStar bool
				for _, c := range s {
					wantEsc = wantEsc || c == '%' || c >= 0x80
					wantStar = wantStar || c == '*'
				}
				if esc, star := valueTraits(s); esc != wantEsc || star != wantStar {
					t.Errorf("valueTraits(%q, cap %d) = %v, %v; want %v, %v", s, cap(s), esc, star, wantEsc, wantStar)
				}
			}
		}
	}
}

// keyPrefixLen answers from the prefix8 keys and tails within the first
// sixteen octets; it must equal commonPrefixLen for every pair of lengths,
// also when the path holds a NUL where the shorter pattern's key or tail
// has padding. atMostTail must agree with comparing the strings.
func TestKeyPrefixLen(t *testing.T) {
	t.Parallel()
	paths := []string{"/", "/a", "/a\x00", "/a\x00\x00b", "/abcdefg", "/abcdefgh", "/abcdefghij", "/abcdefgXij", "/abcdefghiX", "/abc\x00efgh",
		"/abcdefghijklmno", "/abcdefghijklmnop", "/abcdefghijklmnopq", "/abcdefghij\x00lmnopq", "/abcdefghijklmXopqr", "/abcdefghijklmnopXr", "/abcdefghijklmnopqrs"}
	pats := []string{"/", "/a", "/ab", "/abc", "/abcdefg", "/abcdefgh", "/abcdefghi", "/abcdefghij", "/abcdefghijk", "/b",
		"/abcdefghijklmno", "/abcdefghijklmnop", "/abcdefghijklmnopq", "/abcdefghijklmnopqr", "/abcdefghijklmnopqrst", "/abcdefghijklmZ", "/abcdefghij"}
	tail := func(s string) uint64 {
		if len(s) <= 8 {
			return 0
		}
		return prefix8(s[8:])
	}
	p := parsePolicy([]byte("User-agent: *\nDisallow: " + strings.Join(pats, "\nDisallow: ") + "\n"))
	for _, path := range paths {
		for i, pat := range pats {
			want := commonPrefixLen(pat, path)
			if got := keyPrefixLen(prefix8(pat), prefix8(path), tail(pat), tail(path), pat, path); got != want {
				t.Errorf("keyPrefixLen(%q, %q) = %d; want %d", pat, path, got, want)
			}
			if prefix8(pat) != prefix8(path) {
				continue
			}
			r := p.rules[i]
			if p.pattern(r) != pat {
				t.Fatalf("rule %d has pattern %q; want %q", i, p.pattern(r), pat)
			}
			if got := p.atMostTail(litRule{r, tail(pat)}, path, tail(path)); got != (pat <= path) {
				t.Errorf("atMostTail(%q, %q) = %v; want %v", pat, path, got, pat <= path)
			}
		}
	}
}

// pathMask reads words; every length must give the mask of its octets.
func TestPathMaskEveryLength(t *testing.T) {
	t.Parallel()
	for n := 0; n <= 40; n++ {
		var b strings.Builder
		var want uint64
		for i := range n {
			c := byte('!' + (i*37)%90)
			b.WriteByte(c)
			want |= 1 << (c & 63)
		}
		if got := pathMask(b.String()); got != want {
			t.Errorf("pathMask(%q) = %#x; want %#x", b.String(), got, want)
		}
	}
}

// Groups of many wildcard rules over a small alphabet, asked about paths
// of the same alphabet, reach every branch of the wildcard scan: the rules
// tried before the bigram filter, the filter with a path's bigrams hashed
// (up to shortGramPath octets) and with one bit per bigram (longer paths),
// the shortest-path test and the cut at the first rule that cannot beat a
// literal match. Every answer must be the naive matcher's.
func TestWildScanAgreesWithNaive(t *testing.T) {
	t.Parallel()
	x := uint64(0x2545F4914F6CDD1D)
	next := func(n int) int {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int(x % uint64(n))
	}
	word := func(alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[next(len(alphabet))]
		}
		return string(b)
	}
	for round := range 300 {
		var robots strings.Builder
		robots.WriteString("User-agent: *\n")
		rules := 4 + next(150) // from 64 rules, listed by bigram
		for range rules {
			verb := "Disallow"
			if next(3) == 0 {
				verb = "Allow"
			}
			pat := "/" + word("ab*c*", 1+next(12))
			if next(5) == 0 {
				pat += "$"
			}
			fmt.Fprintf(&robots, "%s: %s\n", verb, pat)
		}
		if next(2) == 0 {
			fmt.Fprintf(&robots, "Disallow: /%s\n", word("abc", next(4))) // a literal rule to beat
		}
		file := []byte(robots.String())
		p := parsePolicy(file)
		for range 20 {
			n := next(40)
			if next(4) == 0 {
				n = shortGramPath - 20 + next(60) // both sides of the set's switch
			}
			url := "/" + word("abcab", n)
			switch next(4) {
			case 0: // few bigrams: most rules lack one
				url = "/" + strings.Repeat("ab", n/2+1)[:n]
			case 1:
				url = "/" + word("aab", n)
			case 2: // the bigrams that decide come last
				url = "/" + strings.Repeat("ab", n/2+1)[:n] + word("abc", next(12))
			}
			got := check(p, "FooBot", url)
			allowed, line := naiveCheck(file, "FooBot", url)
			if got.Allowed != allowed || got.Line != line {
				t.Fatalf("round %d: Check(%q) = %+v; naive says allowed=%v line=%d\nrobots.txt:\n%s", round, url, got, allowed, line, file)
			}
		}
	}
}
