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
// channel, closed when it lands.
func TestFlight(t *testing.T) {
	t.Parallel()
	c := New(Config{Store: &Memory{}})
	if c.join("k") != nil {
		t.Fatal("the first request of a key waited")
	}
	wait := c.join("k")
	if wait == nil || c.join("other") != nil {
		t.Fatal("a second request of k did not wait, or one of another key did")
	}
	c.land("k")
	select {
	case <-wait:
	default:
		t.Fatal("landing did not release the waiters")
	}
	c.land("k") // a second landing is harmless
	if c.join("k") != nil {
		t.Error("a landed key still has a request out")
	}
}
