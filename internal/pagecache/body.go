package pagecache

// This file is the body of a response being stored: it is stored as the
// caller reads it, once read to the end, so that a caller who stops early
// (Colly's Abort in OnResponseHeaders closes the body unread) downloads
// no more than without the cache, and nothing is stored.

import (
	"io"
	"sync"
)

// storingBody reads through rc, keeping up to max bytes; done is called
// once: with the whole body at the end of a read to io.EOF, or with whole
// false when rc failed, was closed early or passed max.
type storingBody struct {
	rc   io.ReadCloser
	max  int64
	buf  []byte // read only by Read's goroutine
	over bool
	once sync.Once
	done func(body []byte, whole bool)
}

// Read reads from the response's body.
func (b *storingBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if !b.over {
		if int64(len(b.buf)+n) > b.max {
			b.over, b.buf = true, nil
		} else {
			b.buf = append(b.buf, p[:n]...)
		}
	}
	switch {
	case err == io.EOF:
		body, whole := b.buf, !b.over
		b.buf = nil
		b.once.Do(func() { b.done(body, whole) })
	case err != nil:
		b.once.Do(func() { b.done(nil, false) })
	}
	return n, err
}

// Close closes the response's body; unless it was read to the end, the
// response is not stored.
func (b *storingBody) Close() error {
	b.once.Do(func() { b.done(nil, false) })
	return b.rc.Close()
}
