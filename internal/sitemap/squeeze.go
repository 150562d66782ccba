package sitemap

import (
	"errors"
	"io"
)

// This file bounds what the XML decoder holds at once. encoding/xml
// buffers each token whole (a tag with its attributes, a comment, a
// CDATA section, a processing instruction, a directive, a run of text),
// so a hostile file of one long token would cost up to the file bound.
// squeeze follows the markup: it drops the runs of text no entry can
// use, and fails a token longer than maxTokenBytes.

// Runs of an XML file that no entry can use, dropped before the decoder:
// white space past maxSpaceRun in a run, and text between tags past
// maxTextRun in a run (an entry's fields are read up to maxField, a URL
// is bad past MaxLocBytes). A token of markup past maxTokenBytes fails
// the file with errToken (a *LimitError, "token bytes").
const (
	maxSpaceRun   = 1 << 10
	maxTextRun    = 64 << 10
	maxTokenBytes = 64 << 10
)

// errToken is squeeze's error once a token passes maxTokenBytes.
var errToken = errors.New("sitemap: token bound reached")

// The places in the markup squeeze tracks.
const (
	inText      = iota
	inOpen      // past '<', its kind not known yet
	inTag       // a start or end tag
	inComment   // <!-- … -->
	inCDATA     // <![CDATA[ … ]]>
	inPI        // <? … ?>
	inDirective // <! … >, '<' and '>' nesting
)

// squeeze is an io.Reader of r without the runs above.
type squeeze struct {
	r     io.Reader
	state int
	quote byte   // the quote open in a tag or a directive, 0 for none
	nest  int    // a directive's open '<'
	head  []byte // the bytes past "<!" while the kind is not known
	last  [2]byte
	token int // the bytes of the current token
	space int // the current run of white space in text
	text  int // the current run of text, white space aside
}

// Read returns what r's next read keeps, as soon as it keeps something:
// a slow server's bytes reach the decoder as they come.
func (s *squeeze) Read(p []byte) (int, error) {
	for {
		n, err := s.r.Read(p)
		n, ferr := s.filter(p[:n])
		if ferr != nil {
			return n, ferr
		}
		if n > 0 || err != nil {
			return n, err
		}
	}
}

// filter drops the runs above from b in place and returns the length
// kept, and errToken past a token's bound.
func (s *squeeze) filter(b []byte) (int, error) {
	w := 0
	for _, c := range b {
		if s.state == inText {
			switch c {
			case '<':
				s.state, s.token, s.space, s.text = inOpen, 1, 0, 0
				s.head = s.head[:0]
			case ' ', '\t', '\r', '\n':
				if s.space++; s.space > maxSpaceRun {
					continue
				}
			default:
				s.space = 0
				if s.text++; s.text > maxTextRun {
					continue
				}
			}
		} else {
			if s.token++; s.token > maxTokenBytes {
				return w, errToken
			}
			s.markup(c)
		}
		b[w] = c
		w++
	}
	return w, nil
}

// markup moves the state past c, a byte of a token.
func (s *squeeze) markup(c byte) {
	end := false
	switch s.state {
	case inOpen:
		s.open(c)
		return
	case inTag:
		end = s.quoted(c) && c == '>'
	case inComment:
		end = c == '>' && s.last == [2]byte{'-', '-'}
	case inCDATA:
		end = c == '>' && s.last == [2]byte{']', ']'}
	case inPI:
		end = c == '>' && s.last[1] == '?'
	case inDirective:
		if s.quoted(c) {
			switch c {
			case '<':
				s.nest++
			case '>':
				s.nest--
				end = s.nest < 0
			}
		}
	}
	s.last = [2]byte{s.last[1], c}
	if end {
		s.state = inText
	}
}

// quoted tracks the quotes of a tag or a directive and reports whether
// c is outside them.
func (s *squeeze) quoted(c byte) bool {
	switch {
	case s.quote != 0:
		if c == s.quote {
			s.quote = 0
		}
		return false
	case c == '"' || c == '\'':
		s.quote = c
		return false
	}
	return true
}

// open finds the kind of the token c continues, from its first bytes.
func (s *squeeze) open(c byte) {
	s.last, s.quote, s.nest = [2]byte{}, 0, 0
	if len(s.head) == 0 {
		switch c {
		case '?':
			s.state = inPI
		case '!':
			s.head = append(s.head, c)
		default:
			s.state = inTag
			s.markup(c)
		}
		return
	}
	s.head = append(s.head, c)
	h := string(s.head)
	switch {
	case h == "!--":
		s.state = inComment
	case h == "![CDATA[":
		s.state = inCDATA
	case len(h) <= 3 && h == "!--"[:len(h)], h == "![CDATA["[:min(len(h), 8)]:
		// not known yet
	default:
		s.state = inDirective
		for _, b := range s.head[1:] {
			s.markup(b)
		}
	}
}

var _ io.Reader = (*squeeze)(nil)
