package sitemap

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// gz returns s gzipped.
func gz(t testing.TB, s string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := io.WriteString(zw, s); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// readAll reads one file and returns its items.
func readAll(t testing.TB, body string, lim Limits) ([]Item, Result, error) {
	t.Helper()
	var items []Item
	res, err := Read(strings.NewReader(body), "https://ex.com/sitemap.xml", lim, func(it Item) bool {
		items = append(items, it)
		return true
	})
	return items, res, err
}

const urlsetXML = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
  <url>
    <loc> https://ex.com/a?x=1&amp;y=2 </loc>
    <lastmod>2024-05-17</lastmod>
    <changefreq>daily</changefreq>
    <xhtml:link rel="alternate" hreflang="de" href="https://ex.com/de/a"/>
    <xhtml:link rel="alternate" hreflang="x-default" href="https://ex.com/a"/>
    <image:image><image:loc>https://img.ex.com/not-a-page.png</image:loc></image:image>
  </url>
  <url><loc>ftp://ex.com/bad</loc></url>
  <url><lastmod>2024-01-01</lastmod></url>
  <url><loc>https://ex.com/b</loc><lastmod>last tuesday</lastmod></url>
</urlset>`

func TestReadFormats(t *testing.T) {
	t.Parallel()
	may17 := time.Date(2024, 5, 17, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		body    string
		format  string
		locs    []string
		skipped int
		check   func(t *testing.T, items []Item)
	}{
		{name: "urlset", body: urlsetXML, format: "urlset", locs: []string{"https://ex.com/a?x=1&y=2", "https://ex.com/b"}, skipped: 2,
			check: func(t *testing.T, items []Item) {
				a := items[0]
				if !a.LastMod.Equal(may17) || a.LastModText != "2024-05-17" || a.Sitemap != "https://ex.com/sitemap.xml" {
					t.Errorf("entry a = %+v", a)
				}
				if len(a.Alternates) != 2 || a.Alternates[0] != (Alternate{Hreflang: "de", Href: "https://ex.com/de/a"}) {
					t.Errorf("alternates = %+v", a.Alternates)
				}
				if b := items[1]; !b.LastMod.IsZero() || b.LastModText != "last tuesday" {
					t.Errorf("a bad date keeps the entry with a zero LastMod: %+v", b)
				}
			}},
		{name: "urlset gzipped", body: gz(t, urlsetXML), format: "urlset", locs: []string{"https://ex.com/a?x=1&y=2", "https://ex.com/b"}, skipped: 2},
		{name: "index", format: "sitemapindex", locs: []string{"https://ex.com/s1.xml.gz", "https://ex.com/s2.xml"},
			body: `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>https://ex.com/s1.xml.gz</loc><lastmod>2024-05-17T00:00:00Z</lastmod></sitemap><sitemap><loc>https://ex.com/s2.xml</loc></sitemap></sitemapindex>`,
			check: func(t *testing.T, items []Item) {
				if !items[0].Child || !items[0].LastMod.Equal(may17) {
					t.Errorf("index entry = %+v", items[0])
				}
			}},
		{name: "text", format: "text", locs: []string{"https://ex.com/1", "http://ex.com/2"}, skipped: 2,
			body: "\ufeffhttps://ex.com/1\r\n\n  http://ex.com/2  \nnot a url\n" + "https://ex.com/" + strings.Repeat("x", 3000) + "\n"},
		{name: "text gzipped", body: gz(t, "https://ex.com/1\nhttps://ex.com/2"), format: "text", locs: []string{"https://ex.com/1", "https://ex.com/2"}},
		{name: "rss", format: "rss", locs: []string{"https://ex.com/post1", "https://ex.com/post2"},
			body: `<?xml version="1.0"?><rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>t</title><link>https://ex.com/</link>
<atom:link href="https://ex.com/feed" rel="self"/>
<item><title>1</title><link>https://ex.com/post1</link><pubDate>Fri, 17 May 2024 00:00:00 GMT</pubDate></item>
<item><link>https://ex.com/post2</link><atom:link href="https://ex.com/other"/></item></channel></rss>`,
			check: func(t *testing.T, items []Item) {
				if !items[0].LastMod.Equal(may17) {
					t.Errorf("pubDate: %+v", items[0])
				}
			}},
		{name: "atom", format: "atom", locs: []string{"https://ex.com/e1", "https://ex.com/e2"},
			body: `<feed xmlns="http://www.w3.org/2005/Atom"><link href="https://ex.com/"/>
<entry><link rel="edit" href="https://ex.com/edit"/><link href="https://ex.com/e1"/><published>2020-01-01T00:00:00Z</published><updated>2024-05-17T00:00:00Z</updated></entry>
<entry><link rel="alternate" href="https://ex.com/e2"/><published>2024-05-17T00:00:00Z</published></entry></feed>`,
			check: func(t *testing.T, items []Item) {
				if !items[0].LastMod.Equal(may17) || !items[1].LastMod.Equal(may17) {
					t.Errorf("updated, else published: %+v", items)
				}
			}},
		{name: "alternates past the bound and with a bad href", format: "urlset", locs: []string{"https://ex.com/a"}, skipped: 2,
			body: `<urlset xmlns:xhtml="http://www.w3.org/1999/xhtml"><url><loc>https://ex.com/a</loc>` +
				strings.Repeat(`<xhtml:link rel="alternate" hreflang="de" href="https://ex.com/de"/>`, MaxAlternates+1) +
				`<xhtml:link rel="alternate" hreflang="fr" href="javascript:x"/></url></urlset>`,
			check: func(t *testing.T, items []Item) {
				if len(items[0].Alternates) != MaxAlternates {
					t.Errorf("%d alternates kept, want %d", len(items[0].Alternates), MaxAlternates)
				}
			}},
		{name: "latin-1", format: "urlset", locs: []string{"https://ex.com/caf\u00e9"},
			body: "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><urlset><url><loc>https://ex.com/caf\xe9</loc></url></urlset>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			items, res, err := readAll(t, tc.body, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			var locs []string
			for _, it := range items {
				locs = append(locs, it.Loc)
			}
			if strings.Join(locs, " ") != strings.Join(tc.locs, " ") || res.Format != tc.format || res.Skipped != tc.skipped {
				t.Fatalf("got %q, %+v; want %q, format %s, %d skipped", locs, res, tc.locs, tc.format, tc.skipped)
			}
			if tc.check != nil {
				tc.check(t, items)
			}
		})
	}
}

