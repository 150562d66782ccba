package robotsext

// The sitemap reader against what a Colly user writes today: Colly's
// OnXML callbacks parse a response with antchfx/xmlquery into a whole
// document, then select //urlset/url/loc (the hand-written sitemap of
// Colly's docs and of this repository's old _examples/sitemaps). Both read
// the same 50,000-URL urlset (the protocol's largest, 4.6 MB) from memory.
//
//	go test -run '^$' -bench BenchmarkSitemapParse -benchmem -count 6 . | benchstat -col /reader -

import (
	"fmt"
	"strings"
	"testing"

	"github.com/antchfx/xmlquery"
	"github.com/robotsext/robotsext/internal/sitemap"
)

func BenchmarkSitemapParse(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">`)
	for i := range sitemap.MaxFileURLs {
		fmt.Fprintf(&sb, "<url><loc>https://example.com/section/page-%d.html</loc><lastmod>2024-05-17T10:00:00+00:00</lastmod></url>\n", i)
	}
	sb.WriteString("</urlset>")
	doc := sb.String()
	b.Run("reader=robotsext", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for range b.N {
			n := 0
			_, err := sitemap.Read(strings.NewReader(doc), "https://example.com/sitemap.xml", sitemap.Limits{}, func(it sitemap.Item) bool {
				n++
				return true
			})
			if err != nil || n != sitemap.MaxFileURLs {
				b.Fatal(n, err)
			}
		}
	})
	b.Run("reader=xmlquery", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for range b.N {
			root, err := xmlquery.Parse(strings.NewReader(doc))
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for _, loc := range xmlquery.Find(root, "//urlset/url/loc") {
				_ = strings.TrimSpace(loc.InnerText())
				n++
			}
			if n != sitemap.MaxFileURLs {
				b.Fatal(n)
			}
		}
	})
}
