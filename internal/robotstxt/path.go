package robotstxt

// This file turns URLs into what robots.txt rules are matched against: the
// path and query as sent, starting with '/', octets outside US-ASCII
// percent-encoded.

import (
	"math/bits"
	"net/url"
	"strings"
	"unsafe"
)

// PathBufSize is the size of the stack buffers that hold a match path built
// on the fly (a path that needs escaping or a leading '/'). Longer paths
// still work; they cost one allocation.
const PathBufSize = 512

// PathOf returns what robots.txt rules are matched against for u: the path
// and query as sent, starting with '/', non-ASCII octets percent-encoded.
// It allocates only when the result is not already a string of u: to join a
// query on, or to encode octets.
func PathOf(u *url.URL) string {
	if u.Opaque == "" && u.RawQuery == "" && !u.ForceQuery {
		if p, ok := PlainPath(u); ok {
			return p
		}
	}
	var buf [PathBufSize]byte
	return string(AppendPath(buf[:0], u))
}

// PlainPath returns PathOf(u) for a URL without an opaque part and without
// a query (the caller checks) when it is already a string of u, the common
// case, without building anything; it returns false when the path would
// have to be built (AppendPath builds it).
func PlainPath(u *url.URL) (string, bool) {
	switch {
	case u.RawPath != "" && rawPathMatches(u.RawPath, u.Path):
		return u.RawPath, true
	case u.Path == "":
		return "/", true
	case u.Path == "*":
		return "*", true // as url.URL.EscapedPath leaves it
	case needsPathEscape(u.Path) < 0:
		return u.Path, true
	}
	return "", false
}

// AppendPath appends to dst exactly what PathOf returns for u. It does
// not allocate when dst has room for the result, so the request hook can
// build the path in a stack array; a longer result grows dst as append
// does.
func AppendPath(dst []byte, u *url.URL) []byte {
	start := len(dst)
	if u.Opaque != "" {
		// "http:opaque" sends Opaque as the request target; a "//host/p"
		// form carries an authority to skip.
		p := u.Opaque
		if rest, ok := strings.CutPrefix(p, "//"); ok {
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				p = rest[i:]
			} else {
				p = "/"
			}
		}
		if p[0] != '/' {
			dst = append(dst, '/')
		}
		dst = appendNonASCIIEscaped(dst, p)
	} else {
		dst = appendEscapedPath(dst, u)
		if len(dst) == start {
			dst = append(dst, '/')
		}
	}
	if u.RawQuery != "" || u.ForceQuery {
		dst = append(dst, '?')
		dst = appendNonASCIIEscaped(dst, u.RawQuery)
	}
	return dst
}

// appendEscapedPath appends u.EscapedPath() without allocating: RawPath
// when it is a valid encoding of Path, else Path encoded as net/url encodes
// a path. The result holds only US-ASCII.
func appendEscapedPath(dst []byte, u *url.URL) []byte {
	if u.RawPath != "" && rawPathMatches(u.RawPath, u.Path) {
		return append(dst, u.RawPath...)
	}
	if u.Path == "*" {
		return append(dst, '*')
	}
	p := u.Path
	i := needsPathEscape(p)
	if i < 0 {
		return append(dst, p...)
	}
	dst = append(dst, p[:i]...)
	for ; i < len(p); i++ {
		c := p[i]
		if pathKeeps(c) {
			dst = append(dst, c)
		} else {
			dst = append(dst, '%', hexDigits[c>>4], hexDigits[c&15])
		}
	}
	return dst
}

// needsPathEscape returns the index of the first octet of p that net/url
// percent-encodes in a path, or -1.
func needsPathEscape(p string) int {
	i := 0
	for ; i+8 <= len(p); i += 8 {
		// Eight octets at a time: one test of their classes together.
		w := p[i : i+8]
		all := octets[w[0]] & octets[w[1]] & octets[w[2]] & octets[w[3]] &
			octets[w[4]] & octets[w[5]] & octets[w[6]] & octets[w[7]]
		if all&octPath == 0 {
			break
		}
	}
	for ; i < len(p); i++ {
		if octets[p[i]]&octPath == 0 {
			return i
		}
	}
	return -1
}

// pathKeeps reports whether net/url leaves c as it is when it encodes a path
// (url.URL.EscapedPath): letters, digits and -._~$&+,/:;=@.
func pathKeeps(c byte) bool { return octets[c]&octPath != 0 }

