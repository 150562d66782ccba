package lifecycle

import (
	"bytes"
	"strings"
	"testing"
)

// TestReadBodySize proves that the declared length only sizes the
// buffer: whatever it says, readBody returns the body (cut at the limit's
// line) as it does without one.
func TestReadBodySize(t *testing.T) {
	t.Parallel()
	const limit = 64
	short := "User-agent: *\nDisallow: /a\n"
	long := strings.Repeat("Disallow: /x\n", 10) // 130 bytes: four whole lines within 64
	for _, tc := range []struct {
		name, body    string
		size          int64
		want          string
		wantTruncated bool
	}{
		{"unknown", short, -1, short, false},
		{"exact", short, int64(len(short)), short, false},
		{"zero", "", 0, "", false},
		{"says less", short, 3, short, false},
		{"says more", short, 1 << 40, short, false},
		{"long unknown", long, -1, long[:52], true},
		{"long exact", long, int64(len(long)), long[:52], true},
		{"long says less", long, 10, long[:52], true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, truncated, err := readBody(strings.NewReader(tc.body), limit, tc.size)
			if err != nil || truncated != tc.wantTruncated || string(b) != tc.want {
				t.Errorf("readBody(%q, %d, %d) = %q, %v, %v; want %q, %v", tc.body, limit, tc.size, b, truncated, err, tc.want, tc.wantTruncated)
			}
		})
	}
}

// TestReadBodyOneAllocation proves that a body of the declared length is
// read into one allocation (a 400 KB robots.txt once took a dozen).
func TestReadBodyOneAllocation(t *testing.T) {
	body := bytes.Repeat([]byte("Disallow: /private/\n"), 20000) // 400 KB
	allocs := testing.AllocsPerRun(10, func() {
		if _, _, err := readBody(bytes.NewReader(body), 500<<10, int64(len(body))); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 2 { // the buffer, and the LimitReader if it escapes
		t.Errorf("%v allocations reading a %d-byte body of known length, want at most 2", allocs, len(body))
	}
}

// BenchmarkReadBody reads a 400 KB robots.txt with its length declared
// and without.
func BenchmarkReadBody(b *testing.B) {
	body := bytes.Repeat([]byte("Disallow: /private/\n"), 20000)
	for _, tc := range []struct {
		name string
		size int64
	}{{"known", int64(len(body))}, {"unknown", -1}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				_, _, _ = readBody(bytes.NewReader(body), 500<<10, tc.size)
			}
		})
	}
}
