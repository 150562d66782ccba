package pacing

import (
	"go/build"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is the path of the module this package belongs to.
const module = "github.com/robotsext/robotsext"

// TestImports keeps the package to its rule (doc.go): its own files
// import only the standard library, the backend contract and the
// internal packages pause and redact; nothing it depends on, however
// indirectly, is Colly or the root package.
func TestImports(t *testing.T) {
	t.Parallel()
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	allowed := []string{module + "/backend", module + "/internal/pause", module + "/internal/redact"}
	for _, p := range pkg.Imports {
		std := !strings.Contains(strings.SplitN(p, "/", 2)[0], ".")
		if !std && !slices.Contains(allowed, p) {
			t.Errorf("internal/pacing imports %s; it may import only the standard library and %v", p, allowed)
		}
	}

	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to list the dependencies with")
	}
	out, err := exec.Command(goTool, "list", "-deps", "-f", "{{.ImportPath}}", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list -deps listed nothing")
	}
	for _, d := range deps {
		if d == module || strings.Contains(d, "gocolly") {
			t.Errorf("internal/pacing depends on %s", d)
		}
	}
}
