package robotsext

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
)

// This file decides: it percent-encodes patterns and finds, in the indexes
// compile.go builds, the most specific rule matching a URL.
//
// Precedence follows Google's reference matcher: a rule's priority is the
// length in octets of its percent-encoded pattern (counting '*' and '$'),
// the highest priority decides, Allow wins a tie with Disallow, and an empty
// pattern (priority 0) never disallows. Among equal priorities of one kind
// the earliest line is reported.

const hexDigits = "0123456789ABCDEF"

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// escapedLen is the length of s after writeEscaped: two more octets for
// each octet outside US-ASCII. It looks at eight octets at a time, and
// counts only when there is something to count.
func escapedLen(s []byte) int {
	var high uint64
	i := 0
	for ; i+8 <= len(s); i += 8 {
		high |= binary.LittleEndian.Uint64(s[i:]) & highs
	}
	for _, c := range s[i:] {
		high |= uint64(c) & 0x80
	}
	if high == 0 {
		return len(s)
	}
	n := len(s)
	for _, c := range s {
		if c >= 0x80 {
			n += 2
		}
	}
	return n
}

// valueTraits reports, in one look at eight octets at a time, whether
// writeEscaped may change s (it holds '%' or an octet outside US-ASCII) and
// whether s holds '*'.
func valueTraits(s []byte) (escape, star bool) {
	var esc, st uint64
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64(s[i:])
		esc |= x&highs | byteMask(x, '%')
		st |= byteMask(x, '*')
	}
	if i < len(s) {
		// The last one to seven octets, zero-padded (a zero octet is
		// none of those looked for).
		x := tailWord(s, i)
		esc |= x&highs | byteMask(x, '%')
		st |= byteMask(x, '*')
	}
	return esc != 0, st != 0
}

// tailWord returns s[i:], one to seven octets, as a little-endian word
// padded with zeros. It reads eight octets at once where s or its capacity
// has them (values are slices of a larger input).
func tailWord(s []byte, i int) uint64 {
	k := uint(len(s) - i) // 1..7
	switch {
	case len(s) >= 8:
		return binary.LittleEndian.Uint64(s[len(s)-8:]) >> (8 * (8 - k))
	case cap(s) >= 8:
		return binary.LittleEndian.Uint64(s[i:8]) & (1<<(8*k) - 1)
	}
	var x uint64
	for j := len(s) - 1; j >= i; j-- {
		x = x<<8 | uint64(s[j])
	}
	return x
}

// escapes reports the first result of valueTraits.
func escapes(s []byte) bool {
	escape, _ := valueTraits(s)
	return escape
}

// writeEscaped writes the pattern s normalised as RFC 9309 §2.2.2 asks:
// octets outside US-ASCII are percent-encoded and the hex digits of existing
// %xx escapes are upper-cased. Nothing is decoded. Callers copy values
// that valueTraits finds nothing to change in directly.
func writeEscaped(w *strings.Builder, s []byte) {
	done := 0 // s[:done] is written
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '%' && c < 0x80 {
			continue
		}
		if c == '%' && !(i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2])) {
			continue
		}
		w.Write(s[done:i])
		if c == '%' {
			w.WriteByte('%')
			w.WriteByte(upper(s[i+1]))
			w.WriteByte(upper(s[i+2]))
			i += 2
		} else {
			w.WriteByte('%')
			w.WriteByte(hexDigits[c>>4])
			w.WriteByte(hexDigits[c&15])
		}
		done = i + 1
	}
	w.Write(s[done:])
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

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

// best is the match that decides so far, packed so that the deciding match
// is the one of highest prec (see precOf); its zero value is no match. It
// has three fields so that the compiler keeps it in registers.
type best struct {
	prec   uint64
	off, n uint32 // the rule's pattern as stored, for Verdict.Rule
}

// precOf packs a match's precedence into one integer, higher deciding: the
// highest priority (pattern length), then Allow, then the earliest line.
// Priorities are above -1 and lines within 24 bits, so every match has a
// positive prec.
func precOf(prio int32, allow bool, line int32) uint64 {
	p := uint64(prio+1)<<33 | uint64(^uint32(line))
	if allow {
		p |= 1 << 32
	}
	return p
}

func (b best) prio() int32 { return int32(b.prec>>33) - 1 }
func (b best) line() int32 { return int32(^uint32(b.prec)) }
func (b best) allow() bool { return b.prec&(1<<32) != 0 }

