package robotstxt

// This file builds a group's index the first time a question needs the
// group: its literal rules sorted in place for binary search, with prefix
// parents, and its wildcard rules in precedence order with octet masks.
// A crawler pays only for the groups that apply to it.

import (
	"cmp"
	"math/bits"
	"slices"
	"strings"
)

// groupIndex is the index of one group, immutable once published in
// Policy.index. The group's literal rules (no '*', no final '$') are lits,
// sorted by pattern, Allow first, then line, with repeated patterns
// dropped: the first of each is the one that decides.
type groupIndex struct {
	lits []litRule
	// keys[i] is prefix8 of the pattern of lits[i]: the binary search
	// reads this dense array and touches the text only on equal keys.
	keys []uint64
	// parents[i] is the index in lits of the longest other literal
	// pattern that is a proper prefix of lits[i], or -1.
	parents []int32
	// For groups of at least minLitIndex literal rules, keyStarts narrows
	// the binary search over keys: every key has the same top keyShift
	// bits, and the keys whose next eight bits are c are
	// keys[keyStarts[c]:keyStarts[c+1]] (see indexKeys).
	keyStarts []int32
	keyShift  uint8
	// wild holds the wildcard rules by precedence: priority (pattern
	// length) descending, Allow first, then line. The first that matches a
	// path is the group's best wildcard match.
	wild []wildRule
	// masks[i] is octetMask of wild[i]: a path lacking one of its octets
	// cannot match.
	masks []uint64
	// wildTop is the highest prec of wild, or 0 when it is empty: a check
	// whose literal match has a higher prec looks at no wildcard rule.
	wildTop uint64
	// For groups of many wildcard rules, wild and masks are sorted into
	// buckets by the octet after a leading '/': the rules of bucket c
	// (whose pattern starts with '/' and the literal octet c) are
	// wild[starts[c]:starts[c+1]], and every other rule is in bucket 256.
	// A path whose second octet is c can match only rules of buckets c and
	// 256, each in precedence order. Nil for groups of fewer than
	// minBuckets wildcard rules.
	starts []int32
	// grams lists, in groups of minGramList wildcard rules or more, the
	// rules of each bucket by the rarer of their two bigrams: a check that
	// gathered a path's bigrams then visits only the rules whose bigram
	// the path holds (see gramList). Empty for smaller groups.
	grams gramList
}

// gramList lists wildcard rules by key: a rule's bucket times 1<<14, plus
// the code of the rarer of its two bigrams (wildRule.grams&0xffff; 0 for a
// rule without bigrams). The rules of
// keys[i] are wild[at[i0]], … wild[at[ends[i]-1]], where i0 is ends[i-1]
// (0 for i = 0), in precedence order. A bucket's keys are one run of keys,
// which is ascending.
type gramList struct {
	keys []uint32
	ends []int32
	at   []int32
}

// minGramList is the number of wildcard rules from which a group's index
// lists them by bigram: below it, testing each rule's bigrams costs less
// than looking them up.
const minGramList = 64

// gramKey is the key of gramList for the rarer bigram code of a rule of
// bucket.
func gramKey(bucket int, code uint32) uint32 { return uint32(bucket)<<14 | code }

// A group listed by bigram is bucketed and its rules have grams.
const (
	_ uint = minGramList - minBuckets
	_ uint = minGramList - minGramRules
)

// listGrams builds ix.grams once ix.wild is bucketed.
func (p *Policy) listGrams(ix *groupIndex) {
	type entry struct {
		key uint32
		at  int32
	}
	es := make([]entry, len(ix.wild))
	for i, w := range ix.wild {
		es[i] = entry{gramKey(wildBucket(p.text[w.off:w.off+uint32(w.match)]), w.grams&0xffff), int32(i)}
	}
	slices.SortFunc(es, func(a, b entry) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(a.at, b.at)
	})
	g := &ix.grams
	g.at = make([]int32, len(es))
	for i, e := range es {
		g.at[i] = e.at
		if i+1 == len(es) || es[i+1].key != e.key {
			g.keys = append(g.keys, e.key)
			g.ends = append(g.ends, int32(i+1))
		}
	}
}

// litRule is a literal rule in a group's index, with the octets 8 to 15 of
// its pattern packed as prefix8 packs the first eight (zero-padded; 0 for
// patterns of up to eight octets). Beside the rule, which a check reads
// anyway, the tail answers for patterns of up to sixteen octets without a
// read of the text.
type litRule struct {
	rule
	tail uint64
}

// minBuckets is the number of wildcard rules from which a group's index
// buckets them (see groupIndex.order).
const minBuckets = 16

