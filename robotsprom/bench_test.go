package robotsprom

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// BenchmarkScrape measures what a scrape of NewCollector costs, after a
// crawl of the test site, step by step: the Extension.Stats snapshot
// alone; Collect (the snapshot turned into constant metrics); a registry's
// Gather (Collect, then the metrics written out, checked and sorted); and
// the whole /metrics handler in the text format.
func BenchmarkScrape(b *testing.B) {
	site := newSite(b)
	ext, _ := crawl(b, site)
	coll := NewCollector(ext)
	reg := prometheus.NewRegistry()
	reg.MustRegister(coll)

	b.Run("Stats", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = ext.Stats()
		}
	})
	b.Run("Collect", func(b *testing.B) {
		b.ReportAllocs()
		ch := make(chan prometheus.Metric, 128)
		for b.Loop() {
			coll.Collect(ch)
			for len(ch) > 0 {
				<-ch
			}
		}
	})
	b.Run("Gather", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := reg.Gather(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Handler", func(b *testing.B) {
		h := promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		b.ReportAllocs()
		for b.Loop() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != http.StatusOK {
				b.Fatal(w.Code)
			}
			_, _ = io.Copy(io.Discard, w.Body)
		}
	})
}