// Check decides whether the crawler whose product token is token (such as
// "FooBot", not "FooBot/1.0" nor a whole User-Agent: see ProductToken) may
// fetch rawURL, an absolute URL or a path with an optional ?query. Only the
// path and query are compared; the fragment is ignored. The URL is not
// decoded; octets outside US-ASCII are percent-encoded first. A token that
// is not a product token is still matched as given (it names no group, so
// the "*" groups decide) and the Verdict's TokenErr says so.
//
// Check does not allocate for URLs of up to 512 bytes after encoding and a
// valid token. The first question that needs a group builds the group's
// index.
func (p *Policy) Check(token, rawURL string) (v Verdict) {
	path, ready := pathSpan(rawURL)
	if !ready {
		var buf [pathBufSize]byte
		path = bytesString(finishPath(buf[:0], path))
	}
	p.verdict(&v, p.decide(p.selectGroups(token), path, 0))
	if !isBareToken(token) && token != "*" {
		v.TokenErr = ValidToken(token)
	}
	return v
}

// checkPath decides for path, already in the form requestPath returns. It
// does not keep path, which may be backed by the caller's stack buffer.
func (p *Policy) checkPath(token, path string) (v Verdict) {
	p.verdict(&v, p.decide(p.selectGroups(token), path, 0))
	return v
}

// checkSel is checkPath for the groups selectGroups resolved: for every
// token and path, checkSel(selectGroups(token), path) equals
// checkPath(token, path). It does not keep path.
func (p *Policy) checkSel(sel groupSel, path string) (v Verdict) {
	p.verdict(&v, p.decide(sel, path, 0))
	return v
}

// robotsTxtMatch is what decide returns for /robots.txt itself, which is
// always allowed: no rule can have its precedence.
var robotsTxtMatch = best{prec: 1<<64 - 1}

// isRobotsTxt reports path == "/robots.txt", comparing words.
func isRobotsTxt(path string) bool {
	const word = uint64('/') | uint64('r')<<8 | uint64('o')<<16 | uint64('b')<<24 |
		uint64('o')<<32 | uint64('t')<<40 | uint64('s')<<48 | uint64('.')<<56
	return len(path) == len("/robots.txt") && loadLE(path) == word && path[8:] == "txt"
}

// decide finds the deciding match for path among the groups of sel. The
// Verdict is built once, from its result, by the caller: a Verdict does
// not fit in registers, and each copy of one costs more than the search.
//
// mask is pathMask(path), or 0 for decide to compute it when a group has
// wildcard rules (a path holds '/', so its mask is never 0).
func (p *Policy) decide(sel groupSel, path string, mask uint64) best {
	if isRobotsTxt(path) {
		return robotsTxtMatch
	}
	if p == nil {
		return best{}
	}
	var b best
	var pk, pk2 uint64
	if len(path) >= 16 {
		// prefix8 of path and of path[8:], without the calls.
		pk, pk2 = bits.ReverseBytes64(loadLE(path)), bits.ReverseBytes64(loadAt(path, 8))
	} else if pk = prefix8(path); len(path) > 8 {
		pk2 = prefix8(path[8:])
	}
	for i := range sel.n {
		g := sel.first
		if sel.n > 1 {
			g = p.lists[sel.first+i]
		}
		// groupIndex and groupAt, by hand: this loop is the hot path.
		ix := p.index[g].Load()
		if ix == nil {
			ix = p.buildGroupIndex(g)
		}
		p.bestLiteral(ix, path, pk, pk2, &b)
		if ix.wildTop > b.prec {
			p.bestWild(ix, path, &mask, &b)
		}
	}
	return b
}

// verdict sets the zero Verdict v from the deciding match, as the reference
// matcher decides: only a match of positive priority decides, Allow wins a
// tie, and an empty pattern (priority 0) never disallows. It fills v field
// by field rather than returning a Verdict, which the compiler would copy
// through memory at every level.
func (p *Policy) verdict(v *Verdict, b best) {
	v.Allowed = true
	switch {
	case b.prec == robotsTxtMatch.prec:
		v.Reason = ReasonRobotsTxt
	case b.prec == 0:
		v.Reason = ReasonNoMatch
	case b.prio() == 0:
		v.Reason, v.Line = ReasonEmptyRule, int(b.line())
	default:
		v.Reason, v.Line, v.Rule = ReasonAllowRule, int(b.line()), p.written(b)
		if !b.allow() {
			v.Allowed, v.Reason = false, ReasonDisallowRule
		}
	}
}

