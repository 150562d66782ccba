package robotstxt

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSortLiteralsRadix proves that the radix sort of large groups orders
// and deduplicates their literal rules exactly as the comparison sort
// (litCompare) does: patterns sharing their first sixteen octets and
// more, patterns shorter than eight octets, repeats as Allow and Disallow
// on several lines, long patterns, in file order, reversed and shuffled.
func TestSortLiteralsRadix(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(49, 2))
	var pats []string
	for i := range 3 * minRadix {
		switch i % 4 {
		case 0:
			pats = append(pats, fmt.Sprintf("/catalog/product/view/id/%d", rng.IntN(200)))
		case 1:
			pats = append(pats, fmt.Sprintf("/%c", 'a'+rng.IntN(26)))
		case 2:
			pats = append(pats, "/"+strings.Repeat("x", rng.IntN(40))+fmt.Sprint(rng.IntN(5)))
		default:
			pats = append(pats, fmt.Sprintf("/p%d/q%d", rng.IntN(1000), rng.IntN(3)))
		}
	}
	pats = append(pats, "/"+strings.Repeat("long/", 2000)) // longer than longLen
	for _, order := range []string{"file", "sorted", "reversed", "shuffled"} {
		t.Run(order, func(t *testing.T) {
			t.Parallel()
			ps := slices.Clone(pats)
			switch order {
			case "sorted":
				slices.Sort(ps)
			case "reversed":
				slices.Sort(ps)
				slices.Reverse(ps)
			case "shuffled":
				rand.New(rand.NewPCG(7, 7)).Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
			}
			var b strings.Builder
			b.WriteString("User-agent: *\n")
			for i, p := range ps {
				key := "Disallow"
				if i%3 == 0 {
					key = "Allow"
				}
				fmt.Fprintf(&b, "%s: %s\n", key, p)
			}
			var p Policy
			p.Parse([]byte(b.String()))
			gr := p.groups[0]
			got := slices.Clone(p.rules[gr.start:gr.end])
			want := slices.Clone(got)
			slices.SortFunc(want, p.litCompare)
			want = slices.CompactFunc(want, func(a, b rule) bool { return p.pattern(a) == p.pattern(b) })
			got = got[:p.sortLiterals(got)]
			if !slices.Equal(got, want) {
				t.Fatalf("%d rules sorted, %d by litCompare; first difference at %d", len(got), len(want), firstDiff(got, want))
			}
		})
	}
}

func firstDiff(a, b []rule) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
