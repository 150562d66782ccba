package robotsext

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
)

// This file decides: it percent-encodes patterns, compiles each group's
// rules into indexes, and finds the most specific matching rule for a URL.
//
// Precedence follows Google's reference matcher: a rule's priority is the
// length in octets of its percent-encoded pattern (counting '*' and '$'),
// the highest-priority Allow and Disallow are found, Allow wins a tie, and an
// empty pattern (priority 0) never disallows. Among equal priorities of one
// kind the earliest line is reported.

// rule is one Allow or Disallow pattern of a group.
type rule struct {
	off, n uint32 // the percent-encoded pattern is Policy.text[off:off+n]
	line   int32  // 1-based line in robots.txt
	// parent, for literal rules, is the index (within the group's span) of
	// the longest other pattern of the span that is a proper prefix of this
	// one, or -1.
	parent int32
}

// ruleKind sorts a group's rules into four indexes. Literal patterns (no '*'
// and no trailing '$') match by prefix and are kept sorted for binary
// search; wildcard patterns are kept by descending priority.
type ruleKind uint8

const (
	allowLit ruleKind = iota
	disallowLit
	allowWild
	disallowWild
	numKinds
)

func kindOf(allow bool, value []byte) ruleKind {
	wild := bytes.IndexByte(value, '*') >= 0 || (len(value) > 0 && value[len(value)-1] == '$')
	switch {
	case allow && wild:
		return allowWild
	case allow:
		return allowLit
	case wild:
		return disallowWild
	}
	return disallowLit
}

// indexHTMLPrefix returns the length of the value up to and including its
// last '/' when that slash starts "/index.htm", else -1. Such an Allow rule
// also allows the directory itself (the reference's index.html rule).
func indexHTMLPrefix(value []byte) int {
	k := bytes.LastIndexByte(value, '/')
	const index = "/index.htm"
	if k < 0 || len(value)-k < len(index) || string(value[k:k+len(index)]) != index {
		return -1
	}
	return k + 1
}

const hexDigits = "0123456789ABCDEF"

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// escapedLen is the length of s after writeEscaped. It counts the octets
// outside US-ASCII eight at a time.
func escapedLen(s []byte) int {
	n := len(s)
	for len(s) >= 8 {
		n += 2 * bits.OnesCount64(binary.LittleEndian.Uint64(s)&0x8080808080808080)
		s = s[8:]
	}
	for _, c := range s {
		if c >= 0x80 {
			n += 2
		}
	}
	return n
}

