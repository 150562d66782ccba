package robotstxt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// This file holds the fuzz targets and a deliberately naive second matcher
// that FuzzCheck compares the compiled Policy against. The naive matcher
// shares only the line parser (EachDirective) with the real one: it walks
// the directives once per question, keeps every rule, and matches patterns
// by memoised recursion, so that a bug in grouping, indexing, sorting or
// pattern matching shows up as a disagreement.

// naiveMatch matches pattern against path by memoised recursion on both
// strings: a '*' either matches nothing or swallows one more octet.
func naiveMatch(pattern, path string) bool {
	const (
		unknown = iota
		no
		yes
	)
	memo := make([]byte, (len(pattern)+1)*(len(path)+1))
	var rec func(i, j int) bool
	rec = func(i, j int) bool {
		cell := &memo[i*(len(path)+1)+j]
		if *cell != unknown {
			return *cell == yes
		}
		var r bool
		switch {
		case i == len(pattern):
			r = true // patterns match prefixes of the path
		case pattern[i] == '$' && i == len(pattern)-1:
			r = j == len(path)
		case pattern[i] == '*':
			r = rec(i+1, j) || (j < len(path) && rec(i, j+1))
		default:
			r = j < len(path) && path[j] == pattern[i] && rec(i+1, j+1)
		}
		*cell = no
		if r {
			*cell = yes
		}
		return r
	}
	return rec(0, 0)
}

// naiveEscape percent-encodes a pattern one octet at a time.
func naiveEscape(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] == '%' && i+2 < len(v) && isHex(v[i+1]) && isHex(v[i+2]):
			b.WriteString("%" + strings.ToUpper(v[i+1:i+3]))
			i += 2
		case v[i] >= 0x80:
			fmt.Fprintf(&b, "%%%02X", v[i])
		default:
			b.WriteByte(v[i])
		}
	}
	return b.String()
}

// naiveCheck answers one question by reading the whole file again.
func naiveCheck(robots []byte, ua, rawURL string) (allowed bool, line int) {
	path := RequestPath(rawURL)
	if path == "/robots.txt" {
		return true, 0
	}
	type match struct{ prio, line int }
	type rule struct {
		allow   bool
		pattern string
		line    int
	}
	// Pass 1: form groups and note which apply to ua.
	type grp struct {
		specific, global bool
		rules            []rule
	}
	var groups []*grp
	var cur *grp
	closed := true
	EachDirective(robots, func(d Directive) {
		switch d.Key {
		case KeyUserAgent:
			if cur == nil || closed {
				cur = &grp{}
				groups = append(groups, cur)
				closed = false
			}
			v := string(d.Value)
			if strings.HasPrefix(v, "*") && (len(v) == 1 || isSpace(v[1])) {
				cur.global = true
			} else {
				end := 0
				for end < len(v) && IsTokenChar(v[end]) {
					end++
				}
				if strings.EqualFold(v[:end], ua) {
					cur.specific = true
				}
			}
		case KeyAllow, KeyDisallow:
			if cur == nil {
				return
			}
			closed = true
			cur.rules = append(cur.rules, rule{d.Key == KeyAllow, naiveEscape(string(d.Value)), int(d.Line)})
		}
	})
	anySpecific := false
	for _, g := range groups {
		anySpecific = anySpecific || g.specific
	}
	allow, disallow := match{-1, 0}, match{-1, 0}
	for _, g := range groups {
		if (anySpecific && !g.specific) || (!anySpecific && !g.global) {
			continue
		}
		for _, r := range g.rules {
			patterns := []string{r.pattern}
			if k := strings.LastIndex(r.pattern, "/"); r.allow && k >= 0 && strings.HasPrefix(r.pattern[k:], "/index.htm") {
				patterns = append(patterns, r.pattern[:k+1]+"$")
			}
			for _, p := range patterns {
				if !naiveMatch(p, path) {
					continue
				}
				m := &disallow
				if r.allow {
					m = &allow
				}
				if len(p) > m.prio { // strictly longer: the earlier line keeps ties
					*m = match{len(p), r.line}
				}
			}
		}
	}
	if allow.prio <= 0 && disallow.prio <= 0 {
		if disallow.prio > allow.prio {
			return true, disallow.line
		}
		return true, allow.line
	}
	if disallow.prio > allow.prio {
		return false, disallow.line
	}
	return true, allow.line
}

