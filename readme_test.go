package robotsext

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every Go snippet in the README and docs/ is a copy of code that
// compiles: an Example function (of this module or a nested one) or one of
// the _examples programs. This test finds each snippet, line for line, in
// one of those files, so the documentation cannot drift from code that the
// build checks.
func TestReadmeSnippetsCompile(t *testing.T) {
	t.Parallel()
	var sources []string
	for _, pattern := range []string{"example*_test.go", "*/example*_test.go", "_examples/*/*.go"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sources = append(sources, normalize(string(b)))
		}
	}
	docs, _ := filepath.Glob("docs/*.md")
	for _, name := range append([]string{"README.md"}, docs...) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			md, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(md), -1)
			if name == "README.md" && len(blocks) == 0 {
				t.Fatal("no Go snippets found in README.md")
			}
			for _, m := range blocks {
				snippet := normalize(m[1])
				found := false
				for _, src := range sources {
					if strings.Contains(src, snippet) {
						found = true
						break
					}
				}
				if !found {
					t.Errorf("%s: Go snippet not found in any example file:\n%s", name, m[1])
				}
			}
		})
	}
}

// normalize trims each line and drops blank lines.
func normalize(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	return "\n" + strings.Join(out, "\n") + "\n"
}
