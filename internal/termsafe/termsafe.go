// Package termsafe makes text that came from the network safe to print on
// an operator's terminal.
//
// A robots.txt body, a rule, a URL or a header value is written by whoever
// runs the site. Printed raw, its control characters reach the terminal:
// ESC ] 0 ; ... BEL sets the window title, ESC [ 2 J clears the screen, a
// carriage return lets a line overwrite the one before, and a right-to-left
// override (U+202E) makes "txt.exe" read as "exe.txt". The functions here
// replace every such character with a visible escape, so what the operator
// reads is what the site sent, and nothing more happens.
//
// What is escaped, as \xHH (a byte) or \uHHHH / \U00HHHHHH (a code point):
//
//   - the C0 controls U+0000–U+001F (tab, line feed and carriage return as
//     \t, \n, \r), DEL U+007F and the C1 controls U+0080–U+009F;
//   - the Unicode format characters (category Cf): the bidirectional
//     controls U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069, the
//     zero-width characters U+200B–U+200D, U+2060, U+FEFF, the soft hyphen
//     U+00AD, the tag characters U+E0001–U+E007F and the others;
//   - the line and paragraph separators U+2028 and U+2029;
//   - every byte that is not part of valid UTF-8 (an 8-bit terminal would
//     read a lone 0x9B as the C1 control CSI).
//
// Everything else, backslashes included, is printed as it came: the text is
// meant to be read by a person, not decoded, so "\x1b" in the output is
// either an ESC the site sent or those four characters.
package termsafe

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Line returns s with every unsafe character escaped, tabs and line breaks
// included, so that s prints as part of one line (a URL, a rule, a header
// value, an error message).
func Line(s string) string {
	return escape(s, false)
}

// Text returns s with every unsafe character escaped except line feeds and
// tabs, which keep their layout, so that a multi-line text (a robots.txt
// body) prints as lines. A carriage return directly before a line feed is
// dropped (a CRLF file prints as the LF file it reads as); any other is
// escaped as \r.
func Text(s string) string {
	return escape(s, true)
}

// Safe reports whether s prints as it is under Line (it holds no character
// Line would escape).
func Safe(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || unsafe(r) {
			return false
		}
		i += n
	}
	return true
}

// unsafe reports whether r must not reach a terminal as it is.
func unsafe(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f:
		return true
	case r < 0x80:
		return false
	}
	return unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029'
}

// escape writes s with unsafe characters escaped; multiline keeps '\n' and
// '\t' and drops the '\r' of a CRLF.
func escape(s string, multiline bool) string {
	if Safe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			hex2(&b, s[i])
		case !unsafe(r):
			b.WriteString(s[i : i+n])
		case multiline && (r == '\n' || r == '\t'):
			b.WriteByte(byte(r))
		case multiline && r == '\r' && i+1 < len(s) && s[i+1] == '\n':
			// the CR of a CRLF: the LF that follows ends the line
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80:
			b.WriteString(`\x`)
			hex2(&b, byte(r))
		case r <= 0xffff:
			b.WriteString(`\u`)
			hexN(&b, r, 4)
		default:
			b.WriteString(`\U`)
			hexN(&b, r, 8)
		}
		i += n
	}
	return b.String()
}

// JSON rewrites the encoded JSON in js so that it prints safely: every
// character Line would escape that encoding/json leaves as it is (DEL, the
// C1 controls, the format characters) becomes a \uHHHH escape (a surrogate
// pair above U+FFFF). Tab, line feed and carriage return are kept: outside
// strings they are JSON's own white space (the newline after each value of
// a json.Encoder), and encoding/json never leaves them raw inside one. The decoded value is unchanged; encoding/json already
// escapes the C0 controls and U+2028/U+2029 and replaces invalid UTF-8 with
// U+FFFD. Such characters only occur inside JSON strings, where the escape
// means the same character, so js stays valid JSON with the same meaning.
func JSON(js []byte) []byte {
	clean := true
	for i := 0; i < len(js); {
		r, n := utf8.DecodeRune(js[i:])
		if r == utf8.RuneError && n == 1 || unsafeJSON(r) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return js
	}
	var b strings.Builder
	b.Grow(len(js) + 16)
	for i := 0; i < len(js); {
		r, n := utf8.DecodeRune(js[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			// not written by encoding/json; U+FFFD is what it would write
			b.WriteString(`\ufffd`)
		case !unsafeJSON(r):
			b.Write(js[i : i+n])
		case r > 0xffff:
			hi, lo := utf16.EncodeRune(r)
			b.WriteString(`\u`)
			hexN(&b, hi, 4)
			b.WriteString(`\u`)
			hexN(&b, lo, 4)
		default:
			b.WriteString(`\u`)
			hexN(&b, r, 4)
		}
		i += n
	}
	return []byte(b.String())
}

// unsafeJSON is unsafe without JSON's white space.
func unsafeJSON(r rune) bool {
	return unsafe(r) && r != '\t' && r != '\n' && r != '\r'
}

func hex2(b *strings.Builder, c byte) {
	hexN(b, rune(c), 2)
}

// hexN writes r as digits lowercase hex digits, zero-padded.
func hexN(b *strings.Builder, r rune, digits int) {
	h := strconv.FormatInt(int64(r), 16)
	for k := len(h); k < digits; k++ {
		b.WriteByte('0')
	}
	b.WriteString(h)
}
