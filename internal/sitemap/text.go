package sitemap

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// text reads a text sitemap: one URL per line, UTF-8. A line longer than
// MaxLocBytes (plus its white space) is a bad entry, skipped without
// being held. A file with lines but not one URL (an error page in
// plain text, JSON, a robots.txt, a gzip stream gzipped again) is not a
// sitemap: ErrMalformed.
func (rd *reader) text(br *bufio.Reader) error {
	lr := bufio.NewReaderSize(br, MaxLocBytes+64)
	bad := 0 // lines that are neither a URL nor a '#' comment
	for {
		line, err := lr.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			rd.res.Skipped++
			bad++
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = lr.ReadSlice('\n')
			}
			if err != nil {
				return eofNil(err)
			}
			continue
		}
		if s := strings.TrimSpace(string(line)); s != "" {
			items := rd.res.Items
			if e := rd.entry(Item{Entry: Entry{Loc: s}}); e != nil {
				return stopNil(e)
			}
			if rd.res.Items == items && s[0] != '#' {
				bad++
			}
		}
		if err != nil && errors.Is(err, io.EOF) && rd.res.Items == 0 && bad > 0 {
			return fmt.Errorf("sitemap %s: %w: not a sitemap: %d lines, none a URL", rd.url, ErrMalformed, bad)
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
