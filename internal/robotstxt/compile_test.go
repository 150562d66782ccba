package robotstxt

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// The shapes that take the parser's and the index's less common paths, each
// checked against the naive matcher of fuzz_test.go on every URL.
func TestIndexShapesAgreeWithNaive(t *testing.T) {
	t.Parallel()
	var buckets, repeats, crOnly, agents strings.Builder
	// Enough wildcard rules to be bucketed, in several buckets and the
	// generic one, with priorities interleaved across buckets.
	buckets.WriteString("User-agent: *\n")
	for i := range 40 {
		fmt.Fprintf(&buckets, "Disallow: /%c%d/*.pdf$\n", 'a'+i%5, i)
		fmt.Fprintf(&buckets, "Allow: /*/keep%d*\n", i)
		fmt.Fprintf(&buckets, "Disallow: *x%d\n", i)
	}
	buckets.WriteString("Allow: /a1/index.html\nDisallow: /a\n")
	// One block of rules repeated for three crawlers, with a value that
	// percent-encoding changes and one that repeats only in part.
	for _, ua := range []string{"FooBot", "BarBot", "*"} {
		fmt.Fprintf(&repeats, "User-agent: %s\nDisallow: /private/\nAllow: /private/caf\u00e9\nDisallow: /*.pdf$\nAllow: /%s-only/\n\n", ua, ua)
	}
	// CR-only line ends: the line count from LF is 1, the array grows.
	for i := range 30 {
		fmt.Fprintf(&crOnly, "User-agent: bot%s\rDisallow: /p%d/\rAllow: /p%d/ok\r", letters(i), i, i)
	}
	crOnly.WriteString("User-agent: FooBot\rDisallow: /foo\r")
	// More agents than the sorted table is searched for.
	for i := range 2 * manyAgents {
		fmt.Fprintf(&agents, "User-agent: bot%s\nDisallow: /only-%d/\n", letters(i), i)
	}
	agents.WriteString("User-agent: FooBot\nUser-agent: botb\nDisallow: /foo\n")
	long := "/" + strings.Repeat("l", longLen+100)
	files := map[string]string{
		"buckets":     buckets.String(),
		"repeats":     repeats.String(),
		"CR only":     crOnly.String(),
		"many agents": agents.String(),
		"long":        "User-agent: *\nDisallow: " + long + "\nAllow: " + long[:longLen] + "\nDisallow: /l\n",
	}
	urls := []string{"/", "/a", "/a1/", "/a1/x.pdf", "/b3/y.pdf", "/q/keep3/z", "/zx7", "/private/x",
		"/private/caf\u00e9", "/private/caf%C3%A9/1", "/doc.pdf", "/FooBot-only/a", "/BarBot-only/a",
		"/p3/", "/p3/ok", "/foo", "/only-7/", "/only-300/", long, long[:longLen], long + "x", "/l"}
	for name, robots := range files {
		p := parsePolicy([]byte(robots))
		for _, ua := range []string{"FooBot", "BarBot", "botb", "botc", "Other"} {
			for _, u := range urls {
				got := check(p, ua, u)
				allowed, line := naiveCheck([]byte(robots), ua, u)
				if got.Allowed != allowed || got.Line != line {
					t.Errorf("%s: Check(%q, %.40q) = %v line %d; naive: %v line %d", name, ua, u, got.Allowed, got.Line, allowed, line)
				}
			}
		}
	}
}

// The value as written is reported for rules whose pattern is stored once
// for several groups, and for patterns too long for a rule's length field.
func TestRuleAsWrittenAfterSharing(t *testing.T) {
	t.Parallel()
	long := "/" + strings.Repeat("z", longLen+5)
	robots := "User-agent: A\nDisallow: /caf\u00e9\nDisallow: /x\nDisallow: " + long + "\n\n" +
		"User-agent: B\nDisallow: /caf\u00e9\nDisallow: /x\nDisallow: " + long + "\n"
	p := parsePolicy([]byte(robots))
	for _, tc := range []struct {
		ua, url, rule string
		line          int
	}{
		{"A", "/caf%C3%A9", "/caf\u00e9", 2},
		{"B", "/caf%C3%A9", "/caf\u00e9", 7},
		{"B", "/x", "/x", 8},
		{"B", long, long, 9},
	} {
		if v := check(p, tc.ua, tc.url); v.Allowed || v.Line != tc.line || v.Rule != tc.rule {
			t.Errorf("Check(%q, %.20q) = %v, line %d, rule %.20q; want line %d, rule %.20q", tc.ua, tc.url, v.Allowed, v.Line, v.Rule, tc.line, tc.rule)
		}
	}
}

// Indexes are built on first use; many goroutines asking at once build each
// once and all get the same answers (run with -race).
func TestConcurrentFirstChecks(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for g := range 20 {
		fmt.Fprintf(&b, "User-agent: bot%s\n", letters(g))
		for r := range 50 {
			fmt.Fprintf(&b, "Disallow: /g%d/r%d/\nAllow: /*/g%d-%d$\n", g, r, g, r)
		}
	}
	robots := []byte(b.String())
	p := parsePolicy(robots)
	want := parsePolicy(robots)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				g := (i + w) % 20
				ua, u := "bot"+letters(g), fmt.Sprintf("/g%d/r%d/x", g, i%60)
				if got := check(p, ua, u); got != check(want, ua, u) {
					t.Errorf("Check(%q, %q) = %+v concurrently; %+v alone", ua, u, got, check(want, ua, u))
					return
				}
			}
		}()
	}
	wg.Wait()
}