// wildBucket is the bucket of a wildcard pattern (without its final '$').
func wildBucket(pat string) int {
	if len(pat) >= 2 && pat[0] == '/' && pat[1] != '*' {
		return int(pat[1])
	}
	return 256
}

// wildRule is a rule whose pattern holds '*' or ends in '$', or the
// directory rule an Allow of ".../index.htm..." implies (see
// indexHTMLPrefix).
type wildRule struct {
	// prec is precOf(priority, allow, line); the priority is n, or the
	// directory's length plus its '$'.
	prec uint64
	off  uint32 // the rule's pattern as stored: text[off:off+n]
	// grams holds the codes (see gramCode) of two bigrams of the
	// pattern's literal pieces, as g1 | g2<<16, which every path it
	// matches holds; 0 when it has none or its group is too small for
	// them to be used (see pickGrams).
	grams uint32
	n     uint16
	match uint16 // the length of it to match: n without a final '$', or the directory's
	// star and last are the first and last '*' of text[off:off+match],
	// or match when it has none.
	star, last uint16
	// min is the length of the shortest path it matches: the octets to
	// match that are not '*'.
	min    uint16
	anchor bool // a final '$' (written, or the directory rule's) anchors the end
}

// Patterns are at most three octets per octet of a line (see writeEscaped),
// so wildRule's 16-bit lengths hold them; this fails to compile otherwise.
const _ uint16 = 3 * maxLineLen

// newWildRule describes the rule of precedence prec whose pattern is
// pat, stored at off, matching pat[:match].
func newWildRule(prec uint64, off uint32, pat string, match int, anchor bool) wildRule {
	star, last := stars(pat[:match])
	return wildRule{
		prec: prec, off: off, n: uint16(len(pat)), match: uint16(match),
		star: uint16(star), last: uint16(last),
		min:    uint16(match - strings.Count(pat[:match], "*")),
		anchor: anchor,
	}
}

// gramCode is the code of the bigram of octets a and b: their low seven
// bits each (patterns and paths are US-ASCII), in 14 bits, never 0 for
// the octets of a pattern (which holds no NUL).
func gramCode(a, b byte) uint32 { return uint32(a&0x7f)<<7 | uint32(b&0x7f) }

// minGramRules is the number of wildcard rules from which a group's rules
// are given grams: a check turns to them only after wildTries rules failed
// to match (see scanWild).
const minGramRules = wildTries + 2

// pickGrams gives each wildcard rule of ix the two bigrams of its literal
// pieces (the octets between its '*') that the fewest of the group's
// patterns hold, the later of equals: a path is then unlikely to hold them
// by chance. Counts are kept in a small table by a hash of the bigram; a
// collision only makes a choice less good, never wrong.
func (p *Policy) pickGrams(ix *groupIndex) {
	var count [1024]uint16
	each := func(pat string, fn func(code uint32)) {
		for i := 0; i+1 < len(pat); i++ {
			if pat[i] != '*' && pat[i+1] != '*' {
				fn(gramCode(pat[i], pat[i+1]))
			}
		}
	}
	slot := func(code uint32) *uint16 { return &count[gramHash(code, 10)] }
	for _, w := range ix.wild {
		each(p.text[w.off:w.off+uint32(w.match)], func(code uint32) {
			if c := slot(code); *c < 1<<16-1 {
				*c++
			}
		})
	}
	for i := range ix.wild {
		w := &ix.wild[i]
		var g1, g2 uint32 // g1 the rarer
		each(p.text[w.off:w.off+uint32(w.match)], func(code uint32) {
			switch {
			case code == g1 || code == g2:
			case g1 == 0 || *slot(code) <= *slot(g1):
				g1, g2 = code, g1
			case g2 == 0 || *slot(code) <= *slot(g2):
				g2 = code
			}
		})
		if g2 == 0 {
			g2 = g1
		}
		w.grams = g1 | g2<<16
	}
}

// gramHash hashes a bigram's code to bits bits.
func gramHash(code uint32, bits uint) uint32 { return code * 0x9E3779B1 >> (32 - bits) }

// groupIndex returns group g's index, building it on first use. Building
// takes p.mu; readers of a published index take no lock.
func (p *Policy) groupIndex(g int32) *groupIndex {
	if ix := p.index[g].Load(); ix != nil {
		return ix
	}
	return p.buildGroupIndex(g)
}

// buildGroupIndex is the slow path of groupIndex, apart so that the fast
// path is inlined.
func (p *Policy) buildGroupIndex(g int32) *groupIndex {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ix := p.index[g].Load(); ix != nil {
		return ix // built while this call waited
	}
	ix := p.buildIndex(p.groups[g])
	p.index[g].Store(ix)
	return ix
}

