package redisbackend

// The record encoding: compact and versioned. A record is one version
// byte and then its fields in a fixed order, integers as varints, strings
// length-prefixed, times as microseconds after the zero time (so the zero
// time is one byte and every other time is exact to the µs), and bodies
// deflated when that makes them smaller. Readers refuse versions they do
// not know, which Load treats as no record: a worker of an older release
// then fetches robots.txt again rather than misreading a newer record.
// Damaged records are treated the same way.

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/robotsext/robotsext/backend"
	"io"
	"time"
)

// codecVersion is the first byte of every encoded record.
const codecVersion = 1

// maxBody bounds the inflated size of a body a record may declare, so that
// a corrupt or hostile record cannot make Load allocate without limit.
// robotsext reads at most robotsext.MaxBodySize (500 KiB) of a robots.txt;
// this is four times that, and a test holds it there.
const maxBody = 4 * 500 << 10

// minDeflate is the body length below which deflating cannot pay off.
const minDeflate = 64

// errCorruptRecord marks stored bytes that are not a record this package
// wrote. Load treats them as no record, so that the next fetch of
// robots.txt replaces them, and counts them in Stats.
var errCorruptRecord = errors.New("redisbackend: corrupt record")

// errUnknownVersion marks a record of a later encoding version.
var errUnknownVersion = errors.New("redisbackend: unknown record version")

// Record flags.
const (
	recGood = 1 << iota // Good follows Latest
)

// Answer flags.
const (
	ansTruncated   = 1 << iota
	ansNotModified // Answer.NotModified
	ansBody        // a body follows (it may be empty); absent: Body is nil
	ansDeflated    // the body is deflated
	ansFinalIsURL  // FinalURL equals URL and is not stored
)

// zeroMicros is the zero time in Unix microseconds.
var zeroMicros = time.Time{}.UnixMicro()

// encodeRecord returns r's encoding.
func encodeRecord(r *backend.Record) ([]byte, error) {
	size := 64 + len(r.Latest.Body)
	if r.Good != nil {
		size += len(r.Good.Body)
	}
	b := make([]byte, 0, min(size, 64<<10))
	b = append(b, codecVersion)
	var flags uint64
	if r.Good != nil {
		flags |= recGood
	}
	b = binary.AppendUvarint(b, flags)
	var err error
	if b, err = appendAnswer(b, &r.Latest); err != nil {
		return nil, err
	}
	if r.Good != nil {
		if b, err = appendAnswer(b, r.Good); err != nil {
			return nil, err
		}
	}
	b = appendTime(b, r.GoodAt)
	b = binary.AppendVarint(b, int64(r.Failures))
	b = appendTime(b, r.Expires)
	return b, nil
}

func appendAnswer(b []byte, a *backend.Answer) ([]byte, error) {
	var flags uint64
	if a.Truncated {
		flags |= ansTruncated
	}
	if a.NotModified {
		flags |= ansNotModified
	}
	var body []byte
	if a.Body != nil {
		flags |= ansBody
		body = a.Body
		if len(body) >= minDeflate {
			z, err := deflate(body)
			if err != nil {
				return nil, err
			}
			if len(z) < len(body) {
				flags |= ansDeflated
				body = z
			}
		}
	}
	if a.FinalURL == a.URL {
		flags |= ansFinalIsURL
	}
	b = binary.AppendUvarint(b, flags)
	b = appendString(b, a.URL)
	if a.FinalURL != a.URL {
		b = appendString(b, a.FinalURL)
	}
	b = binary.AppendVarint(b, int64(a.Redirects))
	b = binary.AppendVarint(b, int64(a.Status))
	b = binary.AppendUvarint(b, uint64(a.Outcome))
	b = appendString(b, a.Err)
	if a.Body != nil {
		b = binary.AppendUvarint(b, uint64(len(a.Body)))
		b = binary.AppendUvarint(b, uint64(len(body)))
		b = append(b, body...)
	}
	b = appendTime(b, a.FetchedAt)
	b = appendTime(b, a.Expires)
	b = binary.AppendVarint(b, int64(a.RetryAfter))
	b = appendString(b, a.ETag)
	b = appendString(b, a.LastModified)
	return b, nil
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, 0)
	}
	return binary.AppendVarint(b, t.UnixMicro()-zeroMicros)
}

// deflate compresses p at the default level: a record is written once per
// robots.txt lifetime, so size matters more than speed.
func deflate(p []byte) ([]byte, error) {
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.DefaultCompression)
	if err != nil {
		return nil, err
	}
	if _, err := w.Write(p); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// decoder reads an encoded record; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

// decodeRecord parses an encoding made by encodeRecord.
func decodeRecord(p []byte) (*backend.Record, error) {
	if len(p) == 0 {
		return nil, fmt.Errorf("%w: empty", errCorruptRecord)
	}
	if p[0] != codecVersion {
		return nil, fmt.Errorf("%w %d", errUnknownVersion, p[0])
	}
	d := &decoder{b: p[1:]}
	r := &backend.Record{}
	flags := d.uvarint()
	d.answer(&r.Latest)
	if flags&recGood != 0 {
		r.Good = &backend.Answer{}
		d.answer(r.Good)
	}
	r.GoodAt = d.time()
	r.Failures = int(d.varint())
	r.Expires = d.time()
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d trailing bytes", len(d.b))
	}
	if d.err != nil {
		return nil, d.err
	}
	return r, nil
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", errCorruptRecord, fmt.Sprintf(format, args...))
	}
	d.b = nil
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("bad uvarint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes(n uint64) []byte {
	if n > uint64(len(d.b)) {
		d.fail("length %d beyond the end", n)
		return nil
	}
	p := d.b[:n:n]
	d.b = d.b[n:]
	return p
}

func (d *decoder) string() string { return string(d.bytes(d.uvarint())) }

func (d *decoder) time() time.Time {
	v := d.varint()
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMicro(v + zeroMicros)
}

func (d *decoder) answer(a *backend.Answer) {
	flags := d.uvarint()
	a.Truncated = flags&ansTruncated != 0
	a.NotModified = flags&ansNotModified != 0
	a.URL = d.string()
	a.FinalURL = a.URL
	if flags&ansFinalIsURL == 0 {
		a.FinalURL = d.string()
	}
	a.Redirects = int(d.varint())
	a.Status = int(d.varint())
	a.Outcome = backend.Outcome(d.uvarint())
	a.Err = d.string()
	if flags&ansBody != 0 {
		size := d.uvarint()
		stored := d.bytes(d.uvarint())
		switch {
		case d.err != nil:
		case size > maxBody:
			d.fail("body of %d bytes", size)
		case size == 0 && len(stored) == 0:
			a.Body = []byte{}
		case flags&ansDeflated == 0:
			if uint64(len(stored)) != size {
				d.fail("body of %d bytes declared %d", len(stored), size)
			}
			a.Body = bytes.Clone(stored)
		default:
			body, err := inflate(stored, size)
			if err != nil {
				d.fail("body: %v", err)
			}
			a.Body = body
		}
	}
	a.FetchedAt = d.time()
	a.Expires = d.time()
	a.RetryAfter = time.Duration(d.varint())
	a.ETag = d.string()
	a.LastModified = d.string()
}

// inflate decompresses z, which must inflate to exactly size bytes.
func inflate(z []byte, size uint64) ([]byte, error) {
	r := flate.NewReader(bytes.NewReader(z))
	defer r.Close()
	body := make([]byte, size)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	if n, _ := r.Read(make([]byte, 1)); n != 0 {
		return nil, errors.New("longer than declared")
	}
	return body, nil
}
