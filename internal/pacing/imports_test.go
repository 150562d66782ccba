package pacing

import (
	"slices"
	"testing"

	"github.com/robotsext/robotsext/internal/layout"
)

// module is the path of the module this package belongs to.
const module = "github.com/robotsext/robotsext"

// TestImports keeps the package to its rule (doc.go): its own files
// import only the standard library, the backend contract and the
// internal packages pause and redact; nothing it depends on, however
// indirectly, is Colly or the root package.
func TestImports(t *testing.T) {
	t.Parallel()
	allowed := []string{module + "/backend", module + "/internal/pause", module + "/internal/redact"}
	layout.Check(t, module+"/internal/pacing", layout.Rule{
		Imports: func(path string, standard bool) bool { return standard || slices.Contains(allowed, path) },
		Deps:    layout.NotColly(module),
	})
}
