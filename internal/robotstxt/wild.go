package robotstxt

// This file matches wildcard rules (a '*' or a final '$'): the scan of a
// group's wildcard rules in precedence order, the octet masks and bigrams
// that rule most of them out without matching, and the matcher itself.

import (
	"slices"
	"strings"
)

// octetMask is a 64-bit summary of the octets a wildcard pattern needs in a
// path (every octet but '*' and a final '$'). A path whose own mask lacks one
// of these bits cannot match, which lets most wildcard rules be skipped
// without scanning the path.
func octetMask(pat string) uint64 {
	pat = strings.TrimSuffix(pat, "$")
	var m uint64
	for i := 0; i < len(pat); i++ {
		if pat[i] != '*' {
			m |= 1 << (pat[i] & 63)
		}
	}
	return m
}

// pathMask is the octetMask of a path: bit c&63 is set for every octet c
// it holds.
func pathMask(path string) uint64 {
	var mask uint64
	if len(path) < 8 {
		for i := 0; i < len(path); i++ {
			mask |= 1 << (path[i] & 63)
		}
		return mask
	}
	// Eight octets at a time; the last word may overlap the one before,
	// which ORs in the same bits again. Each bit is set with one
	// instruction (x86's BTS takes the bit number modulo 64), from shifts
	// of the word that do not wait on each other, and the eight bits are
	// ORed as a tree and then into mask: a long path's loop waits on one
	// OR per word, not on eight.
	for i := 0; ; i += 8 {
		i = min(i, len(path)-8)
		x := loadAt(path, i)
		lo := (uint64(1)<<(x&63) | 1<<(x>>8&63)) | (1<<(x>>16&63) | 1<<(x>>24&63))
		hi := (uint64(1)<<(x>>32&63) | 1<<(x>>40&63)) | (1<<(x>>48&63) | 1<<(x>>56&63))
		mask |= lo | hi
		if i+8 == len(path) {
			return mask
		}
	}
}

// bestWild tries the wildcard rules of ix in precedence order and stops at
// the first match or as soon as no remaining rule could beat b. It reads
// the dense mask array and loads a rule only when the path holds every
// octet the rule needs; in groups with buckets it visits only the two
// buckets the path can match, one after the other: b keeps the better of
// their matches, so their order does not matter.
//
// *mask is pathMask(path), or 0 until a rule that could beat b needs it.
func (p *Policy) bestWild(ix *groupIndex, path string, mask *uint64, b *Match) {
	if ix.starts == nil {
		p.scanWild(ix, 0, 0, int32(len(ix.wild)), path, mask, b)
		return
	}
	// A bucket is scanned only when its first rule could beat b: most
	// checks pass over one of the two without the call.
	if len(path) >= 2 {
		c := int(path[1])
		if from, to := ix.starts[c], ix.starts[c+1]; from < to && ix.wild[from].prec > b.prec {
			p.scanWild(ix, c, from, to, path, mask, b)
		}
	}
	if from, to := ix.starts[256], ix.starts[257]; from < to && ix.wild[from].prec > b.prec {
		p.scanWild(ix, 256, from, to, path, mask, b)
	}
}