// rawKeeps reports whether c may appear as it is in a RawPath that
// url.URL.EscapedPath accepts: what it keeps in a path, plus !'()*[].
func rawKeeps(c byte) bool { return octets[c]&octRaw != 0 }

// rawPathMatches reports whether url.URL.EscapedPath would return raw for
// path: raw holds only characters it accepts and %XX escapes, and decodes to
// path.
func rawPathMatches(raw, path string) bool {
	j := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch {
		case c == '%':
			if i+2 >= len(raw) || !isHex(raw[i+1]) || !isHex(raw[i+2]) {
				return false
			}
			c = unhex(raw[i+1])<<4 | unhex(raw[i+2])
			i += 2
		case !rawKeeps(c):
			return false
		}
		if j >= len(path) || path[j] != c {
			return false
		}
		j++
	}
	return j == len(path)
}

func unhex(c byte) byte {
	switch {
	case c >= 'a':
		return c - 'a' + 10
	case c >= 'A':
		return c - 'A' + 10
	}
	return c - '0'
}

// PathOfRaw is PathOf for a string that may be an absolute URL or a bare
// path; ok is false for URLs of schemes robots.txt does not govern. Anything
// that is not an absolute URL is read as RequestPath reads it.
func PathOfRaw(rawURL string) (string, bool) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme == "" {
		return RequestPath(rawURL), true
	}
	if !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https") {
		return "", false
	}
	return PathOf(u), true
}

// RequestPath extracts what robots.txt rules are matched against from a URL,
// as the reference library does: the path (with ;params) and ?query, without
// scheme, authority or #fragment, always starting with '/' ("/" when there is
// no path). Octets outside US-ASCII are then percent-encoded.
func RequestPath(rawURL string) string {
	path, ready := PathSpan(rawURL)
	if ready {
		return path
	}
	var buf [PathBufSize]byte
	return string(FinishPath(buf[:0], path))
}

// PathSpan finds the part of rawURL that RequestPath returns. ready is true
// when that part is the answer as it is, a string of rawURL; otherwise
// FinishPath must add the leading '/' or escape octets. It is RequestPath
// in two steps, so that a caller that does not keep the path (the root
// package's Policy.Check) builds it in a stack buffer, and only when it
// must.
func PathSpan(rawURL string) (path string, ready bool) {
	rest := rawURL
	switch {
	case len(rest) > 0 && rest[0] == '/' && (len(rest) == 1 || rest[1] != '/'):
		// A bare path, the common case for Policy.Check: no authority.
	default:
		if n := httpSchemeLen(rest); n > 0 {
			k := authorityEnd(rest, n)
			if k == len(rest) || rest[k] == '#' {
				return "/", true
			}
			rest = rest[k:]
			break
		}
		start, ok := pathStart(rest)
		if !ok {
			return "/", true
		}
		rest = rest[start:]
	}
	// rest starts the path and holds no '#' before it. In one pass, cut
	// the fragment and look for octets to escape.
	if len(rest) < 8 {
		var high byte
		for i := 0; i < len(rest); i++ {
			c := rest[i]
			if c == '#' {
				rest = rest[:i]
				break
			}
			high |= c
		}
		return rest, high < 0x80 && rest[0] == '/'
	}
	// Eight octets at a time, with one test for both: the last word may
	// overlap the one before, which is harmless, those octets being
	// neither.
	for i := 0; ; i += 8 {
		i = min(i, len(rest)-8)
		if m := hashOrHigh(loadAt(rest, i)); m != 0 {
			k := i + bits.TrailingZeros64(m)>>3
			if rest[k] == '#' {
				return rest[:k], rest[0] == '/'
			}
			// An octet to escape, which is rare: the fragment, if
			// any, is cut the plain way.
			if h := strings.IndexByte(rest[k:], '#'); h >= 0 {
				rest = rest[:k+h]
			}
			return rest, false
		}
		if i+8 == len(rest) {
			return rest, rest[0] == '/'
		}
	}
}

// hashOrHigh flags, with its high bit, the lowest octet of x that is '#'
// or outside US-ASCII; as with byteMask, octets above it may be flagged
// wrongly. After the XOR only a '#' is 0, which borrows, and an octet
// outside US-ASCII keeps its high bit, so the lowest flag is exact.
func hashOrHigh(x uint64) uint64 {
	y := x ^ (ones * '#')
	return (y - ones | x) & highs
}

