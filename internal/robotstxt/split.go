package robotstxt

// This file splits robots.txt into directives in one pass that looks at
// each byte of a line once, eight bytes at a time, for the line end, the
// NUL or '#' that ends the useful part, and the first ':' together.

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// Directive is what the splitter reports for one line it understood: a
// "key: value" line, as Google's reference parser reports lines to its
// handler. The parser (Parse) is one handler of them; tools that only need
// the lines, such as a benchmark picking a file's paths, are others.
type Directive struct {
	Line  int32 // the 1-based line of the file
	Key   Key
	Value []byte // trimmed, not yet percent-encoded; a slice of the input
}

// Key is the kind of a robots.txt line, decided by its key.
type Key uint8

// The keys a line may have. KeyUnknown is every key the parser ignores.
const (
	KeyUnknown Key = iota
	KeyUserAgent
	KeyAllow
	KeyDisallow
	KeySitemap
	KeyCrawlDelay
	KeyRequestRate
	KeyContentUsage  // draft-ietf-aipref-attach; see usagerules.go
	KeyContentSignal // contentsignals.org; see usagerules.go
)

// utf8BOM is the byte order mark a file may start with.
const utf8BOM = "\xEF\xBB\xBF"

// EachDirective splits body into lines exactly as the reference parser does
// and calls fn, in file order, for every line that holds a "key: value"
// directive. The directive's Value is a slice of body, valid while body is.
func EachDirective(body []byte, fn func(Directive)) {
	i := 0
	for i < len(body) && i < len(utf8BOM) && body[i] == utf8BOM[i] {
		i++ // a (possibly partial) byte order mark is skipped
	}
	body = body[i:]
	var num int32
	lastCR := false
	for {
		end, n, colon := scanLine(body)
		if end == len(body) {
			num++
			if key, value, ok := splitDirective(body, n, colon); ok {
				fn(Directive{Line: num, Key: classifyKey(key), Value: value})
			}
			return
		}
		c := body[end]
		// The LF of a CRLF pair does not end a second, empty line.
		if !(end == 0 && lastCR && c == '\n') {
			num++
			if key, value, ok := splitDirective(body[:end], n, colon); ok {
				fn(Directive{Line: num, Key: classifyKey(key), Value: value})
			}
		}
		lastCR = c == '\r'
		body = body[end+1:]
	}
}

const (
	ones  = 0x0101010101010101 // 0x01 in every byte
	highs = 0x8080808080808080 // 0x80 in every byte
)

// byteMask has the high bit of each byte of x that equals c set; bytes
// above the lowest match may be flagged wrongly, so only the lowest set bit
// is to be trusted (also of the OR of several masks).
func byteMask(x uint64, c byte) uint64 {
	y := x ^ (ones * uint64(c))
	return (y - ones) &^ y & highs
}

// scanLine looks once at the first line of b and returns where it ends
// (its first CR or LF, or len(b)), the length n of its useful part (before
// its first NUL or '#': the reference parser works on C strings, and '#'
// starts a comment; at most maxLineLen for lines longer than 64 octets)
// and the index of the first ':' in that part, or -1.
// The first 64 octets are read eight at a time for all five octets; past
// them, and past the useful part, the vectorised single-octet searches win.
func scanLine(b []byte) (end, n, colon int) {
	colon = -1
	i := 0
	for ; i+8 <= len(b) && i < 64; i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		// Bit positions of the first match in x, 64 when none.
		eol := bits.TrailingZeros64(byteMask(x, '\n') | byteMask(x, '\r'))
		stop := min(bits.TrailingZeros64(byteMask(x, 0)|byteMask(x, '#')), eol)
		if colon < 0 {
			if c := bits.TrailingZeros64(byteMask(x, ':')); c < stop {
				colon = i + c>>3
			}
		}
		switch {
		case eol < 64 && stop == eol:
			end = i + eol>>3
			return end, end, colon
		case stop < 64:
			if eol < 64 {
				return i + eol>>3, i + stop>>3, colon
			}
			return i + 8 + lineEnd(b[i+8:]), i + stop>>3, colon
		}
	}
	if i < 64 {
		// Fewer than eight octets are left.
		for ; i < len(b); i++ {
			switch b[i] {
			case '\n', '\r':
				return i, i, colon
			case 0, '#':
				return i + lineEnd(b[i:]), i, colon
			case ':':
				if colon < 0 {
					colon = i
				}
			}
		}
		return len(b), len(b), colon
	}
	// A line of more than 64 octets. Past maxLineLen nothing is read
	// (splitDirective cuts the line there), so neither is it searched.
	end = i + lineEnd(b[i:])
	n = min(end, max(i, maxLineLen))
	if k := bytes.IndexByte(b[i:n], 0); k >= 0 {
		n = i + k
	}
	if k := bytes.IndexByte(b[i:n], '#'); k >= 0 {
		n = i + k
	}
	if colon < 0 {
		if k := bytes.IndexByte(b[i:n], ':'); k >= 0 {
			colon = i + k
		}
	}
	return end, n, colon
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

// splitDirective extracts the key and value of one line, or reports false
// for empty lines, comments and lines it cannot read. n and sep are what
// scanLine found: the length of the useful part and its first ':'.
func splitDirective(line []byte, n, sep int) (key, value []byte, ok bool) {
	if n > maxLineLen {
		// Octets past maxLineLen are ignored; so is a ':' among them.
		n = maxLineLen
		if sep >= n {
			sep = -1
		}
	}
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
func classifyKey(key []byte) Key {
	switch key[0] | 0x20 {
	case 'u':
		if foldPrefix(key, "user-agent") || foldPrefix(key, "useragent") || foldPrefix(key, "user agent") {
			return KeyUserAgent
		}
	case 'a':
		if foldPrefix(key, "allow") {
			return KeyAllow
		}
	case 'd':
		if foldPrefix(key, "disallow") || foldPrefix(key, "dissallow") || foldPrefix(key, "dissalow") ||
			foldPrefix(key, "disalow") || foldPrefix(key, "diasllow") || foldPrefix(key, "disallaw") {
			return KeyDisallow
		}
	case 's':
		if foldPrefix(key, "sitemap") || foldPrefix(key, "site-map") {
			return KeySitemap
		}
	case 'c':
		switch {
		case len(key) == len("crawl-delay") && foldPrefix(key, "crawl-delay"):
			return KeyCrawlDelay
		case len(key) == len("content-usage") && foldPrefix(key, "content-usage"):
			return KeyContentUsage
		case len(key) == len("content-signal") && foldPrefix(key, "content-signal"):
			return KeyContentSignal
		}
	case 'r':
		if len(key) == len("request-rate") && foldPrefix(key, "request-rate") {
			return KeyRequestRate
		}
	}
	return KeyUnknown
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
