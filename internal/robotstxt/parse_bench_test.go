package robotstxt

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// largeUnsorted is a synthetic robots.txt of about size bytes as the
// large files of a crawl are: one "*" group of literal rules listed in no
// order (product and search pages, a few wildcards among them), from a
// fixed seed.
func largeUnsorted(size int) []byte {
	rng := rand.New(rand.NewPCG(49, 3))
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	words := []string{"shop", "item", "search", "catalog", "product", "user", "img", "static", "p", "en", "de", "fr"}
	for i := 0; b.Len() < size; i++ {
		b.WriteString("Disallow: /")
		for range 1 + rng.IntN(3) {
			fmt.Fprintf(&b, "%s%d/", words[rng.IntN(len(words))], rng.IntN(100000))
		}
		if i%50 == 0 {
			b.WriteString("*.json$")
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// BenchmarkParse parses and indexes (with the first check, which builds
// the group's index) a 400 KB robots.txt of unsorted rules, and the
// corpus's files larger than 100 KB when the corpus is there.
func BenchmarkParse(b *testing.B) {
	inputs := map[string][]byte{"synthetic-400KB": largeUnsorted(400 << 10)}
	if files, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "corpus", "robots", "*.txt")); len(files) > 0 {
		for _, f := range files {
			if data, err := os.ReadFile(f); err == nil && len(data) > 100<<10 && len(data) <= maxPolicySize {
				inputs["corpus-"+filepath.Base(f)] = data
			}
		}
	}
	for name, in := range inputs {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			for b.Loop() {
				var p Policy
				p.Parse(in)
				p.Decide(p.Select("foobot"), "/")
			}
		})
	}
}
