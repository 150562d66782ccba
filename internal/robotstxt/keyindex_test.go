package robotstxt

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestKeyIndexAgreesWithNaive: groups of many literal rules, whose keys
// the index narrows (indexKeys), decide every path as the naive reading
// of the file does, including paths whose octets after the shared ones
// fall in an empty bucket, before the first key or beyond the shared
// bits altogether. Each shape says whether its keys are indexed, so the
// test cannot pass by skipping the index.
func TestKeyIndexAgreesWithNaive(t *testing.T) {
	t.Parallel()
	letters := func(r *rand.Rand, alphabet string, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		return string(b)
	}
	tests := []struct {
		name    string
		pattern func(r *rand.Rand) string
		indexed bool
	}{
		{"second octet spread", func(r *rand.Rand) string { return "/" + letters(r, "abcdexyzAZ09-_", 1+r.IntN(12)) }, true},
		{"shared directory", func(r *rand.Rand) string { return "/cat/" + letters(r, "abkmz19", 1+r.IntN(10)) }, true},
		{"few second octets", func(r *rand.Rand) string { return "/" + letters(r, "ab", 1) + letters(r, "abc/", r.IntN(14)) }, true},
		{"one shared key", func(r *rand.Rand) string { return "/catalog/" + letters(r, "abcdef", 1+r.IntN(8)) }, false},
		{"short and long", func(r *rand.Rand) string {
			return "/" + letters(r, "ab/", r.IntN(3)) + strings.Repeat("x", r.IntN(2)*r.IntN(20))
		}, true},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := rand.New(rand.NewPCG(uint64(i), 42))
			var robots strings.Builder
			robots.WriteString("User-agent: *\n")
			var pats []string
			for range 3 * minLitIndex {
				pat := tc.pattern(r)
				pats = append(pats, pat)
				verb := "Disallow"
				if r.IntN(3) == 0 {
					verb = "Allow"
				}
				fmt.Fprintf(&robots, "%s: %s\n", verb, pat)
			}
			body := []byte(robots.String())
			p := parsePolicy(body)
			if got := p.groupIndex(0).keyStarts != nil; got != tc.indexed {
				t.Fatalf("keys indexed: %v; want %v", got, tc.indexed)
			}
			paths := []string{"/", "/!", "/~", "/~~~~~~~~~~", "/0", "/A", "/z/"}
			for _, pat := range pats {
				paths = append(paths, pat, pat+"q", pat+"/", pat[:len(pat)/2], pat+"~", strings.ToUpper(pat))
			}
			for range 300 {
				paths = append(paths, tc.pattern(r))
			}
			for _, path := range paths {
				v := check(p, "FooBot", "https://example.com"+path)
				allowed, line := naiveCheck(body, "FooBot", "https://example.com"+path)
				if v.Allowed != allowed || v.Line != line {
					t.Fatalf("%s: Check = (%v, line %d); naive = (%v, line %d)", path, v.Allowed, v.Line, allowed, line)
				}
			}
		})
	}
}