// scanWild tries the wildcard rules ix.wild[from:to], bucket's rules, which
// are in precedence order: it offers b the first whose octets the path
// holds and that matches, and stops there or at the first rule that (like
// every rule after it) cannot beat b. It computes *mask, when 0, only if
// the first rule can beat b. After wildTries rules that failed to match,
// it leaves the rest to scanGrams, which first checks that the path holds
// two bigrams of each.
func (p *Policy) scanWild(ix *groupIndex, bucket int, from, to int32, path string, mask *uint64, b *Match) {
	wild, masks := ix.wild[from:to], ix.masks[from:to]
	if len(wild) == 0 || wild[0].prec <= b.prec {
		return
	}
	if *mask == 0 {
		*mask = pathMask(path)
	}
	if b.prec != 0 && len(wild) > 8 && wild[len(wild)-1].prec <= b.prec {
		// Only the rules before the first that cannot beat b are
		// worth a look: find it, rather than test every mask.
		lo, hi := 1, len(wild)-1
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if wild[mid].prec > b.prec {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		wild, masks = wild[:lo], masks[:lo]
	}
	lack := ^*mask // the octets the path does not hold
	tries := 0
	for j, m := range masks {
		if m&lack != 0 {
			continue // the rule needs one of them
		}
		w := &wild[j]
		if w.prec <= b.prec {
			return
		}
		if int(w.min) > len(path) {
			continue
		}
		if tries == wildTries && (w.grams != 0 || ix.grams.keys != nil) {
			p.scanGrams(ix, bucket, from+int32(j), from+int32(len(wild)), path, lack, b)
			return
		}
		tries++
		if w.matches(p.text[w.off:w.off+uint32(w.match)], path) {
			*b = Match{w.prec, w.off, uint32(w.n)}
			return
		}
	}
}

// wildTries is how many wildcard rules a check matches against a path
// before it gathers the path's bigrams to rule out the others (see
// scanGrams): most checks match one or two rules, and gathering costs
// about as much as matching a rule.
const wildTries = 2

// Paths of up to shortGramPath octets have their bigrams hashed into a
// set of 1<<shortGramBits bits; longer paths get a set with a bit for
// every bigram of US-ASCII.
const (
	shortGramPath = 256
	shortGramBits = 10
)

// scanGrams is the rest of scanWild's loop, over ix.wild[lo:hi] of bucket,
// with the rules ruled out whose two bigrams (wildRule.grams) the path
// does not both hold. lack is the complement of the path's mask.
func (p *Policy) scanGrams(ix *groupIndex, bucket int, lo, hi int32, path string, lack uint64, b *Match) {
	if len(path) > shortGramPath {
		p.scanGramsLong(ix, bucket, lo, hi, path, lack, b)
		return
	}
	var set [1 << shortGramBits / 64]uint64
	s := gramSet{set[:], shortGramBits}
	s.fill(path)
	p.scanGramSet(&s, ix, bucket, lo, hi, path, lack, b)
}

// scanGramsLong is scanGrams for long paths, apart so that a check of a
// short path does not clear its larger set.
func (p *Policy) scanGramsLong(ix *groupIndex, bucket int, lo, hi int32, path string, lack uint64, b *Match) {
	var set [1 << 14 / 64]uint64
	s := gramSet{set[:], 14}
	s.fill(path)
	p.scanGramSet(&s, ix, bucket, lo, hi, path, lack, b)
}

// gramSet is a set of the bigrams of a path: of 1<<bits bits, with a bit
// for each bigram code when bits is 14, hashed otherwise. A hashed set may
// hold a bigram the path does not, which only makes a filter let more
// rules through.
type gramSet struct {
	set  []uint64
	bits uint
}

func (s *gramSet) slot(code uint32) uint32 {
	if s.bits == 14 {
		return code
	}
	return gramHash(code, s.bits)
}

// fill adds the bigrams of path to s. Its two loops know the set's size,
// which spares the bounds checks and makes the hash's shift a constant, and
// read each octet once.
func (s *gramSet) fill(path string) {
	if len(path) < 2 {
		return
	}
	a := path[0]
	if s.bits == 14 {
		// Long paths: the code is the slot.
		set := (*[1 << 14 / 64]uint64)(s.set)
		for i := 1; i < len(path); i++ {
			c := path[i]
			h := gramCode(a, c)
			set[h>>6&(1<<8-1)] |= 1 << (h & 63)
			a = c
		}
		return
	}
	// Short paths: a set of 1<<shortGramBits bits, the only other size.
	set := (*[1 << shortGramBits / 64]uint64)(s.set)
	for i := 1; i < len(path); i++ {
		c := path[i]
		h := gramHash(gramCode(a, c), shortGramBits)
		set[h>>6&(1<<shortGramBits/64-1)] |= 1 << (h & 63)
		a = c
	}
}

// holds reports whether s may hold the bigram of code.
func (s *gramSet) holds(code uint32) bool {
	h := s.slot(code)
	return s.set[h>>6]&(1<<(h&63)) != 0
}

// scanGramSet tries the rules ix.wild[lo:hi] of bucket as scanWild does,
// skipping those with a bigram missing from s. With a gramList it visits
// only the lists of the bigrams s holds (and of the rules without one),
// each in precedence order; b keeps the best of their matches.
func (p *Policy) scanGramSet(s *gramSet, ix *groupIndex, bucket int, lo, hi int32, path string, lack uint64, b *Match) {
	if ix.grams.keys == nil {
		p.tryGrams(s, ix, nil, lo, hi, path, lack, b) // every rule of the range
		return
	}
	g := &ix.grams
	k0, _ := slices.BinarySearch(g.keys, gramKey(bucket, 0))
	k1, _ := slices.BinarySearch(g.keys[k0:], gramKey(bucket+1, 0))
	for i := k0; i < k0+k1; i++ {
		if code := g.keys[i] & (1<<14 - 1); code != 0 && !s.holds(code) {
			continue // no rule of this list can match
		}
		first := int32(0)
		if i > 0 {
			first = g.ends[i-1]
		}
		at := g.at[first:g.ends[i]]
		j, _ := slices.BinarySearch(at, lo)
		p.tryGrams(s, ix, at[j:], lo, hi, path, lack, b)
	}
}

// tryGrams tries, in precedence order, the rules of ix.wild[lo:hi] that at
// lists (ascending indices), or every one of them when at is nil; it stops
// at the first match or at the first rule that cannot beat b.
func (p *Policy) tryGrams(s *gramSet, ix *groupIndex, at []int32, lo, hi int32, path string, lack uint64, b *Match) {
	n := len(at)
	if at == nil {
		n = int(hi - lo)
	}
	for k := range n {
		j := lo + int32(k)
		if at != nil {
			if j = at[k]; j >= hi {
				return
			}
		}
		if ix.masks[j]&lack != 0 {
			continue
		}
		w := &ix.wild[j]
		if w.prec <= b.prec {
			return
		}
		if int(w.min) > len(path) {
			continue
		}
		if g := w.grams; g != 0 && !(s.holds(g&0xffff) && s.holds(g>>16)) {
			continue // the path lacks one of the rule's bigrams
		}
		if w.matches(p.text[w.off:w.off+uint32(w.match)], path) {
			*b = Match{w.prec, w.off, uint32(w.n)}
			return
		}
	}
}

// matches reports whether w, whose pattern to match is pat, matches path;
// its first and last '*' were found once, when w was built.
func (w *wildRule) matches(pat, path string) bool {
	return matchStars(pat, path, int(w.star), int(w.last), w.anchor)
}

// matchStars reports whether pat, whose first and last '*' are at star and
// last (len(pat) when it has none), matches path from its start, anchored at
// path's end when anchored: the octets before the first '*' must start path,
// the pieces between follow at their leftmost places, and the octets after
// the last '*' follow them (or end path, anchored). The leftmost place is
// enough for a pattern matched as a prefix: it leaves the most room for the
// pieces after it. Time is O(len(pat) * len(path)) at worst, with no
// backtracking and no allocation.
func matchStars(pat, path string, star, last int, anchored bool) bool {
	if star == len(pat) {
		if anchored {
			return path == pat
		}
		return strings.HasPrefix(path, pat)
	}
	if len(path) < star || path[:star] != pat[:star] {
		return false
	}
	pos := star
	if last > star {
		if pos = findPieces(pat[star+1:last], path, pos); pos < 0 {
			return false
		}
	}
	tail := pat[last+1:]
	if anchored {
		return len(path)-pos >= len(tail) && strings.HasSuffix(path, tail)
	}
	return strings.Contains(path[pos:], tail)
}

// findPieces finds the '*'-separated pieces of mid in path, in order, from
// pos, each at its leftmost place, and returns where the last one ends, or
// -1 when one is missing.
func findPieces(mid, path string, pos int) int {
	for {
		piece, rest, more := strings.Cut(mid, "*")
		if piece != "" {
			k := strings.Index(path[pos:], piece)
			if k < 0 {
				return -1
			}
			pos += k + len(piece)
		}
		if !more {
			return pos
		}
		mid = rest
	}
}

// matchWild reports whether pattern matches path from its start: '*'
// matches any run of octets and a final '$' anchors the end of path; a '$'
// elsewhere is an ordinary octet.
func matchWild(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	if anchored {
		pattern = pattern[:len(pattern)-1]
	}
	star, last := stars(pattern)
	return matchStars(pattern, path, star, last, anchored)
}

// stars returns the first and last '*' of pat, or len(pat) twice.
func stars(pat string) (first, last int) {
	if k := strings.IndexByte(pat, '*'); k >= 0 {
		return k, strings.LastIndexByte(pat, '*')
	}
	return len(pat), len(pat)
}
