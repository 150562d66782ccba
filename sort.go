package robotsext

// This file orders literal rules by the 48-bit keys sortLiterals stores in
// them, then by line.

import "slices"

// ruleKey is the key sortLiterals stores in the upper half of r.n and in
// r.parent.
func ruleKey(r *rule) uint64 {
	return uint64(r.n>>16)<<32 | uint64(uint32(r.parent))
}

// compareRules orders rules by key, then line.
func compareRules(a, b rule) int {
	ka, kb := ruleKey(&a), ruleKey(&b)
	switch {
	case ka < kb:
		return -1
	case ka > kb:
		return 1
	}
	return int(a.line) - int(b.line)
}

// sortRules sorts rs by compareRules. The standard library's
// pattern-defeating quicksort is kept for its guarantees on runs and
// repeated keys, which real files are full of (30,000 rules under one
// six-octet prefix is not rare); the comparison is two integer
// comparisons that touch no text.
func sortRules(rs []rule) {
	slices.SortFunc(rs, compareRules)
}
