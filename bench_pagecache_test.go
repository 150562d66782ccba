package robotsext

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/pagecache"
)

// BenchmarkPageCacheHit visits one fresh page again and again through
// Colly (sync, AllowURLRevisit, a memory store): the OnRequest hook claims
// it, the wire hook and the cache's transport serve it, and nothing is
// sent. It is the cost of a hit, Colly's own included.
func BenchmarkPageCacheHit(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 1\n")
			return
		}
		w.Header().Set("Cache-Control", "max-age=3600")
		w.Header().Set("Vary", "Accept-Language")
		fmt.Fprint(w, "<html><body>a page</body></html>")
	}))
	defer srv.Close()
	c := colly.NewCollector(colly.UserAgent("BenchBot/1.0 (+https://example.com/bot)"))
	c.AllowURLRevisit = true
	ext := Apply(c, WithPageStore(&pagecache.Memory{}), WithLogger(slog.New(slog.DiscardHandler)))
	u := srv.URL + "/page"
	_ = c.Visit(u) // robots.txt and the page, stored
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_ = c.Visit(u)
	}
	b.StopTimer()
	if h := ext.Stats().PageCache.Hits; h < uint64(b.N) {
		b.Fatalf("%d hits for %d visits", h, b.N)
	}
}
