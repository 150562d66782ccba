package sitemap

// This file opens a sitemap's bytes for reading: a gzip stream is
// sniffed by its magic (1f 8b), not by name or Content-Encoding, a UTF-8
// byte order mark is dropped, and the bytes read, compressed and
// uncompressed, are capped at the file bound, so that a gzip bomb stops
// there.

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
)

// errCut is the capped reader's error once its bound is reached with
// bytes left.
var errCut = errors.New("sitemap: file bound reached")

// capped reads at most left bytes of r, then fails with errCut unless r
// ends exactly there.
type capped struct {
	r    io.Reader
	left int64
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, err := io.ReadFull(c.r, one[:]); n == 0 && errors.Is(err, io.EOF) {
			return 0, io.EOF
		}
		return 0, errCut
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// open returns the uncompressed bytes of a sitemap file read from r,
// capped at max, buffered for sniffing its format.
func open(r io.Reader, max int64) (*bufio.Reader, error) {
	br := bufio.NewReader(&capped{r: r, left: max})
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: gzip: %v", ErrMalformed, err)
		}
		br = bufio.NewReader(&capped{r: zr, left: max})
	}
	if bom, _ := br.Peek(3); len(bom) == 3 && bom[0] == 0xef && bom[1] == 0xbb && bom[2] == 0xbf {
		_, _ = br.Discard(3)
	}
	return br, nil
}

// isXML reports whether the file's first byte past white space is '<'.
func isXML(br *bufio.Reader) bool {
	for n := 1; n <= 512; n++ {
		b, err := br.Peek(n)
		if err != nil || len(b) < n {
			return false
		}
		switch b[n-1] {
		case ' ', '\t', '\r', '\n':
			continue
		case '<':
			return true
		}
		return false
	}
	return false
}
