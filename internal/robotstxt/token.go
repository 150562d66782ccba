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
	state atomic.Uint32 // memoEmpty, memoWriting or memoSet
	ptr   *byte         // written before state becomes memoSet, read-only after
	n     int           // as ptr
}

// The states of a tokenMemo.
const (
	memoEmpty = iota
	memoWriting
	memoSet
)

// BareToken is the function BareToken, which p answers without a scan
// for the first product token it was asked about (the one a crawler asks
// every check with). A nil p scans.
func (p *Policy) BareToken(token string) bool {
	if p == nil {
		return BareToken(token)
	}
	m := &p.asked
	set := m.state.Load() == memoSet
	if set && m.ptr == unsafe.StringData(token) && m.n == len(token) {
		return true
	}
	if !BareToken(token) {
		return false
	}
	if !set && m.state.CompareAndSwap(memoEmpty, memoWriting) {
		m.ptr, m.n = unsafe.StringData(token), len(token)
		m.state.Store(memoSet)
	}
	return true
}