// writeEscaped writes the pattern s normalised as RFC 9309 §2.2.2 asks:
// octets outside US-ASCII are percent-encoded and the hex digits of existing
// %xx escapes are upper-cased. Nothing is decoded.
func writeEscaped(w *strings.Builder, s []byte) {
	if bytes.IndexByte(s, '%') < 0 && escapedLen(s) == len(s) {
		w.Write(s) // the common case: nothing to encode
		return
	}
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

// pattern returns the percent-encoded pattern of r.
func (p *Policy) pattern(r rule) string { return p.text[r.off : r.off+r.n] }

// compile sorts each group's indexes: literal rules by pattern (dropping
// repeats, keeping the earliest line) with prefix parents, wildcard rules by
// descending priority. It also computes the wildcard octet masks.
func (p *Policy) compile() {
	for g := range p.groups {
		gr := &p.groups[g]
		for _, k := range [...]ruleKind{allowLit, disallowLit} {
			gr.spans[k].end = gr.spans[k].start + int32(p.compileLiterals(p.rules[gr.spans[k].start:gr.spans[k].end]))
		}
		for _, k := range [...]ruleKind{allowWild, disallowWild} {
			rs := p.rules[gr.spans[k].start:gr.spans[k].end]
			slices.SortFunc(rs, func(a, b rule) int {
				if a.n != b.n {
					return int(b.n) - int(a.n)
				}
				return int(a.line) - int(b.line)
			})
		}
	}
	for i := p.wildBase; i < len(p.rules); i++ {
		p.masks[i-p.wildBase] = octetMask(p.pattern(p.rules[i]))
	}
}

// compileLiterals sorts rs by pattern, removes repeated patterns (the first
// line stays), links each pattern to its longest proper prefix in rs, and
// returns how many rules remain.
func (p *Policy) compileLiterals(rs []rule) int {
	rs = rs[:p.sortLiterals(rs)]
	var stack []int32 // chain of prefixes of the current pattern
	for i := range rs {
		pat := p.pattern(rs[i])
		for len(stack) > 0 && !strings.HasPrefix(pat, p.pattern(rs[stack[len(stack)-1]])) {
			stack = stack[:len(stack)-1]
		}
		rs[i].parent = -1
		if len(stack) > 0 {
			rs[i].parent = stack[len(stack)-1]
		}
		stack = append(stack, int32(i))
	}
	return len(rs)
}

// sortLiterals sorts rs by pattern, then line, drops every rule whose
// pattern an earlier rule of rs has (the first line stays), and returns how
// many rules remain at the front of rs.
func (p *Policy) sortLiterals(rs []rule) int {
	if !p.inOrder(rs) {
		// Many files list their rules sorted: one pass over the text
		// confirms it. Otherwise sort.
		p.sortFrom(rs, 0)
		for i := range rs {
			rs[i].n &= 0xFFFF
		}
	}
	return p.dropRepeats(rs)
}

// sortFrom sorts rs, whose patterns agree on their first depth octets, by
// pattern, then line. While it runs, parent and the upper half of n hold
// the next six octets of the pattern as an order-preserving 48-bit key (n
// itself fits in 16 bits: see maxPatternLen), so that most comparisons are
// two integer comparisons that touch no text. Runs of equal keys are sorted
// one level deeper when they are large (a most-significant-digit radix
// sort, for files with thousands of rules under one prefix) and by their
// text otherwise (so that long shared prefixes cost no deep recursion).
func (p *Policy) sortFrom(rs []rule, depth int) {
	pattern := func(r *rule) string { return p.text[r.off : r.off+r.n&0xFFFF] }
	for i := range rs {
		r := &rs[i]
		k := prefix8(pattern(r)[depth:]) >> 16
		r.n = r.n&0xFFFF | uint32(k>>32)<<16
		r.parent = int32(uint32(k))
	}
	sortRules(rs)
	const radixRun = 256 // runs at least this long go one level deeper
	for start := 0; start < len(rs); {
		end := start + 1
		for end < len(rs) && ruleKey(&rs[end]) == ruleKey(&rs[start]) {
			end++
		}
		// Equal keys: the patterns agree on six more octets. They are
		// equal if none is longer (patterns hold no NUL), and already in
		// line order.
		run := rs[start:end]
		switch {
		case len(run) < 2 || !longerThan(run, depth+6):
		case len(run) >= radixRun:
			p.sortFrom(run, depth+6)
		default:
			slices.SortFunc(run, func(a, b rule) int {
				if c := compareAfter(pattern(&a), pattern(&b), depth+6); c != 0 {
					return c
				}
				return int(a.line) - int(b.line)
			})
		}
		start = end
	}
}

// inOrder reports whether rs is already sorted by pattern, then line.
// (splitKinds may have moved rules, so lines are compared too.)
func (p *Policy) inOrder(rs []rule) bool {
	for i := 1; i < len(rs); i++ {
		a, b := p.pattern(rs[i-1]), p.pattern(rs[i])
		if a > b || a == b && rs[i-1].line > rs[i].line {
			return false
		}
	}
	return true
}

// dropRepeats removes every rule of the sorted rs whose pattern the rule
// before it has (the first line stays) and returns how many remain at the
// front of rs.
func (p *Policy) dropRepeats(rs []rule) int {
	kept := 0
	for i := range rs {
		if kept > 0 && rs[i].n == rs[kept-1].n && p.pattern(rs[i]) == p.pattern(rs[kept-1]) {
			continue // a repeat, on a later line
		}
		rs[kept] = rs[i]
		kept++
	}
	return kept
}

// compareAfter orders patterns a and b whose first k octets are known to
// agree (zero-padded), as strings.Compare would.
func compareAfter(a, b string, k int) int {
	if len(a) <= k || len(b) <= k {
		return len(a) - len(b) // patterns hold no NUL: the shorter is a prefix
	}
	return strings.Compare(a[k:], b[k:])
}

// longerThan reports whether a pattern of rs is longer than n octets (the
// key sortLiterals keeps in the upper half of rule.n is masked off).
func longerThan(rs []rule, n int) bool {
	for i := range rs {
		if int(rs[i].n&0xFFFF) > n {
			return true
		}
	}
	return false
}

// maxPatternLen bounds a stored pattern: a line's value with every octet
// percent-encoded. It must fit in 16 bits (compileLiterals borrows the rest
// of rule.n); the constant conversion below fails to compile otherwise.
const maxPatternLen = 3 * maxLineLen

const _ uint16 = maxPatternLen

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

func pathMask(path string) uint64 {
	var m uint64
	for i := 0; i < len(path); i++ {
		m |= 1 << (path[i] & 63)
	}
	return m
}

// best is the highest-priority match of one kind seen so far. Its zero value
// is not usable; start from noMatch.
type best struct {
	prio int   // pattern length; -1: nothing matched
	line int32 // line of the rule; ties go to the earliest line
	rule int32 // index in Policy.rules
}

var noMatch = best{prio: -1, line: 0, rule: -1}

// offer records a matching rule if it beats the current best.
func (b *best) offer(prio int, line, rule int32) {
	if prio > b.prio || (prio == b.prio && line < b.line) {
		*b = best{prio, line, rule}
	}
}

// beatable reports whether a rule of priority prio on line could still
// replace b.
func (b *best) beatable(prio int, line int32) bool {
	return prio > b.prio || (prio == b.prio && line < b.line)
}

// Check decides whether the crawler whose product token is userAgent (such as
// "FooBot") may fetch rawURL, an absolute URL or a path with an optional
// ?query. Only the path and query are compared; the fragment is ignored. The
// URL is not decoded; octets outside US-ASCII are percent-encoded first.
//
// Check does not allocate for URLs of up to 512 bytes after encoding.
func (p *Policy) Check(userAgent, rawURL string) Verdict {
	path, ready := pathSpan(rawURL)
	if ready {
		return p.checkPath(userAgent, path)
	}
	var buf [pathBufSize]byte
	return p.checkPath(userAgent, bytesString(finishPath(buf[:0], path)))
}

// checkPath decides for path, already in the form requestPath returns. It
// does not keep path, which may be backed by the caller's stack buffer.
func (p *Policy) checkPath(userAgent, path string) Verdict {
	return p.checkSel(p.selectGroups(userAgent), path)
}

// checkSel is checkPath for the groups selectGroups resolved: for every
// token and path, checkSel(selectGroups(token), path) equals
// checkPath(token, path). It does not keep path.
func (p *Policy) checkSel(sel groupSel, path string) Verdict {
	if path == "/robots.txt" {
		return Verdict{Allowed: true, Reason: ReasonRobotsTxt}
	}
	if p == nil {
		return Verdict{Allowed: true, Reason: ReasonNoMatch}
	}
	allow, disallow := noMatch, noMatch
	var mask uint64
	pk := prefix8(path)
	for i := range sel.n {
		sp := &p.groups[p.groupAt(sel, i)].spans
		p.bestLiteral(sp[allowLit], path, pk, &allow)
		p.bestLiteral(sp[disallowLit], path, pk, &disallow)
		if sp[allowWild].start != sp[disallowWild].end {
			if mask == 0 {
				mask = pathMask(path)
			}
			p.bestWild(sp[allowWild], path, mask, &allow)
			p.bestWild(sp[disallowWild], path, mask, &disallow)
		}
	}
	return p.verdict(allow, disallow)
}

// verdict turns the best Allow and Disallow matches into a decision, as the
// reference matcher does: only matches of positive priority decide, Allow
// wins ties, and the reported line is that of the higher match (Allow's on
// a tie).
func (p *Policy) verdict(allow, disallow best) Verdict {
	if disallow.prio > allow.prio && disallow.prio > 0 {
		return Verdict{Allowed: false, Reason: ReasonDisallowRule, Line: int(disallow.line), Rule: p.written(disallow)}
	}
	if allow.prio > 0 {
		return Verdict{Allowed: true, Reason: ReasonAllowRule, Line: int(allow.line), Rule: p.written(allow)}
	}
	deciding := allow
	if disallow.prio > allow.prio {
		deciding = disallow
	}
	if deciding.prio < 0 {
		return Verdict{Allowed: true, Reason: ReasonNoMatch}
	}
	return Verdict{Allowed: true, Reason: ReasonEmptyRule, Line: int(deciding.line), Rule: ""}
}

// written returns the value of the rule as written in robots.txt.
func (p *Policy) written(b best) string {
	if raw, ok := p.raws[b.line]; ok {
		return raw
	}
	return p.pattern(p.rules[b.rule])
}

// bestLiteral finds the longest literal pattern of s that is a prefix of
// path, in O(log n) comparisons plus a walk up its prefix chain. pk is
// prefix8(path): most comparisons are settled by it, without calling into
// the string comparison.
func (p *Policy) bestLiteral(s span, path string, pk uint64, b *best) {
	rs := p.rules[s.start:s.end]
	// i: the last pattern <= path. Every pattern that is a prefix of path
	// is a prefix of rs[i], so it lies on rs[i]'s parent chain.
	lo, hi := 0, len(rs)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		r := &rs[mid]
		if patternAtMost(p.text[r.off:r.off+r.n], path, pk) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	i := lo - 1
	if i < 0 {
		return
	}
	lcp := commonPrefixLen(p.pattern(rs[i]), path)
	for i >= 0 && int(rs[i].n) > lcp {
		i = int(rs[i].parent)
	}
	if i >= 0 {
		b.offer(int(rs[i].n), rs[i].line, s.start+int32(i))
	}
}

// patternAtMost reports pat <= path, given pk = prefix8(path). Patterns
// hold no NUL, so equal keys mean that the shorter of the two strings'
// first eight octets is a prefix of the other's.
func patternAtMost(pat, path string, pk uint64) bool {
	if k := prefix8(pat); k != pk {
		return k < pk
	}
	if len(pat) <= 8 {
		return true // a prefix of path
	}
	return pat[8:] <= path[8:] // path has eight octets too: its key has no padding
}

// prefix8 packs the first eight octets of s big-endian, zero-padded, so that
// keys order as the strings' first eight octets do.
func prefix8(s string) uint64 {
	if len(s) >= 8 {
		_ = s[7]
		return uint64(s[0])<<56 | uint64(s[1])<<48 | uint64(s[2])<<40 | uint64(s[3])<<32 |
			uint64(s[4])<<24 | uint64(s[5])<<16 | uint64(s[6])<<8 | uint64(s[7])
	}
	var k uint64
	for i := range 8 {
		k <<= 8
		if i < len(s) {
			k |= uint64(s[i])
		}
	}
	return k
}

func commonPrefixLen(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// bestWild tries the wildcard rules of s, highest priority first, and stops
// at the first match or as soon as no remaining rule could beat b. It scans
// the dense mask array and loads a rule only when the path holds every
// octet the rule needs; since rules are sorted by priority, the first such
// rule that cannot beat b ends the search.
func (p *Policy) bestWild(s span, path string, mask uint64, b *best) {
	base := int32(p.wildBase)
	masks := p.masks[s.start-base : s.end-base]
	for j, m := range masks {
		if m&^mask != 0 {
			continue
		}
		i := s.start + int32(j)
		r := &p.rules[i]
		if !b.beatable(int(r.n), r.line) {
			return
		}
		if matchWild(p.text[r.off:r.off+r.n], path) {
			b.offer(int(r.n), r.line, i)
			return
		}
	}
}

// matchWild reports whether pattern matches path from its start: '*' matches
// any run of octets and a final '$' anchors the end of path; a '$' elsewhere
// is an ordinary octet. The pattern is split at each '*' and each piece is
// found at its leftmost place after the previous one, which is enough for a
// pattern matched as a prefix: the leftmost place leaves the most room for
// the pieces after it. Time is O(len(pattern) * len(path)) at worst, with no
// backtracking and no allocation.
func matchWild(pattern, path string) bool {
	anchored := strings.HasSuffix(pattern, "$")
	if anchored {
		pattern = pattern[:len(pattern)-1]
	}
	star := strings.IndexByte(pattern, '*')
	if star < 0 {
		if anchored {
			return path == pattern
		}
		return strings.HasPrefix(path, pattern)
	}
	if !strings.HasPrefix(path, pattern[:star]) {
		return false
	}
	pos := star
	pattern = pattern[star+1:]
	for {
		star = strings.IndexByte(pattern, '*')
		if star < 0 {
			break
		}
		if piece := pattern[:star]; piece != "" {
			k := strings.Index(path[pos:], piece)
			if k < 0 {
				return false
			}
			pos += k + len(piece)
		}
		pattern = pattern[star+1:]
	}
	if anchored {
		return len(path)-pos >= len(pattern) && strings.HasSuffix(path, pattern)
	}
	return strings.Contains(path[pos:], pattern)
}
