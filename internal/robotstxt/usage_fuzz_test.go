package robotstxt

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/robotsext/robotsext/internal/signals"
)

// usageKeysRE finds the keys of usage lines, to blank them out.
var usageKeysRE = regexp.MustCompile(`(?im)^([ \t]*)content-(usage|signal)`)

// FuzzUsage reads Content-Usage and Content-Signal lines: never a panic;
// statements name lines of the file, one per key and mechanism, sorted;
// the statement in force for a key is the most restrictive of its
// mechanisms', also once merged with a Content-Usage response header; a
// Set survives its own encoding; and the same file with
// the usage lines' keys renamed to an unknown key decides every URL the
// same.
func FuzzUsage(f *testing.F) {
	// draft-ietf-aipref-attach's example, and the demo site's file.
	f.Add([]byte("User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: / train-ai=n\nContent-Usage: /ai-ok/ train-ai=y\n\n"+
		"User-Agent: ExampleBot\nAllow: /\nContent-Usage: / train-ai=y\n"), "train-ai=n, search=y", "/ai-ok/x")
	f.Add([]byte("User-Agent: *\nAllow: /\nDisallow: /never/\nContent-Usage: /members/ train-ai=n\n"+
		"Content-Usage: /ai-ok/ train-ai=y\nContent-Signal: /news/ ai-train=no, search=yes\n"), "Train-AI=n", "/news/d")
	f.Add([]byte("Content-Signal: ai-train=no\nUser-agent: *\nContent-Usage: /*.pdf$ train-ai=n;x=1, a=(1 2)\nDisallow: /x\n"), "train-ai=?0", "/a.pdf")
	f.Add([]byte("User-agent: *\nContent-Usage: / train-ai=n, train-ai=y\nContent-Usage: /\u00e9\ttrain-ai=\"y\"\n"), "", "/%C3%A9")
	// The round-4 defect: a longer Content-Usage "y" under a Content-Signal "no".
	f.Add([]byte("User-agent: *\nContent-Signal: search=yes, ai-train=no\nContent-Usage: /open/ train-ai=y\n"), "search=n", "/open/a")
	f.Fuzz(func(t *testing.T, robots []byte, header, rawURL string) {
		if len(robots) > 16<<10 || len(rawURL) > 4096 {
			t.Skip("small inputs")
		}
		p := parsePolicy(robots)
		lines := 1 + strings.Count(string(robots), "\n") + strings.Count(string(robots), "\r")
		for _, ua := range []string{"FooBot", "ExampleBot", ""} {
			u := p.Usage(ua, rawURL)
			all := u.All()
			if !slices.IsSortedFunc(all, func(a, b signals.Statement) int { return strings.Compare(a.Key, b.Key) }) {
				t.Fatalf("statements not sorted: %v", all)
			}
			for i, s := range all {
				if s.Key == "" || (i > 0 && all[i-1].Key == s.Key && all[i-1].Source == s.Source) {
					t.Fatalf("empty key, or two of one mechanism, in %v", all)
				}
				if s.Line < 1 || s.Line > lines || (s.Source != signals.SourceContentUsage && s.Source != signals.SourceContentSignal) || s.Preference > signals.No {
					t.Fatalf("statement %+v of a %d-line file", s, lines)
				}
				if in := u.Lookup(s.Key); in.Preference < s.Preference {
					t.Fatalf("%v in force for %q, less restrictive than %v", in, s.Key, s)
				}
			}
			if signals.SetOf(all) != u {
				t.Fatalf("%v does not survive its encoding", all)
			}
			h := signals.SetOf(signals.ContentUsageHeader([]string{header}))
			merged := u.Merge(h)
			for _, s := range append(all, h.All()...) {
				want := max(u.Lookup(s.Key).Preference, h.Lookup(s.Key).Preference)
				if got := merged.Lookup(s.Key); got.Preference != want {
					t.Fatalf("%q merged with header %q: %v for %q, want %v", robots, header, got, s.Key, want)
				}
			}
			if !u.IsZero() && !check(p, ua, rawURL).Allowed {
				t.Fatalf("preferences %v for a disallowed URL", all)
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
