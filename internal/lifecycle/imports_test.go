package lifecycle

import (
	"testing"

	"github.com/robotsext/robotsext/internal/layout"
)

// allowedImport reports whether the lifecycle may import path itself (see
// the package comment): the standard library, the backend contract, the
// robots.txt engine, internal/tdmrep (for TDMRep's files), redact,
// internal/closing (the owner's Close ends a fetch's waits) and
// singleflight. Colly and the root package
// are none of them.
func allowedImport(path string, standard bool) bool {
	switch {
	case standard:
		return true
	case path == "github.com/robotsext/robotsext/backend",
		path == "github.com/robotsext/robotsext/internal/robotstxt",
		path == "github.com/robotsext/robotsext/internal/tdmrep",
		path == "github.com/robotsext/robotsext/internal/redact",
		path == "github.com/robotsext/robotsext/internal/closing",
		path == "golang.org/x/sync/singleflight":
		return true
	}
	return false
}

// allowedDependency reports whether the lifecycle may depend on path
// through its imports: what it may import, and what those import in turn
// (backend's internal/pause; the engine's internal/signals, with its
// httpsfv).
func allowedDependency(path string, standard bool) bool {
	return allowedImport(path, standard) ||
		path == "github.com/robotsext/robotsext/internal/pause" ||
		path == "github.com/robotsext/robotsext/internal/signals" ||
		layout.PublicTypes(path) ||
		path == "github.com/dunglas/httpsfv"
}

// TestImports holds the lifecycle to what it may import: its own imports
// are read from its files, and, where the go command is at hand, every
// package it depends on through them is listed.
func TestImports(t *testing.T) {
	t.Parallel()
	layout.Check(t, "github.com/robotsext/robotsext/internal/lifecycle", layout.Rule{Imports: allowedImport, Deps: allowedDependency})
}
