package robotsext

import (
	"fmt"
	"net/http"
	"testing"
)

// The parser's tests are internal/directives' own; this benchmark stays
// at the root, beside the page benchmarks whose page it reads.

// BenchmarkReadDirectives is what the OnResponse hook spends reading a
// 16 KiB page (see benchPageHTML) without and with directives.
func BenchmarkReadDirectives(b *testing.B) {
	for _, robots := range []bool{false, true} {
		b.Run(fmt.Sprint("robots=", robots), func(b *testing.B) {
			body := []byte(benchPageHTML(robots))
			h := http.Header{"Content-Type": {"text/html; charset=utf-8"}}
			if robots {
				h.Add("X-Robots-Tag", "benchbot: noimageindex")
			}
			b.ReportAllocs()
			for b.Loop() {
				_ = ReadDirectives("BenchBot", h, body)
			}
		})
	}
}