func TestReadBadFiles(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		body  string
		lim   Limits
		want  error
		items int
	}{
		{"html page", "<html><body>not found</body></html>", Limits{}, ErrMalformed, 0},
		{"empty", "", Limits{}, nil, 0},
		{"broken after one entry", `<urlset><url><loc>https://ex.com/1</loc></url><url><loc>https://ex.com/2</loc></url><url><loc x="></urlset>`, Limits{}, ErrMalformed, 2},
		{"bad gzip", "\x1f\x8bnot gzip at all", Limits{}, ErrMalformed, 0},
		{"gzip cut short", gz(t, urlsetXML)[:60], Limits{}, io.ErrUnexpectedEOF, 0},
		{"unknown encoding", `<?xml version="1.0" encoding="EBCDIC"?><urlset/>`, Limits{}, ErrMalformed, 0},
		{"too many URLs", strings.Repeat("https://ex.com/p\n", 5), Limits{FileURLs: 3}, ErrLimit, 3},
		{"too many bytes", strings.Repeat("https://ex.com/p\n", 100), Limits{FileBytes: 170}, ErrLimit, 10},
		{"exactly the bound", strings.Repeat("https://ex.com/p\n", 10), Limits{FileBytes: 170}, nil, 10},
		{"UTF-8 misspelled UTF8", `<?xml version="1.0" encoding="UTF8"?><urlset><url><loc>https://ex.com/1</loc></url></urlset>`, Limits{}, nil, 1},
		{"UTF-8 misspelled utf_8", `<?xml version="1.0" encoding="utf_8"?><urlset><url><loc>https://ex.com/1</loc></url></urlset>`, Limits{}, nil, 1},
		{"plain text", "Service temporarily unavailable.\nPlease try again later.\n", Limits{}, ErrMalformed, 0},
		{"JSON", `{"urls": ["https://ex.com/1"]}`, Limits{}, ErrMalformed, 0},
		{"robots.txt", "User-agent: *\nDisallow: /private\nSitemap: https://ex.com/s.xml\n", Limits{}, ErrMalformed, 0},
		{"gzip of gzip", gz(t, gz(t, urlsetXML)), Limits{}, ErrMalformed, 0},
		{"text with comments and one bad line", "# pages\nnot a url\nhttps://ex.com/1\n", Limits{}, nil, 1},
		{"comments only", "# nothing yet\n", Limits{}, nil, 0},
		{"markup of every kind, with '>' inside", `<urlset><url><loc>https://ex.com/1</loc></url><!-- a > b - > c --><![CDATA[x>]]><?pi a ? > b?>` +
			`<url a="x>" b='>'><loc>https://ex.com/2</loc></url></urlset>`, Limits{}, nil, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			items, _, err := readAll(t, tc.body, tc.lim)
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) || len(items) != tc.items {
				t.Fatalf("err %v (want %v), %d items (want %d)", err, tc.want, len(items), tc.items)
			}
		})
	}
}

