package robotsext

import (
	"slices"
	"testing"
)

// sortRules agrees with the standard library's sort on keys drawn from a
// few values (many ties), already sorted and reversed inputs, and on sizes
// on both sides of the insertion-sort cutoff; heapSortRules, the fallback,
// is checked on its own.
func TestSortRules(t *testing.T) {
	t.Parallel()
	var x uint64 = 0x9E3779B97F4A7C15
	next := func() uint64 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return x
	}
	for _, n := range []int{0, 1, 2, 15, 16, 17, 100, 5000} {
		for _, shape := range []string{"random", "ties", "sorted", "reversed"} {
			rs := make([]rule, n)
			for i := range rs {
				k := next()
				switch shape {
				case "ties":
					k %= 3
				case "sorted":
					k = uint64(i)
				case "reversed":
					k = uint64(n - i)
				}
				rs[i] = rule{n: uint32(k>>32) << 16, parent: int32(uint32(k)), line: int32(next() % 50)}
			}
			want := slices.Clone(rs)
			slices.SortFunc(want, func(a, b rule) int {
				switch {
				case ruleLess(&a, &b):
					return -1
				case ruleLess(&b, &a):
					return 1
				}
				return 0
			})
			for name, sort := range map[string]func([]rule){"sortRules": sortRules, "heapSortRules": heapSortRules} {
				got := slices.Clone(rs)
				sort(got)
				for i := range got {
					if ruleKey(&got[i]) != ruleKey(&want[i]) || got[i].line != want[i].line {
						t.Fatalf("%s, %d %s: position %d differs", name, n, shape, i)
					}
				}
			}
		}
	}
}
