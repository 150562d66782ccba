package robotstxt

// This file percent-encodes patterns as RFC 9309 §2.2.2 asks: octets
// outside US-ASCII are encoded and the hex digits of existing escapes
// upper-cased; nothing is decoded.

import (
	"encoding/binary"
	"strings"
)

// hexDigits are the digits of a percent-encoding, upper case as RFC 3986
// §2.1 recommends.
const hexDigits = "0123456789ABCDEF"

// isHex reports whether c is a hexadecimal digit, in either case.
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

// upper folds an ASCII lower-case letter to upper case.
func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}