// corpusDir is the real-world corpus of robots.txt files, beside the
// module's checkout (../shared/corpus/robots from the module root, three
// levels above this directory). Tests that read it skip it when absent.
var corpusDir = filepath.Join("..", "..", "..", "shared", "corpus", "robots")

// corpusSeeds returns up to limit real-world files of the corpus (when
// present), as seeds.
func corpusSeeds(limit int) [][]byte {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.txt"))
	var out [][]byte
	for _, name := range files {
		if len(out) == limit {
			break
		}
		if b, err := os.ReadFile(name); err == nil && len(b) < 64<<10 {
			out = append(out, b)
		}
	}
	return out
}

var seedFiles = []string{
	"User-agent: *\nDisallow: /private/\nDisallow: /*.pdf$\nAllow: /private/public-page.html\n",
	"User-agent: FooBot\nUser-agent: BarBot\nDisallow: /a\nAllow: /a/b$\nCrawl-delay: 2\n\nUser-agent: *\nDisallow: /\n",
	"\xEF\xBB\xBFuser-agent foobot\r\ndisallow /x\r\nallow: /d/index.html\rsitemap: https://e.com/s.xml\n",
	"User-agent: *\nDisallow: /" + strings.Repeat("*", 200) + "\n",
	"User-agent: *\nDisallow: /a%3c\u00e9\x00junk\nRequest-rate: 1/5m\n",
}

func FuzzParse(f *testing.F) {
	for _, s := range seedFiles {
		f.Add([]byte(s))
	}
	for _, b := range corpusSeeds(20) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, robots []byte) {
		p := parsePolicy(robots)
		lines := 1 + strings.Count(string(robots), "\n") + strings.Count(string(robots), "\r")
		for _, ua := range []string{"FooBot", "*", ""} {
			v := check(p, ua, "/a/b?c")
			if v.Line < 0 || v.Line > lines {
				t.Fatalf("line %d outside the file's %d lines", v.Line, lines)
			}
			if d, ok := p.CrawlDelay(ua); ok && d <= 0 {
				t.Fatalf("CrawlDelay = %v, true; want a positive delay", d)
			}
			gl, _ := p.Groups(ua)
			for _, l := range gl {
				if l < 1 || l > lines {
					t.Fatalf("group line %d outside the file's %d lines", l, lines)
				}
			}
		}
		for _, s := range p.Sitemaps() {
			if low := strings.ToLower(s); !strings.HasPrefix(low, "http://") && !strings.HasPrefix(low, "https://") {
				t.Fatalf("sitemap %q is not an absolute http(s) URL", s)
			}
		}
		if n := len(p.rules); n > 2*lines {
			t.Fatalf("%d rules from %d lines", n, lines)
		}
	})
}

func FuzzCheck(f *testing.F) {
	urls := []string{"/private/x", "/docs/manual.pdf", "http://e.com/a/b$?q=1#f", "/d/", "/%C3%A9", "/" + strings.Repeat("a*", 40)}
	for i, s := range seedFiles {
		f.Add([]byte(s), "FooBot", urls[i%len(urls)])
	}
	f.Fuzz(func(t *testing.T, robots []byte, ua, rawURL string) {
		if len(robots) > 4<<10 || len(rawURL) > 5000 {
			t.Skip("the naive matcher is for small inputs")
		}
		p := parsePolicy(robots)
		got := check(p, ua, rawURL)
		allowed, line := naiveCheck(robots, ua, rawURL)
		if got.Allowed != allowed || got.Line != line {
			t.Fatalf("Check(%q, %q) = %+v; naive says allowed=%v line=%d\nrobots.txt: %q", ua, rawURL, got, allowed, line, robots)
		}
		// The hook's form: groups resolved once per token, then Decide.
		if sel := decide(p, p.Select(ua), RequestPath(rawURL)); sel != got {
			t.Fatalf("Decide(Select(%q), %q) = %+v; Check says %+v\nrobots.txt: %q", ua, rawURL, sel, got, robots)
		}
	})
}

