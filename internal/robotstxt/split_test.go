package robotstxt

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// This file keeps the previous, plainly written line splitter (one
// bytes.IndexByte search per separator) as the reference that the
// one-pass splitter is compared with.

// oldEachDirective is the previous EachDirective, kept as the reference
// FuzzSplit compares the one-pass splitter with.
func oldEachDirective(body []byte, fn func(Directive)) {
	i := 0
	for i < len(body) && i < len(utf8BOM) && body[i] == utf8BOM[i] {
		i++ // a (possibly partial) byte order mark is skipped
	}
	var num int32
	emit := func(line []byte) {
		num++
		if key, value, ok := oldSplitDirective(line); ok {
			fn(Directive{Line: num, Key: oldClassifyKey(key), Value: value})
		}
	}
	body = body[i:]
	lastCR := false
	for len(body) > 0 {
		// The line ends at the first CR or LF; both searches are
		// vectorised, which matters more than the second pass over
		// a line that holds a CR.
		end := bytes.IndexByte(body, '\n')
		if end < 0 {
			end = len(body)
		}
		if cr := bytes.IndexByte(body[:end], '\r'); cr >= 0 {
			end = cr
		}
		if end == len(body) {
			break
		}
		c := body[end]
		// The LF of a CRLF pair does not end a second, empty line.
		if !(end == 0 && lastCR && c == '\n') {
			emit(body[:end])
		}
		lastCR = c == '\r'
		body = body[end+1:]
	}
	emit(body)
}

// splitDirective extracts the key and value of one line, or reports false
// for empty lines, comments and lines it cannot read.
func oldSplitDirective(line []byte) (key, value []byte, ok bool) {
	if len(line) > maxLineLen {
		line = line[:maxLineLen]
	}
	if k := bytes.IndexByte(line, 0); k >= 0 {
		line = line[:k] // the reference parser works on C strings
	}
	if k := bytes.IndexByte(line, '#'); k >= 0 {
		line = line[:k]
	}
	line = trimSpace(line)
	if len(line) == 0 {
		return nil, nil, false
	}
	sep := bytes.IndexByte(line, ':')
	if sep < 0 {
		// A missing colon is forgiven when whitespace separates exactly
		// two words: "Disallow /tmp".
		sep = bytes.IndexAny(line, " \t")
		if sep < 0 {
			return nil, nil, false
		}
		rest := bytes.TrimLeft(line[sep:], " \t")
		if bytes.ContainsAny(rest, " \t") {
			return nil, nil, false
		}
	}
	key = trimSpace(line[:sep])
	if len(key) == 0 {
		return nil, nil, false
	}
	return key, trimSpace(line[sep+1:]), true
}

// classifyKey names a line's key. Like the reference parser it accepts any
// key that starts with a known word or one of its common misspellings.
func oldClassifyKey(key []byte) Key {
	switch {
	case hasPrefixFold(key, "user-agent", "useragent", "user agent"):
		return KeyUserAgent
	case hasPrefixFold(key, "allow"):
		return KeyAllow
	case hasPrefixFold(key, "disallow", "dissallow", "dissalow", "disalow", "diasllow", "disallaw"):
		return KeyDisallow
	case hasPrefixFold(key, "sitemap", "site-map"):
		return KeySitemap
	case equalFold(key, "crawl-delay"):
		return KeyCrawlDelay
	case equalFold(key, "request-rate"):
		return KeyRequestRate
	case equalFold(key, "content-usage"):
		return KeyContentUsage
	case equalFold(key, "content-signal"):
		return KeyContentSignal
	}
	return KeyUnknown
}

// directives collects what a splitter reports, values copied.
func directives(split func([]byte, func(Directive)), body []byte) []Directive {
	var out []Directive
	split(body, func(d Directive) {
		d.Value = bytes.Clone(d.Value)
		out = append(out, d)
	})
	return out
}

func sameDirectives(a, b []Directive) bool {
	return slices.EqualFunc(a, b, func(x, y Directive) bool {
		return x.Line == y.Line && x.Key == y.Key && bytes.Equal(x.Value, y.Value)
	})
}

