package pagecache

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestStoringBody: a body is handed over whole only once read to io.EOF;
// one closed early, cut short, failing or over the bound is not, and done
// runs once whatever the caller does.
func TestStoringBody(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		body      string
		max       int64
		read      func(io.Reader)
		wantWhole bool
	}{
		{"read to the end", "hello", 10, func(r io.Reader) { _, _ = io.ReadAll(r) }, true},
		{"closed unread (an abort)", "hello", 10, func(io.Reader) {}, false},
		{"cut short (MaxBodySize)", "hello", 10, func(r io.Reader) { _, _ = io.ReadAll(io.LimitReader(r, 3)) }, false},
		{"over the bound", "hello", 4, func(r io.Reader) { _, _ = io.ReadAll(r) }, false},
		{"empty", "", 4, func(r io.Reader) { _, _ = io.ReadAll(r) }, true},
	} {
		calls, whole, got := 0, false, []byte(nil)
		b := &storingBody{rc: io.NopCloser(strings.NewReader(tt.body)), max: tt.max,
			done: func(body []byte, w bool) { calls++; whole, got = w, body }}
		tt.read(b)
		_ = b.Close()
		_ = b.Close()
		if calls != 1 || whole != tt.wantWhole || (whole && !bytes.Equal(got, []byte(tt.body))) {
			t.Errorf("%s: done called %d times, whole %v, body %q; want once, %v", tt.name, calls, whole, got, tt.wantWhole)
		}
	}
}

// TestFlight: one request of a key is out at a time; the others get its
// flight, landed with whether its entry was kept; only its own flight
// lands it.
func TestFlight(t *testing.T) {
	t.Parallel()
	c := New(Config{Store: &Memory{}})
	wait, own := c.join("k")
	if wait != nil || own == nil {
		t.Fatal("the first request of a key waited")
	}
	wait, mine := c.join("k")
	if wait == nil || mine != nil {
		t.Fatal("a second request of k did not wait")
	}
	if w, _ := c.join("other"); w != nil {
		t.Fatal("a request of another key waited")
	}
	c.land("k", nil, true) // a request without a flight lands nothing
	select {
	case <-wait.ch:
		t.Fatal("a request without the flight landed it")
	default:
	}
	c.land("k", own, true)
	if kept, err := waitFlight(t.Context(), wait); !kept || err != nil {
		t.Fatalf("landing did not release the waiters with kept: %v, %v", kept, err)
	}
	c.land("k", own, false) // a second landing is harmless
	if w, _ := c.join("k"); w != nil {
		t.Error("a landed key still has a request out")
	}
}
