package sitemap

import (
	"strings"
	"testing"
)

// fuzzRead holds Read to its promises on any input: no panic, no more
// items than the file bound, every item's URL good, at most MaxAlternates
// alternates, and an error for a file cut or broken.
func fuzzRead(t *testing.T, data []byte) {
	lim := Limits{FileURLs: 100, FileBytes: 1 << 16}
	n := 0
	_, err := Read(strings.NewReader(string(data)), "https://ex.com/s.xml", lim, func(it Item) bool {
		n++
		if !goodURL(it.Loc) || len(it.Alternates) > MaxAlternates || it.Sitemap != "https://ex.com/s.xml" {
			t.Fatalf("bad item %+v", it)
		}
		return true
	})
	if n > lim.FileURLs {
		t.Fatalf("%d items past the bound %d (err %v)", n, lim.FileURLs, err)
	}
}

// The seeds of each format are in testdata/fuzz/<target>; a few inline.

func FuzzReadXML(f *testing.F) {
	f.Add([]byte(urlsetXML))
	f.Add([]byte(index("https://ex.com/a.xml")))
	f.Fuzz(fuzzRead)
}

func FuzzReadText(f *testing.F) {
	f.Add([]byte("https://ex.com/1\nhttps://ex.com/2\n"))
	f.Fuzz(fuzzRead)
}

func FuzzReadRSS(f *testing.F) {
	f.Add([]byte(`<rss><channel><item><link>https://ex.com/1</link><pubDate>Fri, 17 May 2024 00:00:00 GMT</pubDate></item></channel></rss>`))
	f.Fuzz(fuzzRead)
}

func FuzzReadAtom(f *testing.F) {
	f.Add([]byte(`<feed xmlns="http://www.w3.org/2005/Atom"><entry><link href="https://ex.com/1"/><updated>2024-05-17T00:00:00Z</updated></entry></feed>`))
	f.Fuzz(fuzzRead)
}

// FuzzParseLastMod: any text gives a time or the zero time, in UTC.
func FuzzParseLastMod(f *testing.F) {
	for _, s := range []string{"2024", "2024-05-17T10:20:30.45+02:00", "Fri, 17 May 2024 10:20:30 GMT"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if tm := ParseLastMod(s); !tm.IsZero() && tm.Location().String() != "UTC" {
			t.Fatalf("%q: %v not in UTC", s, tm)
		}
	})
}
