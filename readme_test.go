package robotsext

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every Go snippet in the README is a copy of code that compiles: an Example
// function or one of the _examples programs. This test finds each snippet,
// line for line, in one of those files, so the README cannot drift from code
// that the build checks.
func TestReadmeSnippetsCompile(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var sources []string
	for _, pattern := range []string{"example*_test.go", "_examples/*/*.go"} {
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sources = append(sources, normalize(string(b)))
		}
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(readme), -1)
	if len(blocks) == 0 {
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
			t.Errorf("README snippet not found in any example file:\n%s", m[1])
		}
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