// TestReadGzipBomb: a gzip stream that inflates far past the file bound
// is cut there and says so, having allocated a small part of what it
// inflated: the white space a bomb is made of never reaches the decoder's
// buffer (squeeze). Not parallel: it measures the heap's allocations.
func TestReadGzipBomb(t *testing.T) {
	if raceEnabled {
		t.Skip("inflates 400 MiB to measure allocations; the race detector multiplies the cost and changes the allocations")
	}
	for _, pad := range []string{" ", "x"} { // white space between entries; text inside one
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		_, _ = io.WriteString(zw, "<urlset><url><loc>https://ex.com/p</loc></url><url><lastmod>")
		run := bytes.Repeat([]byte(pad), 1<<20)
		for range 200 { // 200 MiB after one URL
			_, _ = zw.Write(run)
		}
		_ = zw.Close()
		items, alloc, err := allocated(t, b.String())
		var le *LimitError
		if !errors.As(err, &le) || le.Bound != "file bytes" || len(items) != 1 {
			t.Fatalf("pad %q, compressed %d bytes: err %v, %d items; want the file bytes bound and the one URL", pad, b.Len(), err, len(items))
		}
		if alloc > 4<<20 {
			t.Errorf("pad %q: %d bytes allocated to read %d", pad, alloc, MaxFileBytes)
		}
	}
}

// allocated reads body with the default Limits and returns its items,
// the bytes the heap allocated meanwhile and its error.
func allocated(t *testing.T, body string) ([]Item, uint64, error) {
	t.Helper()
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	items, _, err := readAll(t, body, Limits{})
	runtime.ReadMemStats(&m1)
	return items, m1.TotalAlloc - m0.TotalAlloc, err
}

// TestReadStops: the read ends when fn returns false.
func TestReadStops(t *testing.T) {
	t.Parallel()
	n := 0
	_, err := Read(strings.NewReader(urlsetXML), "u", Limits{}, func(Item) bool { n++; return false })
	if err != nil || n != 1 {
		t.Fatalf("err %v after %d items", err, n)
	}
}