// buildIndex sorts the literal rules of gr to the front of its span and
// builds the rest of its index. Only the group's own span is written, and
// nothing reads it before the index is published.
func (p *Policy) buildIndex(gr group) *groupIndex {
	rs := p.rules[gr.start:gr.end]
	ix := new(groupIndex)
	// Wildcard rules (and the directory rules of index.html Allows) are
	// counted first, so that wild is allocated at its size.
	nWild := 0
	for _, r := range rs {
		pat := p.pattern(r)
		if r.isAllow() && indexHTMLPrefix(pat) >= 0 {
			nWild++
		}
		if isWild(pat) {
			nWild++
		}
	}
	ix.wild = make([]wildRule, 0, nWild)
	// Wildcard rules leave the span; literal rules close up in file order.
	lits := 0
	for _, r := range rs {
		pat := p.pattern(r)
		if r.isAllow() {
			if k := indexHTMLPrefix(pat); k >= 0 {
				ix.wild = append(ix.wild, newWildRule(precOf(int32(k+1), true, r.line()), r.off(), pat, k, true))
			}
		}
		if isWild(pat) {
			m := strings.TrimSuffix(pat, "$")
			ix.wild = append(ix.wild, newWildRule(precOf(int32(len(pat)), r.isAllow(), r.line()), r.off(), pat, len(m), len(m) < len(pat)))
			continue
		}
		rs[lits] = r
		lits++
	}
	rs = rs[:lits]
	rs = rs[:p.sortLiterals(rs)]
	ix.lits = make([]litRule, len(rs))
	for i, r := range rs {
		ix.lits[i] = litRule{r, 0}
		if pat := p.pattern(r); len(pat) > 8 {
			ix.lits[i].tail = prefix8(pat[8:])
		}
	}
	ix.parents = p.prefixParents(rs)
	// Keys and masks share one allocation: a check reads both.
	words := make([]uint64, len(rs)+len(ix.wild))
	ix.keys, ix.masks = words[:len(rs):len(rs)], words[len(rs):]
	for i, r := range rs {
		ix.keys[i] = prefix8(p.pattern(r))
	}
	if len(rs) >= minLitIndex {
		indexKeys(ix)
	}
	// Precedence order: the highest prec first.
	slices.SortFunc(ix.wild, func(a, b wildRule) int { return cmp.Compare(b.prec, a.prec) })
	if len(ix.wild) > 0 {
		ix.wildTop = ix.wild[0].prec
	}
	for i, w := range ix.wild {
		ix.masks[i] = octetMask(p.text[w.off : w.off+uint32(w.match)])
	}
	if len(ix.wild) >= minGramRules {
		p.pickGrams(ix)
	}
	if len(ix.wild) >= minBuckets {
		p.bucketWild(ix)
	}
	if len(ix.wild) >= minGramList {
		p.listGrams(ix)
	}
	return ix
}

// minLitIndex is the number of literal rules from which a group's keys
// are indexed (indexKeys): below it, the binary search's few steps stay
// in a cache line or two, and the index would be one more line to read.
const minLitIndex = 64

// indexKeys indexes the sorted keys of ix by the eight bits that follow
// the bits they all share, so that a check searches only the keys with
// its own eight bits. Keys that share 57 bits or more are not indexed.
func indexKeys(ix *groupIndex) {
	keys := ix.keys
	shift := bits.LeadingZeros64(keys[0] ^ keys[len(keys)-1])
	if shift > 56 {
		return
	}
	starts := make([]int32, 257)
	i := 0
	for c := range 256 {
		starts[c] = int32(i)
		for i < len(keys) && int(keys[i]<<shift>>56) == c {
			i++
		}
	}
	starts[256] = int32(len(keys))
	ix.keyStarts, ix.keyShift = starts, uint8(shift)
}

// bucketWild sorts the wildcard rules of ix into buckets, keeping
// precedence order within each (a counting sort).
func (p *Policy) bucketWild(ix *groupIndex) {
	ix.starts = make([]int32, 258)
	for _, w := range ix.wild {
		ix.starts[wildBucket(p.text[w.off:w.off+uint32(w.match)])+1]++
	}
	for c := 1; c < len(ix.starts); c++ {
		ix.starts[c] += ix.starts[c-1]
	}
	next := slices.Clone(ix.starts[:257])
	wild := make([]wildRule, len(ix.wild))
	masks := slices.Clone(ix.masks)
	for i, w := range ix.wild {
		b := wildBucket(p.text[w.off : w.off+uint32(w.match)])
		j := next[b]
		next[b]++
		wild[j], ix.masks[j] = w, masks[i] // masks stay beside the keys
	}
	ix.wild = wild
}

