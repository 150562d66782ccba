package tally

import (
	"testing"

	"github.com/robotsext/robotsext/internal/layout"
)

// module is the path of the module this package belongs to.
const module = "github.com/robotsext/robotsext"

// TestImports keeps the package to its rule (doc.go): it imports the
// standard library and the public type it counts by (statusclass) only,
// and so depends on nothing else.
func TestImports(t *testing.T) {
	t.Parallel()
	layout.Check(t, module+"/internal/tally", layout.Rule{
		Imports: func(path string, standard bool) bool { return standard || layout.PublicTypes(path) },
	})
}
