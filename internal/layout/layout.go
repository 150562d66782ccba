// Package layout checks, from an internal package's tests, the rule of the
// repository's layout that Go cannot enforce alone: what the package may
// import itself, and what it may depend on through those imports (never
// Colly, never the root package, which imports it). Each package's
// imports_test.go states its rule, as its doc.go does in words, and calls
// Check. It is for tests only.
package layout

import (
	"go/build"
	"os/exec"
	"strings"
	"testing"
)

// Rule is what one package may import. Imports reports whether the
// package's own files may import path (standard: path is in the standard
// library); Deps whether the package may depend on path through its
// imports, however indirectly (nil: what it may import).
type Rule struct {
	Imports func(path string, standard bool) bool
	Deps    func(path string, standard bool) bool
}

// Check holds the package in the test's working directory, whose import
// path is self, to r: its own imports are read from its files and, where
// the go command is at hand, every package it depends on is listed with
// go list -deps.
func Check(t *testing.T, self string, r Rule) {
	t.Helper()
	deps := r.Deps
	if deps == nil {
		deps = r.Imports
	}
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range pkg.Imports {
		first, _, _ := strings.Cut(path, "/")
		if !r.Imports(path, !strings.Contains(first, ".")) {
			t.Errorf("%s imports %s", self, path)
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
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < 2 {
		t.Fatalf("go list -deps listed %q", out)
	}
	for _, line := range lines {
		path, standard, _ := strings.Cut(line, " ")
		if path != self && !deps(path, standard == "true") {
			t.Errorf("%s depends on %s", self, path)
		}
	}
}

// NotColly reports whether path is neither Colly nor the root package
// (module): what no internal package may depend on.
func NotColly(module string) func(path string, standard bool) bool {
	return func(path string, _ bool) bool {
		return path != module && !strings.HasPrefix(path, "github.com/gocolly/")
	}
}

// PublicTypes reports whether path is one of the module's leaf packages
// of public types (directive, usage, cacheresult, statusclass, sitemap): packages
// that hold values only, import nothing of the module, and are where the
// root's types of those names read in full. Any internal package may use
// them.
func PublicTypes(path string) bool {
	switch path {
	case "github.com/robotsext/robotsext/directive",
		"github.com/robotsext/robotsext/usage",
		"github.com/robotsext/robotsext/cacheresult",
		"github.com/robotsext/robotsext/statusclass",
		"github.com/robotsext/robotsext/sitemap":
		return true
	}
	return false
}
