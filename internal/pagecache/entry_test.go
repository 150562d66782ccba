package pagecache

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

func TestEntryRoundTrip(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	e := &Entry{Method: "GET", URL: "https://a.example/p?q=1", Status: 200, Header: hdr("ETag", `"x"`, "Vary", "Accept"),
		Vary: map[string]string{"Accept": "text/html"}, Uncompressed: true, RequestTime: at, ResponseTime: at.Add(time.Second), Body: []byte("<p>hi</p>")}
	b, err := e.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.URL != e.URL || got.Header.Get("ETag") != `"x"` || !bytes.Equal(got.Body, e.Body) || !got.ResponseTime.Equal(e.ResponseTime) ||
		got.Vary["Accept"] != "text/html" || !got.Uncompressed {
		t.Errorf("round trip: got %+v", got)
	}
}

// TestDecodeCorrupt: every flaw of a stored form is ErrCorrupt, never a
// panic or a wrong entry.
func TestDecodeCorrupt(t *testing.T) {
	t.Parallel()
	good, _ := (&Entry{Method: "GET", URL: "https://a.example/", Status: 200, Header: hdr(), Body: []byte("body")}).Encode()
	flip := bytes.Clone(good)
	flip[len(flip)-1] ^= 1
	bad, _ := (&Entry{Method: "GET", URL: "https://a.example/", Status: 9, Header: hdr()}).Encode()
	for name, b := range map[string][]byte{
		"empty":       nil,
		"magic only":  []byte(magic),
		"torn":        good[:len(good)-2],
		"bit flipped": flip,
		"version 2":   append([]byte("RXPC\x02"), good[len(magic):]...),
		"bad status":  bad,
	} {
		if _, err := Decode(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err = %v, want ErrCorrupt", name, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	good, _ := (&Entry{Method: "GET", URL: "https://a.example/", Status: 200, Header: hdr("ETag", `"a"`), Body: []byte("x")}).Encode()
	f.Add(good)
	f.Add([]byte(magic + "\x00\x00\x00\x00\x02{}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := Decode(b)
		if err != nil {
			return
		}
		again, err := e.Encode()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(again); err != nil {
			t.Fatalf("a decoded entry does not decode once encoded again: %v", err)
		}
	})
}

func FuzzParseCacheControl(f *testing.F) {
	for _, s := range []string{"max-age=60", `no-cache="a, b", must-revalidate`, "max-age=abc, no-store", `"`, "max-age=-1", "MAX-AGE=1,max-age=0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d := ParseCacheControl(hdr("Cache-Control", s))
		if d.MaxAge < 0 || d.MaxAge > maxDeltaSeconds || (!d.HasMaxAge && d.MaxAge != 0) {
			t.Fatalf("%q: max-age %d (given %v)", s, d.MaxAge, d.HasMaxAge)
		}
	})
}
