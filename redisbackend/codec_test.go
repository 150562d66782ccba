package redisbackend

import (
	"bytes"
	"errors"
	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/backend"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend/backendtest"
)

// TestCodecRoundTrip: every sample record of the contract decodes to
// itself, and the times come back exact to the µs (finer than the
// contract asks).
func TestCodecRoundTrip(t *testing.T) {
	t.Parallel()
	for name, want := range backendtest.Records(time.Now()) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			raw, err := encodeRecord(want)
			if err != nil {
				t.Fatal(err)
			}
			got, err := decodeRecord(raw)
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if diff := backendtest.Diff(want, got); diff != "" {
				t.Fatal(diff)
			}
			if d := got.Latest.FetchedAt.Sub(want.Latest.FetchedAt).Abs(); d >= time.Microsecond {
				t.Errorf("FetchedAt off by %v; want exact to the µs", d)
			}
		})
	}
}

// TestCodecCompact: bodies are deflated when that pays, so the encoding
// of a typical record is small and a 500 KiB file shrinks several times.
func TestCodecCompact(t *testing.T) {
	t.Parallel()
	recs := backendtest.Records(time.Now())
	tests := []struct {
		name string
		max  int
	}{
		{"ok", 300},                 // 110 B of body, two URLs, validators, four times
		{"minimal", 32},             // no strings, no body
		{"500 KiB body", 160 << 10}, // rules compress well
		{"binary body", 4096 + 200}, // stored raw: deflating would grow it
	}
	for _, tc := range tests {
		raw, err := encodeRecord(recs[tc.name])
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d bytes encoded", tc.name, len(raw))
		if len(raw) > tc.max {
			t.Errorf("%s: %d bytes encoded; want at most %d", tc.name, len(raw), tc.max)
		}
	}
}

// TestCodecVersion: a record of another version is refused as such (Load
// then reports no record), and every record starts with the version.
func TestCodecVersion(t *testing.T) {
	t.Parallel()
	raw, err := encodeRecord(backendtest.Records(time.Now())["ok"])
	if err != nil {
		t.Fatal(err)
	}
	if raw[0] != codecVersion {
		t.Fatalf("first byte %d; want the version %d", raw[0], codecVersion)
	}
	raw[0] = codecVersion + 1
	if _, err := decodeRecord(raw); !errors.Is(err, errUnknownVersion) {
		t.Fatalf("decode of version %d = %v; want errUnknownVersion", raw[0], err)
	}
}

// TestCodecCorrupt: damaged encodings are reported with errCorruptRecord,
// never decoded into a wrong record or a panic.
func TestCodecCorrupt(t *testing.T) {
	t.Parallel()
	raw, err := encodeRecord(backendtest.Records(time.Now())["good copy beside an unreachable answer"])
	if err != nil {
		t.Fatal(err)
	}
	tests := map[string][]byte{
		"empty":          {},
		"version only":   {codecVersion},
		"truncated":      raw[:len(raw)/2],
		"one byte short": raw[:len(raw)-1],
		"trailing":       append(bytes.Clone(raw), 0),
	}
	for name, p := range tests {
		if rec, err := decodeRecord(p); !errors.Is(err, errCorruptRecord) {
			t.Errorf("%s: decode = %+v, %v; want errCorruptRecord", name, rec, err)
		}
	}
}

// FuzzDecodeRecord: no input makes decoding panic or allocate beyond the
// body bound, and what decodes re-encodes to something that decodes the
// same.
func FuzzDecodeRecord(f *testing.F) {
	for _, r := range backendtest.Records(time.Unix(1_700_000_000, 0)) {
		if len(r.Latest.Body) > 4096 {
			continue
		}
		raw, err := encodeRecord(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		rec, err := decodeRecord(p)
		if err != nil {
			return
		}
		raw, err := encodeRecord(rec)
		if err != nil {
			t.Fatal(err)
		}
		again, err := decodeRecord(raw)
		if err != nil {
			t.Fatalf("re-encoded record does not decode: %v", err)
		}
		if diff := backendtest.Diff(rec, again); diff != "" {
			t.Fatal(diff)
		}
	})
}

// TestCodecNilAndEmptyBody: a nil body and an empty one stay apart, also
// for the good copy.
func TestCodecNilAndEmptyBody(t *testing.T) {
	t.Parallel()
	for _, body := range [][]byte{nil, {}} {
		rec := &backend.Record{Latest: backend.Answer{Body: body}, Good: &backend.Answer{Body: body}}
		raw, err := encodeRecord(rec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeRecord(raw)
		if err != nil {
			t.Fatal(err)
		}
		if (got.Latest.Body == nil) != (body == nil) || (got.Good.Body == nil) != (body == nil) {
			t.Errorf("body nil=%v came back nil=%v/%v", body == nil, got.Latest.Body == nil, got.Good.Body == nil)
		}
	}
}

// TestLoadUnreadableRecord: a damaged record, or one of a later version,
// loads as none (so the next fetch replaces it); damage is counted.
func TestLoadUnreadableRecord(t *testing.T) {
	t.Parallel()
	m := newMiniredis(t)
	b := New(newClient(t, "tcp", m.Addr()), WithHeartbeat(-1))
	tests := []struct {
		origin, raw string
		corrupt     uint64
	}{
		{"https://damaged.example", "\x01\xff\xff", 1},
		{"https://newer.example", "\x02whatever", 1},
	}
	for _, tc := range tests {
		if err := m.Set(b.keys.record(tc.origin), tc.raw); err != nil {
			t.Fatal(err)
		}
		rec, err := b.Load(t.Context(), tc.origin)
		if rec != nil || err != nil {
			t.Errorf("Load(%s) = %+v, %v; want nil, nil", tc.origin, rec, err)
		}
		if got := b.Stats().CorruptRecords; got != tc.corrupt {
			t.Errorf("after %s: CorruptRecords %d; want %d", tc.origin, got, tc.corrupt)
		}
	}
}

// TestMaxBodyFollowsCore: the codec's bound on a body stays four times what
// the Extension reads of a robots.txt, without the library importing it.
func TestMaxBodyFollowsCore(t *testing.T) {
	t.Parallel()
	if maxBody != 4*robotsext.MaxBodySize {
		t.Errorf("maxBody = %d, want 4 × robotsext.MaxBodySize = %d", maxBody, 4*robotsext.MaxBodySize)
	}
}
