package robotsext

import (
	"testing"
)

// sortRules orders by key, then line, on keys drawn from a few values (many
// ties), sorted and reversed inputs, and a long run of one key in file
// order after smaller keys (the shape of a real file with 30,000 rules
// under "/html/").
func TestSortRules(t *testing.T) {
	t.Parallel()
	var x uint64 = 0x9E3779B97F4A7C15
	next := func() uint64 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return x
	}
	for _, n := range []int{0, 1, 2, 17, 100, 5000} {
		for _, shape := range []string{"random", "ties", "sorted", "reversed", "run"} {
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
				case "run":
					if i > n/10 {
						k = 1 << 40
					} else {
						k %= 1 << 40
					}
				}
				rs[i] = rule{n: uint32(k>>32) << 16, parent: int32(uint32(k)), line: int32(i)}
			}
			sortRules(rs)
			for i := 1; i < len(rs); i++ {
				if compareRules(rs[i-1], rs[i]) > 0 {
					t.Fatalf("%d %s: positions %d and %d out of order", n, shape, i-1, i)
				}
			}
		}
	}
}
