package directives

// This file finds the meta tags of an HTML document's head without
// building a document tree: a scan over the tags that may stand in a head,
// which ends at the first tag that cannot (so a page pays for its head,
// not its body).

import (
	"bytes"
	"html"
	"strings"
	"unsafe"
)

// MaxHeadScan is how many octets of an HTML body ParseMetaRobots reads
// at most, looking for the end of its head; meta tags after it are not
// seen.
const MaxHeadScan = 512 << 10

// scanHead calls fn with the name and content attributes of each <meta>
// tag of the document's head, until a tag that cannot stand in a head
// (<body>, </head>, <div>, …), the end of b or MaxHeadScan octets.
// Comments, <script>, <style>, <title> and <template> contents are
// skipped; stray text is passed over. Entities in the two attributes are
// decoded; the strings may share b's memory and must not be kept.
func scanHead(b []byte, fn func(name, content string)) {
	if len(b) > MaxHeadScan {
		b = b[:MaxHeadScan]
	}
	i := 0
	for {
		j := bytes.IndexByte(b[i:], '<')
		if j < 0 {
			return
		}
		i += j + 1
		if i >= len(b) {
			return
		}
		switch c := b[i]; {
		case c == '!':
			if bytes.HasPrefix(b[i:], []byte("!--")) {
				k := bytes.Index(b[i+3:], []byte("-->"))
				if k < 0 {
					return
				}
				i += 3 + k + 3
				continue
			}
			k := bytes.IndexByte(b[i:], '>') // doctype
			if k < 0 {
				return
			}
			i += k + 1
		case c == '?':
			k := bytes.IndexByte(b[i:], '>') // an XML declaration
			if k < 0 {
				return
			}
			i += k + 1
		case c == '/':
			name, _ := tagName(b[i+1:])
			if strings.EqualFold(name, "head") || strings.EqualFold(name, "html") {
				return
			}
		case isASCIILetter(c):
			name, n := tagName(b[i:])
			i += n
			var meta *metaAttrs
			if strings.EqualFold(name, "meta") {
				meta = &metaAttrs{}
			}
			k, ok := skipAttrs(b, i, meta)
			if !ok {
				return
			}
			i = k
			switch {
			case meta != nil:
				if meta.name != "" && meta.hasContent {
					fn(meta.name, meta.content)
				}
			case strings.EqualFold(name, "script"), strings.EqualFold(name, "style"),
				strings.EqualFold(name, "title"), strings.EqualFold(name, "template"):
				k, ok := skipRaw(b, i, name)
				if !ok {
					return
				}
				i = k
			case inHead(name):
			default:
				return // the body has begun
			}
		}
	}
}

// inHead reports whether a start tag may stand in a head (or before it)
// without starting the body. <meta>, <script>, <style>, <title> and
// <template> are handled by scanHead itself.
func inHead(name string) bool {
	for _, n := range [...]string{"html", "head", "link", "base", "noscript", "basefont", "bgsound"} {
		if strings.EqualFold(name, n) {
			return true
		}
	}
	return false
}

// metaAttrs collects the two attributes of a meta tag that matter.
type metaAttrs struct {
	name, content string
	hasContent    bool
}

// tagName returns the tag name at the start of b and its length.
func tagName(b []byte) (string, int) {
	n := 0
	for n < len(b) && !isASCIISpace(b[n]) && b[n] != '>' && b[n] != '/' {
		n++
	}
	return bytesString(b[:n]), n
}

// skipAttrs reads attributes from b[i:] to the end of the tag and returns
// the index after its '>'; false when the tag never ends. With m, the
// name and content attributes are kept.
func skipAttrs(b []byte, i int, m *metaAttrs) (int, bool) {
	for {
		for i < len(b) && (isASCIISpace(b[i]) || b[i] == '/') {
			i++
		}
		if i >= len(b) {
			return 0, false
		}
		if b[i] == '>' {
			return i + 1, true
		}
		start := i
		for i < len(b) && !isASCIISpace(b[i]) && b[i] != '=' && b[i] != '>' && b[i] != '/' {
			i++
		}
		attr := bytesString(b[start:i])
		for i < len(b) && isASCIISpace(b[i]) {
			i++
		}
		if i >= len(b) || b[i] != '=' {
			continue
		}
		i++
		for i < len(b) && isASCIISpace(b[i]) {
			i++
		}
		if i >= len(b) {
			return 0, false
		}
		var val []byte
		if q := b[i]; q == '"' || q == '\'' {
			k := bytes.IndexByte(b[i+1:], q)
			if k < 0 {
				return 0, false
			}
			val = b[i+1 : i+1+k]
			i += k + 2
		} else {
			start := i
			for i < len(b) && !isASCIISpace(b[i]) && b[i] != '>' {
				i++
			}
			val = b[start:i]
		}
		if m == nil {
			continue
		}
		switch {
		case strings.EqualFold(attr, "name"):
			m.name = attrValue(val)
		case strings.EqualFold(attr, "content"):
			m.content, m.hasContent = attrValue(val), true
		}
	}
}

// attrValue is an attribute value with its entities decoded. Without
// entities it shares b's memory (nothing is copied for the many meta tags
// that are not robots tags): callers copy what they keep.
func attrValue(v []byte) string {
	if len(v) > maxDirectiveValue {
		v = v[:maxDirectiveValue]
	}
	if bytes.IndexByte(v, '&') >= 0 {
		return html.UnescapeString(string(v))
	}
	return bytesString(v)
}

// skipRaw skips the contents of a raw-text element (script, style, title,
// template) from b[i:] to just after its end tag; false when it never
// ends.
func skipRaw(b []byte, i int, name string) (int, bool) {
	for {
		k := bytes.Index(b[i:], []byte("</"))
		if k < 0 {
			return 0, false
		}
		i += k + 2
		if len(b)-i >= len(name) && strings.EqualFold(bytesString(b[i:i+len(name)]), name) {
			k := bytes.IndexByte(b[i:], '>')
			if k < 0 {
				return 0, false
			}
			return i + k + 1, true
		}
	}
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// bytesString views b as a string without copying. The string is valid only
// while b is neither modified nor out of scope: it is for passing bytes of
// the body to a callee that does not keep them.
func bytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
