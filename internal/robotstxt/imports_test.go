package robotstxt

import (
	"strings"
	"testing"

	"github.com/robotsext/robotsext/internal/layout"
)

// allowedImport reports whether the engine may depend on path, directly or
// through its imports (see the package comment): the standard library but
// net/http, internal/signals and what it imports (internal/tdmrep and
// httpsfv). Colly and the root package are none of them.
func allowedImport(path string, standard bool) bool {
	if standard {
		return path != "net/http" && !strings.HasPrefix(path, "net/http/")
	}
	switch {
	case layout.PublicTypes(path): // signals' Source is usage.Source
		return true
	}
	switch path {
	case "github.com/robotsext/robotsext/internal/signals",
		"github.com/robotsext/robotsext/internal/tdmrep",
		"github.com/dunglas/httpsfv":
		return true
	}
	return false
}

// TestImports holds the engine to what it may import: its own imports
// are read from its files, and, where the go command is at hand, every
// package it depends on through them is listed.
func TestImports(t *testing.T) {
	t.Parallel()
	layout.Check(t, "github.com/robotsext/robotsext/internal/robotstxt", layout.Rule{Imports: allowedImport})
}
