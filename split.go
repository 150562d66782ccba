package robotsext

// This file splits robots.txt into directives in one pass that looks at
// each byte of a line about once, eight bytes at a time: the line end, then
// the NUL or '#' that ends the useful part and the first ':'.

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// eachDirective splits body into lines exactly as the reference parser does
// and calls fn for every line that holds a "key: value" directive.
func eachDirective(body []byte, fn func(directive)) {
	i := 0
	for i < len(body) && i < len(utf8BOM) && body[i] == utf8BOM[i] {
		i++ // a (possibly partial) byte order mark is skipped
	}
	body = body[i:]
	var num int32
	lastCR := false
	for {
		end := lineEnd(body)
		if end == len(body) {
			break
		}
		c := body[end]
		// The LF of a CRLF pair does not end a second, empty line.
		if !(end == 0 && lastCR && c == '\n') {
			num++
			if key, value, ok := splitDirective(body[:end]); ok {
				fn(directive{line: num, key: classifyKey(key), value: value})
			}
		}
		lastCR = c == '\r'
		body = body[end+1:]
	}
	num++
	if key, value, ok := splitDirective(body); ok {
		fn(directive{line: num, key: classifyKey(key), value: value})
	}
}

const (
	ones  = 0x0101010101010101 // 0x01 in every byte
	highs = 0x8080808080808080 // 0x80 in every byte
)

// byteMask has the high bit of each byte of x that equals c set; bytes
// above the lowest match may be flagged wrongly, so only the lowest set bit
// is to be trusted.
func byteMask(x uint64, c byte) uint64 {
	y := x ^ (ones * uint64(c))
	return (y - ones) &^ y & highs
}

// lineEnd returns the index of the first CR or LF in b, or len(b). Short
// lines are scanned eight bytes at a time for both; past 64 bytes the
// vectorised single-byte searches win.
func lineEnd(b []byte) int {
	i := 0
	for ; i+8 <= len(b) && i < 64; i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		if m := byteMask(x, '\n') | byteMask(x, '\r'); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	if i == 64 {
		end := len(b)
		if k := bytes.IndexByte(b[i:], '\n'); k >= 0 {
			end = i + k
		}
		if k := bytes.IndexByte(b[i:end], '\r'); k >= 0 {
			end = i + k
		}
		return end
	}
	for ; i < len(b); i++ {
		if b[i] == '\n' || b[i] == '\r' {
			return i
		}
	}
	return len(b)
}

// usefulEnd returns the length of the part of line before its first NUL
// or '#' (the reference parser works on C strings, and '#' starts a
// comment), and the index of the first ':' in that part, or -1. Short
// lines are scanned eight bytes at a time for all three.
func usefulEnd(line []byte) (n, colon int) {
	if len(line) > 64 {
		// Long lines: the vectorised single-byte searches win.
		n = len(line)
		if k := bytes.IndexByte(line, 0); k >= 0 {
			n = k
		}
		if k := bytes.IndexByte(line[:n], '#'); k >= 0 {
			n = k
		}
		return n, bytes.IndexByte(line[:n], ':')
	}
	colon = -1
	i := 0
	for ; i+8 <= len(line); i += 8 {
		x := binary.LittleEndian.Uint64(line[i:])
		stop := byteMask(x, 0) | byteMask(x, '#')
		if colon < 0 {
			if m := byteMask(x, ':'); m != 0 {
				if k := bits.TrailingZeros64(m); stop == 0 || k < bits.TrailingZeros64(stop) {
					colon = i + k>>3
				}
			}
		}
		if stop != 0 {
			return i + bits.TrailingZeros64(stop)>>3, colon
		}
	}
	for ; i < len(line); i++ {
		switch line[i] {
		case 0, '#':
			return i, colon
		case ':':
			if colon < 0 {
				colon = i
			}
		}
	}
	return len(line), colon
}

// splitDirective extracts the key and value of one line, or reports false
// for empty lines, comments and lines it cannot read.
func splitDirective(line []byte) (key, value []byte, ok bool) {
	if len(line) > maxLineLen {
		line = line[:maxLineLen]
	}
	n, sep := usefulEnd(line)
	line = line[:n]
	start := 0
	for start < len(line) && isSpace(line[start]) {
		start++
	}
	if start == len(line) {
		return nil, nil, false
	}
	if sep < 0 {
		// A missing colon is forgiven when whitespace separates exactly
		// two words: "Disallow /tmp".
		line = trimSpace(line[start:])
		sep = bytes.IndexAny(line, " \t")
		if sep < 0 {
			return nil, nil, false
		}
		rest := bytes.TrimLeft(line[sep:], " \t")
		if bytes.ContainsAny(rest, " \t") {
			return nil, nil, false
		}
		key = trimSpace(line[:sep])
		return key, trimSpace(line[sep+1:]), len(key) > 0
	}
	key = trimSpace(line[start:sep])
	if len(key) == 0 {
		return nil, nil, false
	}
	return key, trimSpace(line[sep+1:]), true
}

// classifyKey names a line's key. Like the reference parser it accepts any
// key that starts with a known word or one of its common misspellings. The
// first octet picks the few words to compare.
func classifyKey(key []byte) keyKind {
	switch key[0] | 0x20 {
	case 'u':
		if foldPrefix(key, "user-agent") || foldPrefix(key, "useragent") || foldPrefix(key, "user agent") {
			return keyUserAgent
		}
	case 'a':
		if foldPrefix(key, "allow") {
			return keyAllow
		}
	case 'd':
		if foldPrefix(key, "disallow") || foldPrefix(key, "dissallow") || foldPrefix(key, "dissalow") ||
			foldPrefix(key, "disalow") || foldPrefix(key, "diasllow") || foldPrefix(key, "disallaw") {
			return keyDisallow
		}
	case 's':
		if foldPrefix(key, "sitemap") || foldPrefix(key, "site-map") {
			return keySitemap
		}
	case 'c':
		if len(key) == len("crawl-delay") && foldPrefix(key, "crawl-delay") {
			return keyCrawlDelay
		}
	case 'r':
		if len(key) == len("request-rate") && foldPrefix(key, "request-rate") {
			return keyRequestRate
		}
	}
	return keyUnknown
}

// foldPrefix reports whether s starts with word, ignoring ASCII case. word
// holds only lower-case letters, '-' and ' ', for which setting bit 0x20 of
// an octet is an exact case fold: the only other octets it maps onto them
// are NUL and CR (onto ' ' and '-'), and neither occurs inside a key.
func foldPrefix(s []byte, word string) bool {
	if len(s) < len(word) {
		return false
	}
	for i := 0; i < len(word); i++ {
		if s[i]|0x20 != word[i] {
			return false
		}
	}
	return true
}