// splitSeeds are lines that take every branch of the splitter, with
// separators on both sides of the eight-byte boundaries.
var splitSeeds = []string{
	"User-agent: *\nDisallow: /a\r\nAllow: /b#c\rSitemap: http://x/y\n\n",
	"\xEF\xBB\xBFuser-agent foobot\r\ndisallow /x\r\nallow: /d/index.html\r",
	"Disallow /a /b\n  \t Disallow\t:\t/x  \nDisallow:/a\x00:b\n1234567:9\n12345678:0\n123456789#:\n",
	"#:\n:x\n :\n\x00Disallow: /a\nDis#allow: /a\nCrawl-delay: 5\nRequest-rate: 1/5\nSite-map: x\n",
	"Disallow: /" + strings.Repeat("a", maxLineLen) + ":b\nUser agent: x\nUseragent: y\nDissallow: z\n",
	"allowed: /a\nA\nDisallow\nDisallow:\n\n\r\n\r\r\n\n\r",
	"Content-Usage: / train-ai=n\nCONTENT-SIGNAL:search=yes\ncontent-usages: x\nContent-Signal /a ai-train=no\n",
}

func TestSplitterAgreesWithReference(t *testing.T) {
	t.Parallel()
	for _, s := range splitSeeds {
		for cut := 0; cut <= len(s) && cut < 64; cut++ {
			body := []byte(s[cut:])
			if got, want := directives(EachDirective, body), directives(oldEachDirective, body); !sameDirectives(got, want) {
				t.Fatalf("splitting %q:\ngot  %+v\nwant %+v", body, got, want)
			}
		}
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range splitSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if got, want := directives(EachDirective, body), directives(oldEachDirective, body); !sameDirectives(got, want) {
			t.Fatalf("splitting %q:\ngot  %+v\nwant %+v", body, got, want)
		}
	})
}

// hasPrefixFold reports whether s starts with one of prefixes, ignoring
// ASCII case.
func hasPrefixFold(s []byte, prefixes ...string) bool {
	for _, p := range prefixes {
		if len(s) >= len(p) && equalFold(s[:len(p)], p) {
			return true
		}
	}
	return false
}

// One octet the splitter looks for, at every position of lines up to 80
// octets long (past the 64 read eight at a time), with the colon early or
// late: every word before and after the colon is searched for it.
func TestSplitterEveryPosition(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"A:", "Disallow:", "Disallow: ", "User-agent:" + strings.Repeat(" ", 20)} {
		for n := len(key) + 1; n <= 80; n++ {
			for _, special := range []byte{'#', 0, '\r', '\n', ':', '\t', '\x0e', '#' ^ 1} {
				for at := 0; at < n; at++ {
					line := []byte(key + strings.Repeat("/a*%\xC3", 20))[:n]
					line[at] = special
					body := append(append([]byte("User-agent: *\n"), line...), "\nAllow: /b\n"...)
					if got, want := directives(EachDirective, body), directives(oldEachDirective, body); !sameDirectives(got, want) {
						t.Fatalf("%q at %d of %q:\ngot  %+v\nwant %+v", special, at, line, got, want)
					}
				}
			}
		}
	}
}

// Lines longer than maxLineLen are cut there: a '#', NUL or ':' just
// before, at or after the cut must split as the reference splitter does.
func TestSplitterAtTheLineLimit(t *testing.T) {
	t.Parallel()
	for _, special := range []byte{'#', 0, ':'} {
		for _, at := range []int{64, maxLineLen - 2, maxLineLen - 1, maxLineLen, maxLineLen + 1, maxLineLen + 500} {
			for _, key := range []string{"Disallow: /", "Disallow /", "Sitemap:"} {
				line := []byte(key + strings.Repeat("a", maxLineLen+1000))
				line[at] = special
				body := append(append([]byte("User-agent: *\n"), line...), "\nAllow: /b\n"...)
				if got, want := directives(EachDirective, body), directives(oldEachDirective, body); !sameDirectives(got, want) {
					t.Errorf("%q at %d after %q: got %d directives, want %d", special, at, key, len(got), len(want))
				}
			}
		}
	}
}