// isWild reports whether a pattern is matched by the wildcard matcher: it
// holds '*' or ends in '$'.
func isWild(pat string) bool {
	return len(pat) > 0 && pat[len(pat)-1] == '$' || strings.IndexByte(pat, '*') >= 0
}

// indexHTMLPrefix returns the length of the pattern up to and including its
// last '/' when that slash starts "/index.htm", else -1. Such an Allow rule
// also allows the directory itself (the reference's index.html rule).
// Percent-encoding never adds or moves a '/', so the pattern as stored and
// as written give the same directory.
func indexHTMLPrefix(pat string) int {
	k := strings.LastIndexByte(pat, '/')
	const index = "/index.htm"
	if k < 0 || !strings.HasPrefix(pat[k:], index) {
		return -1
	}
	return k + 1
}

// litCompare orders literal rules: by pattern, then Allow before Disallow,
// then by line.
func (p *Policy) litCompare(a, b rule) int {
	if c := strings.Compare(p.pattern(a), p.pattern(b)); c != 0 {
		return c
	}
	if a.isAllow() != b.isAllow() {
		if a.isAllow() {
			return -1
		}
		return 1
	}
	return int(a.line() - b.line())
}

// sortLiterals sorts rs by litCompare, drops every rule whose pattern an
// earlier rule of rs has (the Allow, or the earliest line, stays), and
// returns how many rules remain at the front of rs.
func (p *Policy) sortLiterals(rs []rule) int {
	if !slices.IsSortedFunc(rs, p.litCompare) {
		// Many files list their rules sorted; others are sorted once on
		// the first sixteen octets of their patterns as two keys: most
		// comparisons read the keys alone, even among the long shared
		// prefixes of large files (/catalog/product/…).
		keyed := make([]keyedRule, len(rs))
		for i, r := range rs {
			pat := p.pattern(r)
			keyed[i] = keyedRule{key: prefix8(pat), r: r}
			if len(pat) > 8 {
				keyed[i].next = prefix8(pat[8:])
			}
		}
		if len(keyed) >= minRadix {
			radixSort(keyed, make([]keyedRule, len(keyed)))
			// Rules whose patterns share their first sixteen octets are
			// runs of keyed, in file order: each run is sorted on.
			for i := 0; i < len(keyed); {
				j := i + 1
				for j < len(keyed) && keyed[j].key == keyed[i].key && keyed[j].next == keyed[i].next {
					j++
				}
				if j-i > 1 {
					slices.SortFunc(keyed[i:j], func(a, b keyedRule) int { return p.litCompare(a.r, b.r) })
				}
				i = j
			}
		} else {
			slices.SortFunc(keyed, func(a, b keyedRule) int {
				if a.key != b.key {
					return cmp.Compare(a.key, b.key)
				}
				if a.next != b.next {
					return cmp.Compare(a.next, b.next)
				}
				return p.litCompare(a.r, b.r)
			})
		}
		for i, k := range keyed {
			rs[i] = k.r
		}
	}
	kept := 0
	for i := range rs {
		if kept > 0 && p.pattern(rs[i]) == p.pattern(rs[kept-1]) {
			continue // a repeat: the rule before it decides
		}
		rs[kept] = rs[i]
		kept++
	}
	return kept
}

// minRadix is the number of literal rules from which sortLiterals sorts
// them by radix (radix.go): below it, a comparison sort costs less than
// sixteen counting passes.
const minRadix = 256

// keyedRule is a rule with the first sixteen octets of its pattern as
// two keys (prefix8 of each half, zero-padded, so that the keys order as
// the octets do).
type keyedRule struct {
	key, next uint64
	r         rule
}

// prefixParents links each pattern of the sorted rs to its longest proper
// prefix in rs.
func (p *Policy) prefixParents(rs []rule) []int32 {
	parents := make([]int32, len(rs))
	var stack []int32 // chain of prefixes of the current pattern
	for i := range rs {
		pat := p.pattern(rs[i])
		for len(stack) > 0 && !strings.HasPrefix(pat, p.pattern(rs[stack[len(stack)-1]])) {
			stack = stack[:len(stack)-1]
		}
		parents[i] = -1
		if len(stack) > 0 {
			parents[i] = stack[len(stack)-1]
		}
		stack = append(stack, int32(i))
	}
	return parents
}
