package sitemap

import (
	"bufio"
	"errors"
	"io"
	"strings"
)

// text reads a text sitemap: one URL per line, UTF-8. A line longer than
// MaxLocBytes (plus its white space) is a bad entry, skipped without
// being held.
func (rd *reader) text(br *bufio.Reader) error {
	lr := bufio.NewReaderSize(br, MaxLocBytes+64)
	for {
		line, err := lr.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			rd.res.Skipped++
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = lr.ReadSlice('\n')
			}
			if err != nil {
				return eofNil(err)
			}
			continue
		}
		if s := strings.TrimSpace(string(line)); s != "" {
			if e := rd.entry(Item{Entry: Entry{Loc: s}}); e != nil {
				return stopNil(e)
			}
		}
		if err != nil {
			return eofNil(err)
		}
	}
}

// eofNil is err, nil at the end of the input.
func eofNil(err error) error {
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// stopNil is err, nil when fn stopped the read.
func stopNil(err error) error {
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}
