package sitemap

import "io"

// Runs of an XML file that no entry can use, dropped before the decoder
// (which would buffer each whole, up to the file bound): white space past
// maxSpaceRun in a run, and text between tags past maxTextRun in a run
// (an entry's fields are read up to maxField, a URL is bad past
// MaxLocBytes). A padded or hostile file then costs the decoder no more
// than these.
const (
	maxSpaceRun = 1 << 10
	maxTextRun  = 64 << 10
)

// squeeze is an io.Reader of r without the runs above.
type squeeze struct {
	r     io.Reader
	inTag bool // between '<' and '>'
	space int  // the current run of white space
	text  int  // the current run of text outside tags, white space aside
}

func (s *squeeze) Read(p []byte) (int, error) {
	for {
		n, err := s.r.Read(p)
		if n = s.filter(p[:n]); n > 0 || err != nil {
			return n, err
		}
	}
}

// filter drops the runs above from b in place and returns the length
// kept.
func (s *squeeze) filter(b []byte) int {
	w := 0
	for _, c := range b {
		switch c {
		case '<':
			s.inTag, s.space, s.text = true, 0, 0
		case '>':
			s.inTag, s.space, s.text = false, 0, 0
		case ' ', '\t', '\r', '\n':
			if s.space++; s.space > maxSpaceRun {
				continue
			}
		default:
			s.space = 0
			if !s.inTag {
				if s.text++; s.text > maxTextRun {
					continue
				}
			}
		}
		b[w] = c
		w++
	}
	return w
}

var _ io.Reader = (*squeeze)(nil)
