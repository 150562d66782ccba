package robotstxt

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// usageKeysRE finds the keys of usage lines, to blank them out.
var usageKeysRE = regexp.MustCompile(`(?im)^([ \t]*)content-(usage|signal)`)

// FuzzUsage reads Content-Usage and Content-Signal lines and a response
// header: never a panic; statements name lines of the file, one per key,
// sorted; a Usage survives its own encoding; and the same file with the
// usage lines' keys renamed to an unknown key decides every URL the same.
func FuzzUsage(f *testing.F) {
	// draft-ietf-aipref-attach's example, and the demo site's file.
	f.Add([]byte("User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: / train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\n\n"+
		"User-Agent: ExampleBot\nAllow: /\nContent-Usage: / train-ai=y\n"), "train-ai=n, search=y", "/ai-ok/x")
	f.Add([]byte("User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: /members/ train-ai=n\n"+
		"Content-Usage: /ai-ok/ train-ai=y\nContent-Signal: /news/ ai-train=no, search=yes\n"), "Train-AI=n", "/news/d")
	f.Add([]byte("Content-Signal: ai-train=no\nUser-agent: *\nContent-Usage: /*.pdf$ train-ai=n;x=1, a=(1 2)\nDisallow: /x\n"), "train-ai=?0", "/a.pdf")
	f.Add([]byte("User-agent: *\nContent-Usage: / train-ai=n, train-ai=y\nContent-Usage: /é\ttrain-ai=\"y\"\n"), "", "/%C3%A9")
	f.Fuzz(func(t *testing.T, robots []byte, header, rawURL string) {
		if len(robots) > 16<<10 || len(rawURL) > 4096 {
			t.Skip("small inputs")
		}
		p := parsePolicy(robots)
		lines := 1 + strings.Count(string(robots), "\n") + strings.Count(string(robots), "\r")
		for _, ua := range []string{"FooBot", "ExampleBot", ""} {
			u := p.Usage(ua, rawURL)
			stmts := u.Statements()
			if !slices.IsSortedFunc(stmts, func(a, b Statement) int { return strings.Compare(a.Key, b.Key) }) {
				t.Fatalf("statements not sorted: %v", stmts)
			}
			for i, s := range stmts {
				if s.Key == "" || (i > 0 && stmts[i-1].Key == s.Key) {
					t.Fatalf("empty or repeated key in %v", stmts)
				}
				if s.Line < 1 || s.Line > lines || (s.Source != SourceContentUsage && s.Source != SourceContentSignal) || s.Preference > PreferenceNo {
					t.Fatalf("statement %+v of a %d-line file", s, lines)
				}
			}
			if usageOf(stmts) != u {
				t.Fatalf("%v does not survive its encoding", u)
			}
			if !u.IsZero() && !check(p, ua, rawURL).Allowed {
				t.Fatalf("preferences %v for a disallowed URL", u)
			}
		}
		h := HeaderUsage([]string{header})
		for _, s := range h.Statements() {
			if s.Source != SourceHeader || s.Line != 0 {
				t.Fatalf("header statement %+v", s)
			}
		}
		blanked := parsePolicy(usageKeysRE.ReplaceAll(robots, []byte("${1}x-other-$2")))
		for _, ua := range []string{"FooBot", "ExampleBot", ""} {
			if got, want := check(p, ua, rawURL), check(blanked, ua, rawURL); got != want {
				t.Fatalf("usage lines changed a decision: %+v, without them %+v", got, want)
			}
		}
	})
}
