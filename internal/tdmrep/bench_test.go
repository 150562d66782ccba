package tdmrep

import (
	"strconv"
	"strings"
	"testing"
)

// benchFile is a file of the kind sites publish: a few directories, a
// file type, a policy, and a catch-all last.
const benchFile = `[
  {"location": "/archive/", "tdm-reservation": 1},
  {"location": "/shop/pages/", "tdm-reservation": 1, "tdm-policy": "https://publisher.example/tdm/offer.json"},
  {"location": "/shop/pictures/*.png", "tdm-reservation": 0},
  {"location": "/*/private/*.pdf$", "tdm-reservation": 1},
  {"location": "/", "tdm-reservation": 0}
]`

var benchPaths = []string{
	"/archive/2019/annual.pdf",
	"/shop/pictures/cat.png?w=200",
	"/blog/2024/05/some-long-article-title-with-words.html",
	"/team/private/report.pdf",
}

// Lookup allocates nothing, matching or not.
func TestLookupAllocs(t *testing.T) {
	f := mustParse(t, benchFile)
	for _, p := range append(benchPaths, "") {
		if n := testing.AllocsPerRun(100, func() { f.Lookup(p) }); n != 0 {
			t.Errorf("Lookup(%q): %v allocations", p, n)
		}
	}
}

func BenchmarkLookup(b *testing.B) {
	f, err := Parse([]byte(benchFile))
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range benchPaths {
		b.Run(strings.Trim(strings.SplitN(p, "/", 3)[1], "/"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				f.Lookup(p)
			}
		})
	}
	// The worst a file can hold: MaxRules wildcard rules, none matching.
	var sb strings.Builder
	sb.WriteString("[")
	for i := range MaxRules {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`{"location":"/d` + strconv.Itoa(i) + `/*.x$","tdm-reservation":1}`)
	}
	sb.WriteString("]")
	big, err := Parse([]byte(sb.String()))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("max-rules-miss", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			big.Lookup("/blog/2024/05/some-long-article-title-with-words.html")
		}
	})
}

func BenchmarkParse(b *testing.B) {
	body := []byte(benchFile)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := Parse(body); err != nil {
			b.Fatal(err)
		}
	}
}
