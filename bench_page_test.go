package robotsext

// The page-directive benchmark: what reading X-Robots-Tag and meta robots
// costs a Colly crawl per page, for a page without directives and one with
// them. The file uses no API of the page-directive work, so that the same
// benchmark runs on a tree without it (the figure to compare against):
//
//	go test -run '^$' -bench BenchmarkPageDirectives -benchtime 3000x -count 8 .
//
// cpu-ns/page is the process's CPU time per page (see BenchmarkCrawl).

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gocolly/colly/v2"
)

// benchPageHTML is a 16 KiB page with a realistic head: a charset, a
// viewport, a description, Open Graph tags, a stylesheet, a script; with
// robots, a meta robots tag as well.
func benchPageHTML(robots bool) string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">` +
		`<meta name="viewport" content="width=device-width, initial-scale=1">` +
		`<title>A product page</title><meta name="description" content="A product of the demo shop, described at length.">` +
		`<meta property="og:title" content="A product"><meta property="og:type" content="product">` +
		`<meta property="og:image" content="https://shop.example/img/p.jpg"><link rel="stylesheet" href="/s.css">` +
		`<script>window.dataLayer = window.dataLayer || []; function gtag(){dataLayer.push(arguments);}</script>`)
	if robots {
		b.WriteString(`<meta name="robots" content="noindex, noarchive, max-snippet:50">`)
	}
	b.WriteString(`</head><body><div class="main">`)
	for b.Len() < 16<<10 {
		b.WriteString(`<p>Lorem ipsum dolor sit amet, <a href="/item">consectetur</a> adipiscing elit.</p>`)
	}
	b.WriteString(`</div></body></html>`)
	return b.String()
}

// BenchmarkPageDirectives fetches one page over and over through a
// synchronous collector with an OnHTML callback, with and without page
// directives.
func BenchmarkPageDirectives(b *testing.B) {
	for _, robots := range []bool{false, true} {
		name := "without"
		if robots {
			name = "with"
		}
		b.Run(name, func(b *testing.B) {
			page := benchPageHTML(robots)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					http.NotFound(w, r)
					return
				}
				if robots {
					w.Header().Add("X-Robots-Tag", "benchbot: noimageindex")
				}
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				fmt.Fprint(w, page)
			}))
			defer srv.Close()
			c := colly.NewCollector(colly.AllowURLRevisit(), colly.UserAgent("BenchBot/1.0"))
			Apply(c, quiet())
			titles := 0
			c.OnHTML("title", func(*colly.HTMLElement) { titles++ })
			if err := c.Visit(srv.URL + "/warm"); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu0 := processCPU()
			b.ResetTimer()
			for i := range b.N {
				if err := c.Visit(fmt.Sprintf("%s/p/%d", srv.URL, i)); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/page")
			if titles != b.N+1 {
				b.Fatalf("%d pages parsed, want %d", titles, b.N+1)
			}
		})
	}
}