// TestReadLongToken: a file of one valid URL, then one token of markup
// that never ends (an attribute, a comment, a CDATA section, an element
// name, a processing instruction, a directive) is cut at the token bound
// and says so, having allocated a few MB: the decoder, which buffers a
// token whole, held up to the 50 MiB file bound of it (98 MB) before
// squeeze followed the markup. Elements nested without end are cut at
// maxDepth. Not parallel: it measures the heap's allocations.
func TestReadLongToken(t *testing.T) {
	if raceEnabled {
		t.Skip("inflates 64 MiB per shape to measure allocations; the race detector multiplies the cost and changes the allocations")
	}
	const first = "<urlset><url><loc>https://ex.com/p</loc></url>"
	for _, tc := range []struct {
		name, head, run string
		want            error
	}{
		{"attribute", `<url a="`, "a", ErrLimit},
		{"comment", "<!--", "a", ErrLimit},
		{"CDATA", "<url><loc><![CDATA[", "a", ErrLimit},
		{"element name", "<", "a", ErrLimit},
		{"processing instruction", "<?pi ", "a", ErrLimit},
		{"directive", "<!DOCTYPE x ", "a", ErrLimit},
		{"attribute of white space", `<url a="`, " ", ErrLimit},
		{"nesting", "", "<a>", ErrMalformed},
	} {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
		_, _ = io.WriteString(zw, first+tc.head)
		run := bytes.Repeat([]byte(tc.run), 1<<20)
		for range 64 { // 64 MiB, past the file bound
			_, _ = zw.Write(run)
		}
		_ = zw.Close()
		items, alloc, err := allocated(t, b.String())
		var le *LimitError
		if !errors.Is(err, tc.want) || len(items) != 1 || tc.want == ErrLimit && (!errors.As(err, &le) || le.Bound != "token bytes") {
			t.Errorf("%s: err %v, %d items; want %v and the one URL", tc.name, err, len(items), tc.want)
		}
		if alloc > 4<<20 {
			t.Errorf("%s: %d bytes allocated", tc.name, alloc)
		}
	}
}

// TestReadAlternates: an alternate without a hreflang (or with an empty
// one) names no language version: it is dropped and counted, the entry
// kept.
func TestReadAlternates(t *testing.T) {
	t.Parallel()
	body := `<urlset xmlns:xhtml="http://www.w3.org/1999/xhtml"><url><loc>https://ex.com/a</loc>` +
		`<xhtml:link rel="alternate" href="https://ex.com/x"/>` +
		`<xhtml:link rel="alternate" hreflang=" " href="https://ex.com/y"/>` +
		`<xhtml:link rel="alternate" hreflang="fr" href="https://ex.com/fr/a"/></url></urlset>`
	items, res, err := readAll(t, body, Limits{})
	if err != nil || len(items) != 1 || res.Skipped != 2 {
		t.Fatalf("err %v, %d items, %d skipped; want 1 item, 2 skipped", err, len(items), res.Skipped)
	}
	if want := []Alternate{{Hreflang: "fr", Href: "https://ex.com/fr/a"}}; !slices.Equal(items[0].Alternates, want) {
		t.Errorf("alternates %+v, want %+v", items[0].Alternates, want)
	}
}

// TestReadYieldsAsBytesCome: an entry is passed on as soon as its bytes
// have come, while the server still trickles the rest (here: nothing
// more until the entry is seen). The 10 s bound only guards against a
// hang.
func TestReadYieldsAsBytesCome(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe()
	got := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		_, err := Read(pr, "u", Limits{}, func(it Item) bool { got <- it.Loc; return true })
		done <- err
	}()
	go func() { _, _ = io.WriteString(pw, "<urlset><url><loc>https://ex.com/a</loc></url>  ") }()
	select {
	case loc := <-got:
		if loc != "https://ex.com/a" {
			t.Errorf("got %q", loc)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the entry was held back while the body was still open")
	}
	_ = pw.CloseWithError(io.ErrUnexpectedEOF)
	if err := <-done; !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a body cut short: %v", err)
	}
}
