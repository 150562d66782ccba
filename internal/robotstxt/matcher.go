package robotstxt

// This file decides: it finds, in the indexes compile.go builds, the most
// specific rule matching a URL's path, first among the literal rules (a
// binary search over sorted patterns), then among the wildcard rules that
// could beat it (wild.go).
//
// Precedence follows Google's reference matcher: a rule's priority is the
// length in octets of its percent-encoded pattern (counting '*' and '$'),
// the highest priority decides, Allow wins a tie with Disallow, and an empty
// pattern (priority 0) never disallows. Among equal priorities of one kind
// the earliest line is reported.

import "math/bits"

// Match is the rule that decides a check, as Decide finds it, packed so
// that the deciding match is the one of highest prec (see precOf), with
// where its pattern is stored (for Written). The zero Match is no match.
//
// Its methods say what decided, as the reference matcher decides: only a
// rule of positive priority decides, Allow wins a tie, and an empty
// pattern (priority 0) never disallows. At most one of RobotsTxt, None and
// Empty holds; when none does, a rule decided and Allow says which kind.
//
// It has three fields so that the compiler keeps it in registers: a caller
// that reports more (the root package's Verdict, of some 120 bytes) builds
// that once from the Match, rather than have it copied through every
// level of the search.
type Match struct {
	prec   uint64
	off, n uint32 // the rule's pattern as stored, for Written
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

func (m Match) prio() int32 { return int32(m.prec>>33) - 1 }
func (m Match) line() int32 { return int32(^uint32(m.prec)) }
func (m Match) allow() bool { return m.prec&(1<<32) != 0 }

// RobotsTxt reports whether the path was /robots.txt itself, which RFC 9309
// §2.2.2 always allows: no rule was looked at.
func (m Match) RobotsTxt() bool { return m.prec == robotsTxtPrec }

// None reports whether no rule matched, which allows the path.
func (m Match) None() bool { return m.prec == 0 }

// Empty reports whether the best match was an empty "Allow:" or
// "Disallow:" (priority 0), which allows the path; Line names it.
func (m Match) Empty() bool { return m.prec != 0 && m.prio() == 0 }

// Allow reports whether the deciding rule is an Allow rule. It is
// meaningful only when a rule decided (none of RobotsTxt, None and Empty).
func (m Match) Allow() bool { return m.allow() }

// Allowed reports whether the path may be fetched.
func (m Match) Allowed() bool { return m.prio() <= 0 || m.allow() || m.RobotsTxt() }

// Line returns the 1-based line of the matching rule in robots.txt, or 0
// for no match and for /robots.txt itself.
func (m Match) Line() int {
	if m.prec == 0 || m.RobotsTxt() {
		return 0
	}
	return int(m.line())
}

// robotsTxtPrec is the prec of the Match Decide returns for /robots.txt
// itself, which is always allowed: no rule can have its precedence.
const robotsTxtPrec = 1<<64 - 1

// isRobotsTxt reports path == "/robots.txt", comparing words.
func isRobotsTxt(path string) bool {
	const word = uint64('/') | uint64('r')<<8 | uint64('o')<<16 | uint64('b')<<24 |
		uint64('o')<<32 | uint64('t')<<40 | uint64('s')<<48 | uint64('.')<<56
	return len(path) == len("/robots.txt") && loadLE(path) == word && path[8:] == "txt"
}

// Decide finds the deciding match for path, in the form RequestPath and
// PathOf return, among the groups of sel, which Select resolved on p. It
// does not keep path, which may be backed by the caller's stack buffer,
// and does not allocate once the groups' indexes are built (the first
// question that needs a group builds its index).
func (p *Policy) Decide(sel Selection, path string) Match {
	if isRobotsTxt(path) {
		return Match{prec: robotsTxtPrec}
	}
	if p == nil {
		return Match{}
	}
	var b Match
	var pk, pk2 uint64
	if len(path) >= 16 {
		// prefix8 of path and of path[8:], without the calls.
		pk, pk2 = bits.ReverseBytes64(loadLE(path)), bits.ReverseBytes64(loadAt(path, 8))
	} else if pk = prefix8(path); len(path) > 8 {
		pk2 = prefix8(path[8:])
	}
	// mask is pathMask(path) once a group's wildcard rules need it (a
	// path holds '/', so its mask is never 0).
	var mask uint64
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

// Written returns the pattern of the rule that decided m, a Match of p, as
// written in robots.txt (before percent-encoding), or "" when no rule of
// positive priority decided (such matches store no pattern, and name no
// line with a value of its own).
func (p *Policy) Written(m Match) string {
	if p.raws != nil {
		if raw, ok := p.raws[m.line()]; ok {
			return raw
		}
	}
	return p.text[m.off : m.off+m.n]
}

// bestLiteral finds the longest literal pattern of the group that is a
// prefix of path, in O(log n) comparisons plus a walk up its prefix chain,
// and offers it to b. pk and pk2 are prefix8 of path and of path[8:]: the
// search compares keys only, without branching on them, and compares
// patterns' sixteen first octets as keys and tails (see litRule), touching
// the text only for patterns longer than that.
func (p *Policy) bestLiteral(ix *groupIndex, path string, pk, pk2 uint64, b *Match) {
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
		*b = Match{prec, e.off(), uint32(n)}
	}
}

// bestLiteralAt is bestLiteral from i, the last literal pattern of ix whose
// key is at most pk, when that key is pk or the pattern too long for its
// rule to hold its length: patterns of the same key may have to be told
// apart by their tails or text.
func (p *Policy) bestLiteralAt(ix *groupIndex, i int, path string, pk, pk2 uint64, b *Match) {
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
		*b = Match{prec, e.off(), uint32(len(pat))}
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
