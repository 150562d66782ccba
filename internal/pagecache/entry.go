package pagecache

// This file is an entry's stored form: a versioned, checksummed record of
// one response (its status, headers, body and the times RFC 9111's age
// needs), so that a torn or altered entry is found out and is a miss.

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"net/http"
	"time"
)

// ErrCorrupt reports a stored entry that cannot be read back: torn,
// truncated, altered, or of another format version. The Cache treats it
// as a miss.
var ErrCorrupt = errors.New("pagecache: corrupt entry")

// magic opens every encoded entry; its last byte is the format version.
const magic = "RXPC\x01"

// Entry is one stored response.
type Entry struct {
	Method string      `json:"m"`
	URL    string      `json:"u"`
	Status int         `json:"s"`
	Header http.Header `json:"h"`
	// Vary holds the values of the request header fields the response's
	// Vary names, as the request that stored it sent them (§4.1).
	Vary map[string]string `json:"v,omitempty"`
	// Uncompressed is http.Response.Uncompressed of the stored response:
	// Body was decoded by the transport, and Header has no
	// Content-Encoding.
	Uncompressed bool `json:"z,omitempty"`
	// RequestTime and ResponseTime are when the request that got the
	// response was sent and when its answer arrived (§4.2.3's
	// request_time and response_time), by the Cache's clock.
	RequestTime  time.Time `json:"rq"`
	ResponseTime time.Time `json:"rs"`
	Body         []byte    `json:"-"`
}

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Encode returns e's stored form: magic, a CRC-32C of the rest, the
// length of the metadata, the metadata as JSON, then the body.
func (e *Entry) Encode() ([]byte, error) {
	meta, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(magic)+4+binary.MaxVarintLen64+len(meta)+len(e.Body))
	out = append(out, magic...)
	out = append(out, 0, 0, 0, 0)
	out = binary.AppendUvarint(out, uint64(len(meta)))
	out = append(out, meta...)
	out = append(out, e.Body...)
	binary.BigEndian.PutUint32(out[len(magic):], crc32.Checksum(out[len(magic)+4:], crcTable))
	return out, nil
}

// Decode reads an entry's stored form back; any flaw is ErrCorrupt.
func Decode(b []byte) (*Entry, error) {
	if len(b) < len(magic)+4 || string(b[:len(magic)]) != magic {
		return nil, ErrCorrupt
	}
	rest := b[len(magic)+4:]
	if crc32.Checksum(rest, crcTable) != binary.BigEndian.Uint32(b[len(magic):]) {
		return nil, ErrCorrupt
	}
	n, k := binary.Uvarint(rest)
	if k <= 0 || n > uint64(len(rest)-k) {
		return nil, ErrCorrupt
	}
	e := new(Entry)
	if err := json.Unmarshal(rest[k:k+int(n)], e); err != nil {
		return nil, ErrCorrupt
	}
	if e.Status < 100 || e.Status > 599 || e.Method == "" || e.URL == "" {
		return nil, ErrCorrupt
	}
	if e.Header == nil {
		e.Header = http.Header{}
	}
	e.Body = rest[k+int(n):]
	return e, nil
}
