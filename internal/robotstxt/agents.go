package robotstxt

// This file chooses the groups that apply to a crawler: the parser's agent
// tokens, sorted once, and the search for one token.

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strings"
)

// agentSel is one lower-cased product token of the file (text[tok.off:]) and
// the groups naming it. While parsing, tok is in the input and sel is the
// one group of the line.
type agentSel struct {
	tok textRef
	sel Selection
}

// Selection is the set of groups that apply to one product token, as
// Select resolves it: the group first when n is 1, else the n groups
// Policy.lists[first:first+n]. It is a small comparable value, so that a
// caller asking one policy many questions for one token (the request hook)
// can resolve the groups once and keep the result. It is meaningful only for
// the Policy that made it. The zero value selects no group.
type Selection struct {
	first, n int32
}

// token returns a's token.
func (p *Policy) token(a agentSel) string { return p.text[a.tok.off : a.tok.off+a.tok.n] }

// resolveAgents sorts the agents by token, merges the groups of each token
// (in file order) into one selection, and sets the "*" selection.
func (p *Policy) resolveAgents(globals []int32) {
	p.global = p.listSel(globals)
	as := p.agents
	slices.SortStableFunc(as, func(a, b agentSel) int { return strings.Compare(p.token(a), p.token(b)) })
	kept := 0
	var groups []int32
	for i := 0; i < len(as); {
		j := i + 1
		groups = append(groups[:0], as[i].sel.first)
		for ; j < len(as) && p.token(as[j]) == p.token(as[i]); j++ {
			if g := as[j].sel.first; g != groups[len(groups)-1] {
				groups = append(groups, g) // file order: the sort is stable
			}
		}
		as[kept] = agentSel{as[i].tok, p.listSel(groups)}
		kept++
		i = j
	}
	p.agents = as[:kept]
}

// listSel returns the selection of groups gs, moving a list of several to
// Policy.lists.
func (p *Policy) listSel(gs []int32) Selection {
	switch len(gs) {
	case 0:
		return Selection{}
	case 1:
		return Selection{first: gs[0], n: 1}
	}
	sel := Selection{first: int32(len(p.lists)), n: int32(len(gs))}
	p.lists = append(p.lists, gs...)
	return sel
}

// findAgent returns the groups naming userAgent, compared without regard to
// ASCII case, and whether there are any. It does not allocate for tokens of
// up to 64 bytes.
func (p *Policy) findAgent(userAgent string) (Selection, bool) {
	if n := len(userAgent); n > 0 && !p.mayName(n, userAgent[0], userAgent[n-1]) {
		return Selection{}, false
	}
	var buf [64]byte
	key, k := lowerKey(&buf, userAgent)
	return p.searchAgent(key, k)
}

// mayName reports whether the file may name a token of n octets, the
// first and last being first and last, by agentBits: false means it does
// not, which spares most searches. The empty token may be named.
func (p *Policy) mayName(n int, first, last byte) bool {
	a, b := agentBits(n, first, last)
	return n == 0 || p.agentBits[0]&a != 0 && p.agentBits[1]&b != 0
}