// written returns the value of the deciding rule as written in robots.txt.
func (p *Policy) written(b best) string {
	if p.raws != nil {
		if raw, ok := p.raws[b.line()]; ok {
			return raw
		}
	}
	return p.text[b.off : b.off+b.n]
}

// bestLiteral finds the longest literal pattern of the group that is a
// prefix of path, in O(log n) comparisons plus a walk up its prefix chain,
// and offers it to b. pk and pk2 are prefix8 of path and of path[8:]: the
// search compares keys only, without branching on them, and compares
// patterns' sixteen first octets as keys and tails (see litRule), touching
// the text only for patterns longer than that.
func (p *Policy) bestLiteral(ix *groupIndex, path string, pk, pk2 uint64, b *best) {
	rs := ix.lits
	keys := ix.keys[:len(rs)]
	if len(keys) == 0 || keys[0] > pk {
		return
	}
	// i: the last pattern <= path. Every pattern that is a prefix of path
	// is a prefix of rs[i], so it lies on rs[i]'s parent chain. First the
	// last key <= pk, among the keys with pk's eight bits after the shared
	// ones when the keys are indexed.
	i, n := 0, len(keys)
	if st := ix.keyStarts; st != nil {
		shift := ix.keyShift
		if (pk^keys[0])>>(64-shift) != 0 {
			// pk leaves the bits every key shares, above them all.
			i, n = len(keys)-1, 1
		} else {
			c := pk << shift >> 56
			lo, hi := int(st[c]), int(st[c+1])
			if lo == hi || keys[lo] > pk {
				i, n = lo-1, 1 // the last key of an earlier bucket (keys[0] <= pk)
			} else {
				i, n = lo, hi-lo
			}
		}
	}
	for n > 1 {
		half := n >> 1
		// i += half when keys[i+half] <= pk, computed from the borrow
		// of pk - key: a branch here would be mispredicted half the time.
		_, borrow := bits.Sub64(pk, keys[i+half], 0)
		i += half &^ -int(borrow)
		n -= half
	}
	e := rs[i]
	x := keys[i] ^ pk
	if x == 0 || e.n() == longLen {
		p.bestLiteralAt(ix, i, path, pk, pk2, b)
		return
	}
	// The common case: the keys differ, so the patterns that are
	// prefixes of path are shorter than eight octets and their lengths
	// are in their rules. It makes no call, which would make the compiler
	// keep every live value on the stack first.
	lcp := min(bits.LeadingZeros64(x)>>3, len(path))
	n = int(e.n())
	for n > lcp {
		// A parent is shorter than its child: its length is in its
		// rule too.
		if i = int(ix.parents[i]); i < 0 {
			return
		}
		e = rs[i]
		n = int(e.n())
	}
	if prec := precOf(int32(n), e.isAllow(), e.line()); prec > b.prec {
		*b = best{prec, e.off(), uint32(n)}
	}
}

