package sitemap

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

type (
	xmlStart = xml.StartElement
	xmlEnd   = xml.EndElement
	xmlChars = xml.CharData
)

// newDecoder returns a lenient Decoder of r: HTML entities known,
// unclosed tags closed at their parent's end, and the single-byte
// encodings of the wild (ASCII, Latin-1) read besides UTF-8.
func newDecoder(r io.Reader) *xml.Decoder {
	d := xml.NewDecoder(r)
	d.Strict = false
	d.Entity = xml.HTMLEntity
	d.CharsetReader = charsetReader
	return d
}

// charsetReader reads the single-byte encodings named in an XML
// declaration as UTF-8, and UTF-8 misspelled; any other fails the file
// (ErrMalformed).
func charsetReader(label string, r io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "utf8", "utf_8", "utf-8": // misspellings of UTF-8 seen in the wild
		return r, nil
	case "us-ascii", "ascii", "iso-8859-1", "latin1", "iso_8859-1", "windows-1252", "cp1252":
		return &latin1{r: r}, nil
	}
	return nil, fmt.Errorf("%w: unsupported encoding %q", ErrMalformed, label)
}

// latin1 decodes ISO-8859-1 bytes into UTF-8 (windows-1252's extra
// characters read as their Latin-1 control codes).
type latin1 struct {
	r   io.Reader
	buf [512]byte
	out []byte
}

func (l *latin1) Read(p []byte) (int, error) {
	if len(l.out) == 0 {
		n, err := l.r.Read(l.buf[:min(len(l.buf), max(len(p)/2, 1))])
		for _, b := range l.buf[:n] {
			l.out = append(l.out, string(rune(b))...)
		}
		if n == 0 {
			return 0, err
		}
	}
	n := copy(p, l.out)
	l.out = l.out[n:]
	return n, nil
}

// attr returns the value of t's attribute named local (any namespace,
// case-insensitive), "" when it has none.
func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if strings.EqualFold(a.Name.Local, local) {
			return a.Value
		}
	}
	return ""
}
