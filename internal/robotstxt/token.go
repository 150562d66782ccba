package robotstxt

// This file says whether a string is a product token: a question every
// Check of the root's Policy asks about its token. Policy.SelectBare
// answers it with the groups for the token, without a scan for the token
// a crawler asks with every time, and with one pass of a few word
// operations for any other.

import (
	"sync/atomic"
	"unsafe"
)

// BareToken reports whether s is a product token as given: one or more
// letters, '-' and '_' (RFC 9309 §2.2.1), with nothing around them. It
// tests eight octets at a time, without a branch per octet: a token of up
// to sixteen octets is two words (see tokenWords), most often letters
// only (see allLetters).
func BareToken(s string) bool {
	if uint(len(s)-1) >= 16 {
		return bareLong(s)
	}
	a, b := tokenWords(s)
	return allLetters(a, b) || bareWords(a, b)
}

// tokenWords returns two words that hold every octet of s, of 1 to 16
// octets, some twice (and, below four octets, padded with letters).
func tokenWords(s string) (a, b uint64) {
	n := len(s)
	switch {
	case n >= 8:
		return loadLE(s), loadAt(s, n-8)
	case n >= 4:
		a = uint64(load32(s)) | uint64(load32(s[n-4:]))<<32
	default:
		a = uint64(s[0]) | uint64(s[n>>1])<<8 | uint64(s[n-1])<<16 | 'a'*ones&^0xffffff
	}
	return a, a
}

// allLetters reports whether the sixteen octets of a and b are all ASCII
// letters: folded to lower case, an octet x is a letter when x+(0x80-'a')
// has its top bit set and x+(0x80-'z'-1) does not. A carry from one octet
// into the next needs an octet with its top bit set, which fails anyway.
func allLetters(a, b uint64) bool {
	x, y := a|0x20*ones, b|0x20*ones
	l := (x + (0x80-'a')*ones) ^ (x + (0x80-'z'-1)*ones)
	l &= (y + (0x80-'a')*ones) ^ (y + (0x80-'z'-1)*ones)
	return (a|b|^l)&highs == 0
}

// bareWords reports whether the octets of a and b are all token
// characters, '-' and '_' among them (see notToken).
func bareWords(a, b uint64) bool {
	return notToken(a)|notToken(b) == 0
}

// bareLong is BareToken for strings of more than sixteen octets (false
// for the empty string), sixteen octets at a time; the last two words may
// overlap the ones before.
func bareLong(s string) bool {
	n := len(s)
	if n < 16 {
		return false
	}
	for i := 0; i+16 < n; i += 16 {
		if a, b := loadAt(s, i), loadAt(s, i+8); !allLetters(a, b) && !bareWords(a, b) {
			return false
		}
	}
	a, b := loadAt(s, n-16), loadAt(s, n-8)
	return allLetters(a, b) || bareWords(a, b)
}

// notToken returns the octets of w, eight packed in a word, that are not
// token characters (IsTokenChar), as their top bit; 0 when all eight are.
// As in allLetters, a carry needs an octet that fails.
func notToken(w uint64) uint64 {
	x := w | 0x20*ones
	letter := (x + (0x80-'a')*ones) ^ (x + (0x80-'z'-1)*ones) // top bit: a letter
	dash := (w ^ '-'*ones) + 0x7f*ones                        // top bit clear: '-'
	under := (w ^ '_'*ones) + 0x7f*ones                       // top bit clear: '_'
	return (w | (dash & under &^ letter)) & highs
}

// load32 reads the first four octets of s little-endian.
func load32(s string) uint32 {
	_ = s[3]
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// tokenMemo is the first product token a Policy was asked about, known by
// the address and length of its octets, with its groups: a string with
// both is that token, since strings do not change and the memo keeps the
// octets alive. It is written once; a Policy asked with several tokens
// scans the others.
type tokenMemo struct {
	writing atomic.Bool // taken by the one writer
	// ptr is the token's first octet, stored last: a reader that finds
	// it finds n and sel written.
	ptr atomic.Pointer[byte]
	n   int       // written before ptr, read-only after
	sel Selection // Select(token); written before ptr, read-only after
}

// SelectBare is Select, and whether token is a product token (BareToken),
// which a check reports. The first product token p is asked about it
// remembers with its groups, and answers both for it again without a scan
// or a search: a crawler asks with one token. For another token it tests
// the octets and searches the groups in one call, which a check whose
// token changes from call to call makes every time. A nil p selects
// nothing.
func (p *Policy) SelectBare(token string) (sel Selection, bare bool) {
	n := len(token)
	if p == nil {
		return Selection{}, BareToken(token)
	}
	if p.asked.ptr.Load() == unsafe.StringData(token) && p.asked.n == n && n > 0 {
		return p.asked.sel, true
	}
	sel = p.global
	if uint(n-4) < 13 {
		// Most tokens: tokenWords by hand, the words kept for the
		// filter and the search. A token the file names is bare, its
		// octets those of one of the file's tokens in some case.
		var a, b uint64
		if n >= 8 {
			a, b = loadLE(token), loadAt(token, n-8)
		} else {
			a = uint64(load32(token)) | uint64(load32(token[n-4:]))<<32
			b = a
		}
		if p.mayName(n, byte(a), byte(b>>56)) {
			sel, bare = p.searchWords(n, a, b)
			if !bare {
				sel = p.global
			}
		}
		if !bare {
			bare = allLetters(a, b) || bareWords(a, b)
		}
	} else {
		bare = BareToken(token)
		if s, ok := p.findAgent(token); ok {
			sel = s
		}
	}
	if bare && p.asked.ptr.Load() == nil {
		p.remember(token, sel)
	}
	return sel, bare
}

// searchWords is searchAgent for a token of n octets, 4 to 16, held by the
// words a and b (see tokenWords). A token with an octet outside US-ASCII is
// not named: the file's tokens are product tokens.
func (p *Policy) searchWords(n int, a, b uint64) (Selection, bool) {
	if (a|b)&highs != 0 {
		return Selection{}, false
	}
	var buf [64]byte
	key, k := putLower(&buf, n, a, b)
	return p.searchAgent(key, k)
}

// remember makes token, a product token, and its groups sel the ones p
// remembers, unless another was remembered first.
func (p *Policy) remember(token string, sel Selection) {
	if p.asked.writing.CompareAndSwap(false, true) {
		p.asked.n, p.asked.sel = len(token), sel
		p.asked.ptr.Store(unsafe.StringData(token))
	}
}