// bestLiteralAt is bestLiteral from i, the last literal pattern of ix whose
// key is at most pk, when that key is pk or the pattern too long for its
// rule to hold its length: patterns of the same key may have to be told
// apart by their tails or text.
func (p *Policy) bestLiteralAt(ix *groupIndex, i int, path string, pk, pk2 uint64, b *best) {
	rs := ix.lits
	keys := ix.keys[:len(rs)]
	e := rs[i]
	pat := p.pattern(e.rule)
	lcp := keyPrefixLen(keys[i], pk, e.tail, pk2, pat, path)
	if keys[i] == pk && lcp < len(pat) && (lcp == len(path) || pat[lcp] > path[lcp]) {
		// pat > path: among the patterns whose key is pk, find the last
		// one <= path.
		lo, hi := 0, i
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if k := keys[mid]; k < pk || k == pk && p.atMostTail(rs[mid], path, pk2) {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if i = lo - 1; i < 0 {
			return
		}
		e = rs[i]
		pat = p.pattern(e.rule)
		lcp = keyPrefixLen(keys[i], pk, e.tail, pk2, pat, path)
	}
	for len(pat) > lcp {
		i = int(ix.parents[i])
		if i < 0 {
			return
		}
		e = rs[i]
		pat = p.pattern(e.rule)
	}
	if prec := precOf(int32(len(pat)), e.isAllow(), e.line()); prec > b.prec {
		*b = best{prec, e.off(), uint32(len(pat))}
	}
}

// atMostTail reports pattern <= path for a literal rule whose prefix8 key
// equals the path's; pk2 is prefix8(path[8:]). Patterns hold no NUL, so
// equal keys mean that the shorter of the two strings' first eight octets
// is a prefix of the other's, and so for the tails.
func (p *Policy) atMostTail(e litRule, path string, pk2 uint64) bool {
	pat := p.pattern(e.rule)
	switch {
	case len(pat) <= 8:
		return true // a prefix of path
	case e.tail != pk2:
		return e.tail < pk2
	case len(pat) <= 16:
		return true // a prefix of path
	}
	// Past sixteen octets, which path has too: its tail has no padding.
	pat, path = pat[16:], path[16:]
	n := commonPrefixLen(pat, path)
	return n == len(pat) || n < len(path) && pat[n] < path[n]
}

// prefix8 packs the first eight octets of s big-endian, zero-padded, so that
// keys order as the strings' first eight octets do.
func prefix8(s string) uint64 {
	if len(s) >= 8 {
		return bits.ReverseBytes64(loadLE(s))
	}
	return prefix8Short(s)
}

// prefix8Short is prefix8 for strings of fewer than eight octets.
func prefix8Short(s string) uint64 {
	var k uint64
	for i := 0; i < len(s) && i < 8; i++ {
		k |= uint64(s[i]) << (56 - 8*i)
	}
	return k
}

// keyPrefixLen is commonPrefixLen(pat, path) for a pattern whose prefix8
// key is k and tail (prefix8 of its octets past the eighth) is k2, and a
// path whose key and tail are pk and pk2: within the first sixteen octets
// the keys answer, without a loop; past them the strings do.
func keyPrefixLen(k, pk, k2, pk2 uint64, pat, path string) int {
	n := min(len(pat), len(path))
	// Zero padding may differ from a NUL in path: cap at n.
	if x := k ^ pk; x != 0 {
		return min(bits.LeadingZeros64(x)>>3, n)
	}
	if n <= 8 {
		return n
	}
	if x := k2 ^ pk2; x != 0 {
		return min(8+bits.LeadingZeros64(x)>>3, n)
	}
	if n <= 16 {
		return n
	}
	if n == len(pat) && pat[16:] == path[16:n] {
		return n // the common case: pat is a prefix of path
	}
	return 16 + commonPrefixLen(pat[16:n], path[16:n])
}

func commonPrefixLen(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for ; i+8 <= n; i += 8 {
		if x := loadLE(a[i:]) ^ loadLE(b[i:]); x != 0 {
			return i + bits.TrailingZeros64(x)>>3
		}
	}
	for ; i < n && a[i] == b[i]; i++ {
	}
	return i
}

// loadLE reads the first eight octets of s little-endian.
func loadLE(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// loadAt reads the eight octets of s from i little-endian. It is
// loadLE(s[i:]) with a slice of length 8, which the compiler builds without
// guarding against an empty slice: a loop over words saves that arithmetic.
func loadAt(s string, i int) uint64 {
	return loadLE(s[i : i+8])
}

// bestWild tries the wildcard rules of ix in precedence order and stops at
// the first match or as soon as no remaining rule could beat b. It reads
// the dense mask array and loads a rule only when the path holds every
// octet the rule needs; in groups with buckets it visits only the two
// buckets the path can match, one after the other: b keeps the better of
// their matches, so their order does not matter.
//
// *mask is pathMask(path), or 0 until a rule that could beat b needs it.
func (p *Policy) bestWild(ix *groupIndex, path string, mask *uint64, b *best) {
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
func (p *Policy) scanWild(ix *groupIndex, bucket int, from, to int32, path string, mask *uint64, b *best) {
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
			*b = best{w.prec, w.off, uint32(w.n)}
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
func (p *Policy) scanGrams(ix *groupIndex, bucket int, lo, hi int32, path string, lack uint64, b *best) {
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
func (p *Policy) scanGramsLong(ix *groupIndex, bucket int, lo, hi int32, path string, lack uint64, b *best) {
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
func (p *Policy) scanGramSet(s *gramSet, ix *groupIndex, bucket int, lo, hi int32, path string, lack uint64, b *best) {
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
func (p *Policy) tryGrams(s *gramSet, ix *groupIndex, at []int32, lo, hi int32, path string, lack uint64, b *best) {
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
			*b = best{w.prec, w.off, uint32(w.n)}
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
