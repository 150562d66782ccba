package robotstxt

// This file says whether a string is a product token: a question every
// Check of the root's Policy asks about its token, answered once per
// Policy for the token a crawler asks with, so that a check does not scan
// its token again.

import (
	"sync/atomic"
	"unsafe"
)

// BareToken reports whether s is a product token as given: one or more
// letters, '-' and '_' (RFC 9309 §2.2.1), with nothing around them.
func BareToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if !IsTokenChar(s[i]) {
			return false
		}
	}
	return s != ""
}

// tokenMemo is the first product token a Policy was asked about, known by
// the address and length of its octets: a string with both is that token,
// since strings do not change and the memo keeps the octets alive. It is
// written once; a Policy asked with several tokens scans the others.
type tokenMemo struct {
	writing atomic.Bool // taken by the one writer
	// ptr is the token's first octet, stored last: a reader that finds
	// it finds n written.
	ptr atomic.Pointer[byte]
	n   int // written before ptr, read-only after
}

// KnownToken reports whether token is the product token p remembers:
// the first one it found bare (see BareToken). It is small enough to be
// inlined into the caller's check, which then asks BareToken only for
// other tokens. A nil p knows none.
func (p *Policy) KnownToken(token string) bool {
	return p != nil && p.asked.ptr.Load() == unsafe.StringData(token) && p.asked.n == len(token) && token != ""
}

// BareToken is the function BareToken, which p answers without a scan
// for the token it remembers (KnownToken); the first product token it
// scans it remembers. A nil p scans.
func (p *Policy) BareToken(token string) bool {
	if p.KnownToken(token) {
		return true
	}
	if !BareToken(token) {
		return false
	}
	if p != nil && p.asked.writing.CompareAndSwap(false, true) {
		p.asked.n = len(token)
		p.asked.ptr.Store(unsafe.StringData(token))
	}
	return true
}
