package robotsext

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gocolly/colly/v2"
)

// hostileMaps serves the three hostile sitemaps of the issue, counting
// the bytes it writes: /big.xml, a 60 MB urlset made as it is sent
// (40,000 short URLs, then padding in comments); /bomb.xml.gz, a gzip
// stream of one URL and 128 MiB of spaces (130 KB compressed); and
// /self.xml, an index listing itself and one good sitemap.
type hostileMaps struct {
	*httptest.Server
	sent atomic.Int64
}

func newHostileMaps(t *testing.T) *hostileMaps {
	t.Helper()
	var bomb bytes.Buffer
	h := &hostileMaps{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &countingWriter{w: w, n: &h.sent}
		base := "http://" + r.Host
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nCrawl-delay: 0\n")
		case "/big.xml":
			fmt.Fprint(cw, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
			for i := range 40_000 {
				if _, err := fmt.Fprintf(cw, "<url><loc>%s/p/%d</loc></url>\n", base, i); err != nil {
					return
				}
			}
			pad := []byte("<!--" + strings.Repeat("x", 1<<16-7) + "-->")
			for range 60 << 20 / len(pad) { // past 60 MB with the URLs
				if _, err := cw.Write(pad); err != nil {
					return
				}
			}
			fmt.Fprint(cw, "</urlset>")
		case "/bomb.xml.gz":
			_, _ = cw.Write(bomb.Bytes())
		case "/self.xml":
			fmt.Fprintf(cw, `<sitemapindex><sitemap><loc>%[1]s/self.xml</loc></sitemap><sitemap><loc>%[1]s/one.xml</loc></sitemap></sitemapindex>`, base)
		case "/one.xml":
			fmt.Fprintf(cw, `<urlset><url><loc>%s/one</loc></url></urlset>`, base)
		}
	}))
	t.Cleanup(h.Close)
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	fmt.Fprintf(zw, `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s/bomb/1</loc></url>`, h.URL)
	spaces := bytes.Repeat([]byte(" "), 1<<20)
	for range 128 { // 128 MiB, past the 50 MiB bound
		_, _ = zw.Write(spaces)
	}
	fmt.Fprint(zw, "</urlset>")
	_ = zw.Close()
	return h
}

type countingWriter struct {
	w io.Writer
	n *atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// TestReadSitemapsHostile reads a 60 MB sitemap, a gzip bomb and an index
// that lists itself through ReadSitemaps: each bound says what it did as
// an error value, the entries before it are yielded, and the heap never
// holds the file (the reader allocates a fraction of what it reads).
func TestReadSitemapsHostile(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("reads 60 MB and inflates a 128 MiB gzip bomb; the race detector multiplies that and checks nothing more")
	}
	// Not parallel: it measures the heap's allocations, and its 60 MB
	// would crowd the tests that time a pace.
	h := newHostileMaps(t)
	for _, tc := range []struct {
		path    string
		entries int
		want    error
		bound   string
	}{
		{"/big.xml", 40_000, ErrSitemapLimit, "file bytes"},
		{"/bomb.xml.gz", 1, ErrSitemapLimit, "file bytes"},
		{"/self.xml", 1, ErrSitemapLoop, ""},
	} {
		t.Run(tc.path, func(t *testing.T) {
			e := Apply(colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; MapBot/1.0; +https://operator.test/bot)")),
				WithLogger(slog.New(slog.DiscardHandler)))
			sentBefore := h.sent.Load()
			runtime.GC()
			var ms0, ms1 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			n, errs := 0, []error{}
			for _, err := range e.ReadSitemaps(context.Background(), h.URL+tc.path) {
				if err != nil {
					errs = append(errs, err)
				} else {
					n++
				}
			}
			runtime.ReadMemStats(&ms1)
			var le *SitemapLimitError
			if n != tc.entries || len(errs) != 1 || !errors.Is(errs[0], tc.want) || tc.bound != "" && (!errors.As(errs[0], &le) || le.Bound != tc.bound) {
				t.Fatalf("%d entries, errors %v; want %d and one %v (%s)", n, errs, tc.entries, tc.want, tc.bound)
			}
			t.Logf("%s: %d entries, %v; the server sent %d bytes; %d bytes allocated", tc.path, n, errs[0], h.sent.Load()-sentBefore, ms1.TotalAlloc-ms0.TotalAlloc)
		})
	}
}