// TestNaiveAgreesOnSeeds runs the differential check on a fixed grid so that
// plain "go test" exercises it without -fuzz.
func TestNaiveAgreesOnSeeds(t *testing.T) {
	t.Parallel()
	urls := []string{"/", "/private/x", "/private/public-page.html", "/docs/manual.pdf", "/a", "/a/b", "/d/", "/d/index.html", "/x", "/%C3%A9", "/a%3C%C3%A9", "/robots.txt", "?q", "/" + strings.Repeat("a", 300)}
	for _, s := range seedFiles {
		for _, ua := range []string{"FooBot", "BarBot", "foobot", "Other"} {
			for _, u := range urls {
				got := check(parsePolicy([]byte(s)), ua, u)
				allowed, line := naiveCheck([]byte(s), ua, u)
				if got.Allowed != allowed || got.Line != line {
					t.Errorf("Check(%q, %q) = %+v; naive says allowed=%v line=%d\nrobots.txt: %q", ua, u, got, allowed, line, s)
				}
			}
		}
	}
}

// Hostile inputs: each must parse and answer without panicking, in bounded
// time and memory. Timing is not asserted here (see the benchmarks); a hang
// would show up as the test binary's timeout.
func TestHostileInputs(t *testing.T) {
	t.Parallel()
	random := make([]byte, 10<<20)
	var x uint64 = 88172645463325252
	for i := range random {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		random[i] = byte(x)
	}
	var agents, rules strings.Builder
	for i := range 100_000 {
		fmt.Fprintf(&agents, "User-agent: bot%s\n", letters(i))
	}
	agents.WriteString("Disallow: /x\n")
	rules.WriteString("User-agent: *\n")
	for i := range 50_000 {
		fmt.Fprintf(&rules, "Disallow: /p%d/*q%d\nAllow: /p%d/\n", i, i, i)
	}
	tests := []struct {
		name   string
		robots []byte
		url    string
	}{
		{"10 MB random", random, "/a"},
		{"500 KiB one line", []byte("User-agent: *\nDisallow: /" + strings.Repeat("a", 500<<10)), "/" + strings.Repeat("a", 20000)},
		{"NUL bytes", []byte("User-agent: *\x00\nDisallow: /\x00a\n\x00\x00\x00"), "/"},
		{"invalid UTF-8", []byte("User-agent: \xff\xfe*\nDisallow: /\xc3\x28\xa0\xa1\n"), "/\xc3\x28"},
		{"100,000 user-agent lines", []byte(agents.String()), "/x"},
		{"50,000 rules", []byte(rules.String()), "/p49999/aq49999"},
		{"pathological wildcards", []byte("User-agent: *\nDisallow: /" + strings.Repeat("*a", 200) + "b\n"), "/" + strings.Repeat("a", 4096)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := parsePolicy(tc.robots)
			for _, ua := range []string{"FooBot", "bota0", "*"} {
				_ = check(p, ua, tc.url)
				_, _ = p.CrawlDelay(ua)
			}
		})
	}
	// Spot-check that the big files still decide correctly.
	p := parsePolicy([]byte(rules.String()))
	if v := check(p, "FooBot", "/p49999/aq49999"); v.Allowed || v.Line != 100_000 {
		t.Errorf("50,000 rules: got %+v; want disallowed by line 100000", v)
	}
	if v := check(p, "FooBot", "/p123/z"); !v.Allowed || v.Line != 249 {
		t.Errorf("50,000 rules: got %+v; want allowed by line 249", v)
	}
	if v := check(parsePolicy([]byte(agents.String())), "BOT"+letters(99_999), "/x"); v.Allowed {
		t.Errorf("100,000 agents: got %+v; want disallowed", v)
	}
}

// letters spells i in base 26 with the letters a-z, so that every agent
// token in a generated file is distinct.
func letters(i int) string {
	var b []byte
	for {
		b = append(b, byte('a'+i%26))
		i /= 26
		if i == 0 {
			return string(b)
		}
	}
}