// searchAgent is findAgent past its filter, for key, the token lower-cased,
// whose prefix8 is k. The binary search compares the first eight octets of
// the tokens as integers, and their strings only when those are equal.
func (p *Policy) searchAgent(key string, k uint64) (Selection, bool) {
	if len(p.agents) >= manyAgents {
		sel, ok := (*p.agentMap())[key]
		return sel, ok
	}
	lo, hi := 0, len(p.agents)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		tok := p.agents[mid].tok
		// prefix8 of the token, read as one word when the text holds
		// eight octets from its start (a shift by 64 gives 0).
		var t uint64
		if int(tok.off)+8 <= len(p.text) {
			t = bits.ReverseBytes64(loadAt(p.text, int(tok.off))) &^ (^uint64(0) >> (8 * uint(tok.n)))
		} else {
			t = prefix8(p.text[tok.off : tok.off+tok.n])
		}
		// Tokens hold no NUL, so keys order as the tokens' first
		// eight octets do.
		if t < k || t == k && p.token(p.agents[mid]) < key {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == len(p.agents) || p.token(p.agents[lo]) != key {
		return Selection{}, false
	}
	return p.agents[lo].sel, true
}

// lowerKey returns s with ASCII letters lower-cased, and its prefix8. The
// key is in buf when s is of up to 64 octets (else allocated), two words at
// a time for four to sixteen octets of US-ASCII (see tokenWords).
func lowerKey(buf *[64]byte, s string) (string, uint64) {
	if n := len(s); uint(n-4) < 13 {
		if a, b := tokenWords(s); (a|b)&highs == 0 {
			return putLower(buf, n, a, b)
		}
	}
	key := lowerASCII(buf[:0], s)
	if len(key) > len(buf) {
		return bytesString(key), prefix8(bytesString(key))
	}
	// buf is zero past the key: its first word is the key's prefix8.
	return bytesString(key), bits.ReverseBytes64(binary.LittleEndian.Uint64(buf[:8]))
}

// putLower writes to buf, zero, the token of n octets, 4 to 16, held by the
// words a and b (see tokenWords) with ASCII letters lower-cased, and
// returns it with its prefix8.
func putLower(buf *[64]byte, n int, a, b uint64) (string, uint64) {
	a, b = lowerWord(a), lowerWord(b)
	if n >= 8 {
		binary.LittleEndian.PutUint64(buf[:8], a)
		binary.LittleEndian.PutUint64(buf[n-8:n], b)
		return bytesString(buf[:n]), bits.ReverseBytes64(a)
	}
	binary.LittleEndian.PutUint32(buf[:4], uint32(a))
	binary.LittleEndian.PutUint32(buf[n-4:n], uint32(a>>32))
	return bytesString(buf[:n]), bits.ReverseBytes64(binary.LittleEndian.Uint64(buf[:8]))
}

// lowerWord lower-cases the ASCII letters among the eight octets of w,
// none of which has its top bit set: an octet from 'A' to 'Z' gains 0x20.
func lowerWord(w uint64) uint64 {
	upper := ((w + (0x80-'A')*ones) ^ (w + (0x80-'Z'-1)*ones)) & highs
	return w | upper>>2
}

// manyAgents is the number of agents from which findAgent looks tokens up
// in a map, built on first use, rather than searching the sorted table.
const manyAgents = 256

// agentMap returns the map of agents, building it on first use. Its keys
// are strings of p.text: only the map itself is allocated.
func (p *Policy) agentMap() *map[string]Selection {
	if m := p.agentsByToken.Load(); m != nil {
		return m
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if m := p.agentsByToken.Load(); m != nil {
		return m
	}
	m := make(map[string]Selection, len(p.agents))
	for _, a := range p.agents {
		m[p.token(a)] = a.sel
	}
	p.agentsByToken.Store(&m)
	return &m
}

// lowerASCII appends s with ASCII letters lower-cased.
func lowerASCII(dst []byte, s string) []byte {
	for i := range len(s) {
		dst = append(dst, lower(s[i]))
	}
	return dst
}

// Groups returns the lines of the user-agent records that start the groups
// applying to the product token token, and whether they name it (true) or
// are the "*" groups used as a fallback (false), as they are for any
// string that is not a product token. No lines means no group applies and
// everything is allowed.
func (p *Policy) Groups(token string) (lines []int, specific bool) {
	if p == nil {
		return nil, false
	}
	sel, specific := p.groupsFor(token)
	for i := range sel.n {
		lines = append(lines, int(p.groups[p.groupAt(sel, i)].line))
	}
	return lines, specific
}

// Select resolves the groups that apply to token (RFC 9309 §2.2.1; see
// groupsFor), once, for any number of Decide calls. A nil *Policy selects
// nothing.
func (p *Policy) Select(token string) Selection {
	if p == nil {
		return Selection{}
	}
	sel, _ := p.groupsFor(token)
	return sel
}

// groupAt returns the i-th group of sel (0 <= i < sel.n).
func (p *Policy) groupAt(sel Selection, i int32) int32 {
	if sel.n == 1 {
		return sel.first
	}
	return p.lists[sel.first+i]
}

// groupsFor chooses the groups that apply to userAgent (RFC 9309 §2.2.1):
// every group naming it, merged; else every "*" group. A group that names
// the agent but has no rules still replaces "*". The token is compared
// case-insensitively and as given.
func (p *Policy) groupsFor(userAgent string) (sel Selection, specific bool) {
	if sel, ok := p.findAgent(userAgent); ok {
		return sel, true
	}
	return p.global, false
}

// agentFilter summarises the tokens a file names in two words, one bit in
// each per token (findAgent reads it): from its length and first octet,
// and from its length and last octet, with bit 0x20 of both octets set
// (which folds ASCII case). A token whose two bits are not both set is not
// named, which spares most searches; with n tokens a search happens for
// about (n/64)² of the tokens a file does not name.
type agentFilter [2]uint64

// agentBits returns the bit of a token of n octets, the first and last
// being first and last, in each word of an agentFilter (0, 0 when n is 0).
func agentBits(n int, first, last byte) (uint64, uint64) {
	u := uint(n)
	return 1 << ((u*31 + uint(first|0x20)) & 63), 1 << ((u*11 + uint(last|0x20)*37) & 63)
}

// add sets the bits of token.
func (f *agentFilter) add(token []byte) {
	if len(token) == 0 {
		f[0] |= 1
		f[1] |= 1
		return
	}
	a, b := agentBits(len(token), token[0], token[len(token)-1])
	f[0] |= a
	f[1] |= b
}

// lookupAgent finds userAgent in a map keyed by lower-cased tokens, without
// allocating for tokens of up to 64 bytes.
func lookupAgent[V any](m map[string]V, userAgent string) (V, bool) {
	if len(m) == 0 {
		var zero V
		return zero, false
	}
	var buf [64]byte
	v, ok := m[string(lowerASCII(buf[:0], userAgent))] // a map index by string(bytes) does not allocate
	return v, ok
}
