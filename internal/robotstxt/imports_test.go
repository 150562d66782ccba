package robotstxt

import (
	"go/build"
	"os/exec"
	"strings"
	"testing"
)

// allowedImport reports whether the engine may depend on path, directly or
// through its imports (see the package comment): the standard library but
// net/http, internal/signals and what it imports (internal/tdmrep and
// httpsfv). Colly and the root package are none of them.
func allowedImport(path string, standard bool) bool {
	if standard {
		return path != "net/http" && !strings.HasPrefix(path, "net/http/")
	}
	switch path {
	case "github.com/robotsext/robotsext/internal/signals",
		"github.com/robotsext/robotsext/internal/tdmrep",
		"github.com/dunglas/httpsfv":
		return true
	}
	return false
}

// TestImports holds the engine to what it may import: its own imports are
// read from its files, and, where the go command is at hand, every package
// it depends on through them is listed.
func TestImports(t *testing.T) {
	t.Parallel()
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range pkg.Imports {
		first, _, _ := strings.Cut(path, "/")
		if !allowedImport(path, !strings.Contains(first, ".")) {
			t.Errorf("the engine imports %s", path)
		}
	}
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	out, err := exec.Command(gocmd, "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	self := "github.com/robotsext/robotsext/internal/robotstxt"
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, standard, _ := strings.Cut(line, " ")
		if path != self && !allowedImport(path, standard == "true") {
			t.Errorf("the engine depends on %s", path)
		}
	}
}
