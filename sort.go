package robotsext

// This file sorts literal rules by the 48-bit keys sortLiterals stores in
// them, then by line: a quicksort specialised to rule, so that each
// comparison is two inlined integer comparisons rather than a call through
// a comparison function.

// ruleKey is the key sortLiterals stores in the upper half of r.n and in
// r.parent.
func ruleKey(r *rule) uint64 {
	return uint64(r.n>>16)<<32 | uint64(uint32(r.parent))
}

// ruleLess orders rules by key, then line.
func ruleLess(a, b *rule) bool {
	ka, kb := ruleKey(a), ruleKey(b)
	return ka < kb || ka == kb && a.line < b.line
}

// sortRules sorts rs by ruleLess in O(n log n) time: quicksort with a
// median-of-three pivot, insertion sort for short ranges, and heapsort once
// the recursion gets deeper than 2·log2(n).
func sortRules(rs []rule) {
	limit := 0
	for n := len(rs); n > 0; n >>= 1 {
		limit += 2
	}
	quickSortRules(rs, limit)
}

func quickSortRules(rs []rule, limit int) {
	for len(rs) > 16 {
		if limit == 0 {
			heapSortRules(rs)
			return
		}
		limit--
		// Median of three to rs[0], then partition rs[1:] around it.
		m, last := len(rs)/2, len(rs)-1
		if ruleLess(&rs[m], &rs[0]) {
			rs[m], rs[0] = rs[0], rs[m]
		}
		if ruleLess(&rs[last], &rs[0]) {
			rs[last], rs[0] = rs[0], rs[last]
		}
		if ruleLess(&rs[last], &rs[m]) {
			rs[last], rs[m] = rs[m], rs[last]
		}
		rs[0], rs[m] = rs[m], rs[0]
		pivot := rs[0]
		i, j := 1, last
		for {
			for i <= j && ruleLess(&rs[i], &pivot) {
				i++
			}
			for i <= j && ruleLess(&pivot, &rs[j]) {
				j--
			}
			if i >= j {
				break
			}
			rs[i], rs[j] = rs[j], rs[i]
			i++
			j--
		}
		rs[0], rs[j] = rs[j], rs[0]
		// Recurse into the smaller side, loop on the larger.
		if j < len(rs)-j {
			quickSortRules(rs[:j], limit)
			rs = rs[j+1:]
		} else {
			quickSortRules(rs[j+1:], limit)
			rs = rs[:j]
		}
	}
	for i := 1; i < len(rs); i++ {
		for k := i; k > 0 && ruleLess(&rs[k], &rs[k-1]); k-- {
			rs[k], rs[k-1] = rs[k-1], rs[k]
		}
	}
}

func heapSortRules(rs []rule) {
	down := func(root, n int) {
		for {
			child := 2*root + 1
			if child >= n {
				return
			}
			if child+1 < n && ruleLess(&rs[child], &rs[child+1]) {
				child++
			}
			if !ruleLess(&rs[root], &rs[child]) {
				return
			}
			rs[root], rs[child] = rs[child], rs[root]
			root = child
		}
	}
	for i := len(rs)/2 - 1; i >= 0; i-- {
		down(i, len(rs))
	}
	for i := len(rs) - 1; i > 0; i-- {
		rs[0], rs[i] = rs[i], rs[0]
		down(0, i)
	}
}
