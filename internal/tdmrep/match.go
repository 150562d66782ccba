package tdmrep

// This file matches a rule's location against a path, with the special
// characters the report borrows from robots.txt: '*' for any run of
// octets and a final '$' for the end of the path.
//
// Percent-encoding is handled as the robots.txt matcher of this module
// handles it (Google's reading, to which the report defers "for the sake
// of interoperability"): a location is normalised once, its octets
// outside US-ASCII percent-encoded and the hex digits of its %xx escapes
// upper-cased, and a path is compared as it is, never decoded. So
// "/caf\u00e9" and "/caf%c3%a9" both match the path "/caf%C3%A9", while
// "/%7Ejoe" does not match "/~joe".
//
// One consequence departs from an example of the report, which has the
// location "/path/foo-%24" match the URL ".../path/foo-$": here it matches
// only a path that holds the escape itself, as Disallow: /path/foo-%24
// does in robots.txt. A location that must match a literal final '$'
// writes "/path/foo-$*" instead: a '$' before the last octet is an
// ordinary octet (the '*' also lets longer paths match).

import "strings"

const hexDigits = "0123456789ABCDEF"

// pattern is a location compiled for matching.
type pattern struct {
	// text is the normalised location without its final '$'.
	text string
	// anchored: the location ended with '$', so the path must end where
	// text does.
	anchored bool
	// first and last are the indexes of the first and last '*' of text,
	// or -1 when it has none.
	first, last int32
}

// compile normalises loc and finds its special characters. A '$' that is
// not the last octet is an ordinary octet, as in robots.txt.
func compile(loc string) pattern {
	text := normalise(loc)
	p := pattern{first: -1, last: -1}
	if strings.HasSuffix(text, "$") {
		text, p.anchored = text[:len(text)-1], true
	}
	p.text = text
	if i := strings.IndexByte(text, '*'); i >= 0 {
		p.first, p.last = int32(i), int32(strings.LastIndexByte(text, '*'))
	}
	return p
}

// normalise percent-encodes the octets of s outside US-ASCII and
// upper-cases the hex digits of its %xx escapes; nothing is decoded. It
// returns s itself when there is nothing to change.
func normalise(s string) string {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || c == '%' && lowerEscape(s, i) {
			break
		}
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 0x80:
			b.WriteByte('%')
			b.WriteByte(hexDigits[c>>4])
			b.WriteByte(hexDigits[c&15])
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte('%')
			b.WriteByte(upperHex(s[i+1]))
			b.WriteByte(upperHex(s[i+2]))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// lowerEscape reports whether s[i], a '%', starts an escape with a
// lower-case hex digit.
func lowerEscape(s string, i int) bool {
	if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
		return false
	}
	return s[i+1] >= 'a' || s[i+2] >= 'a'
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func upperHex(c byte) byte {
	if 'a' <= c && c <= 'f' {
		return c - 'a' + 'A'
	}
	return c
}

// match reports whether the pattern matches path from its first octet. It
// places each '*'-separated piece at its leftmost possible position, which
// leaves the most room for the pieces after it, so one pass decides. It
// does not allocate.
func (p *pattern) match(path string) bool {
	t := p.text
	if p.first < 0 {
		if p.anchored {
			return path == t
		}
		return strings.HasPrefix(path, t)
	}
	head := t[:p.first]
	if !strings.HasPrefix(path, head) {
		return false
	}
	pos := len(head)
	if p.last > p.first {
		mid := t[p.first+1 : p.last]
		for mid != "" {
			piece := mid
			if k := strings.IndexByte(mid, '*'); k >= 0 {
				piece, mid = mid[:k], mid[k+1:]
			} else {
				mid = ""
			}
			if piece == "" {
				continue
			}
			k := strings.Index(path[pos:], piece)
			if k < 0 {
				return false
			}
			pos += k + len(piece)
		}
	}
	rest, tail := path[pos:], t[p.last+1:]
	if p.anchored {
		return strings.HasSuffix(rest, tail)
	}
	return strings.Contains(rest, tail)
}