// httpSchemeLen returns the length of the "http://" or "https://" (in any
// case) that s starts with, or 0. It compares words: setting bit 0x20 of
// an octet folds exactly 'H' onto 'h', 'T' onto 't' and so on, and is
// applied only to the scheme's letters.
func httpSchemeLen(s string) int {
	const (
		http  = uint64('h') | uint64('t')<<8 | uint64('t')<<16 | uint64('p')<<24 | uint64(':')<<32 | uint64('/')<<40 | uint64('/')<<48
		https = uint64('h') | uint64('t')<<8 | uint64('t')<<16 | uint64('p')<<24 | uint64('s')<<32 | uint64(':')<<40 | uint64('/')<<48 | uint64('/')<<56
	)
	if len(s) < 8 {
		return 0 // as before: "http://" alone has no host
	}
	x := loadLE(s)
	switch {
	case (x|0x20202020)&(1<<56-1) == http:
		return len("http://")
	case x|0x2020202020 == https:
		return len("https://")
	}
	return 0
}

// authorityEnd returns the index of the first '/', '?', ';' or '#' of s
// from i, which ends the authority that starts there, or len(s). It looks
// at eight octets at a time, with one test for all four: with bits 0x1C
// set, each of them reads 0x3F, as do only the apostrophe, '+', '3' and
// '7', which a look at the octet found tells apart (the search then goes on
// after it).
func authorityEnd(s string, i int) int {
	const fold = ones * 0x1C
	for i+8 <= len(s) {
		m := byteMask(loadAt(s, i)|fold, 0x3F)
		if m == 0 {
			i += 8
			continue
		}
		// The lowest octet flagged is one of the eight.
		k := i + bits.TrailingZeros64(m)>>3
		if endsAuthority(s[k]) {
			return k
		}
		i = k + 1
	}
	for ; i < len(s); i++ {
		if endsAuthority(s[i]) {
			return i
		}
	}
	return len(s)
}

// endsAuthority reports whether c ends a URL's authority: '/', '?', ';' or
// '#'.
func endsAuthority(c byte) bool {
	return c == '/' || c == '?' || c == ';' || c == '#'
}

// pathStart is the general form of PathSpan's search, for URLs that are
// neither bare paths nor http(s): it returns where the path starts, or false
// when there is none before a '#' (the path is then "/").
func pathStart(rawURL string) (int, bool) {
	start := 0
	if strings.HasPrefix(rawURL, "//") {
		start = 2
	}
	rest := rawURL[start:]
	early := strings.IndexAny(rest, "/?;")
	proto := strings.Index(rest, "://")
	from := 0
	if proto >= 0 && (early < 0 || early > proto) {
		from = proto + 3
	}
	k := strings.IndexAny(rest[from:], "/?;")
	if k < 0 {
		return 0, false
	}
	k += from
	if h := strings.IndexByte(rest, '#'); h >= 0 && h < k {
		return 0, false
	}
	return start + k, true
}

// FinishPath appends path, as PathSpan found it, to dst in its final form:
// with a leading '/' and octets outside US-ASCII percent-encoded.
func FinishPath(dst []byte, path string) []byte {
	if path[0] != '/' {
		dst = append(dst, '/')
	}
	return appendNonASCIIEscaped(dst, path)
}

// escapeNonASCII percent-encodes octets outside US-ASCII, leaving everything
// else (existing escapes included) as it is.
func escapeNonASCII(s string) string {
	i := 0
	for i < len(s) && s[i] < 0x80 {
		i++
	}
	if i == len(s) {
		return s
	}
	var buf [PathBufSize]byte
	return string(appendNonASCIIEscaped(buf[:0], s))
}

// appendNonASCIIEscaped appends s to dst with octets outside US-ASCII
// percent-encoded.
func appendNonASCIIEscaped(dst []byte, s string) []byte {
	done := 0 // s[:done] is appended
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 {
			dst = append(dst, s[done:i]...)
			dst = append(dst, '%', hexDigits[c>>4], hexDigits[c&15])
			done = i + 1
		}
	}
	return append(dst, s[done:]...)
}

// bytesString views b as a string without copying. The string is valid only
// while b is neither modified nor out of scope: it is for passing a path
// built in a stack buffer to a callee that does not keep it.
func bytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
