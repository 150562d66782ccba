package hops

import (
	"testing"

	"github.com/robotsext/robotsext/internal/layout"
)

// module is the path of the module this package belongs to.
const module = "github.com/robotsext/robotsext"

// TestImports keeps the package to its rule: the standard library only,
// so that nothing it depends on is Colly or the root package.
func TestImports(t *testing.T) {
	t.Parallel()
	layout.Check(t, module+"/internal/hops", layout.Rule{
		Imports: func(path string, standard bool) bool { return standard },
		Deps:    layout.NotColly(module),
	})
}
