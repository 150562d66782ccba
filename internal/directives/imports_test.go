package directives

import (
	"testing"

	"github.com/robotsext/robotsext/internal/layout"
)

// module is the path of the module this package belongs to.
const module = "github.com/robotsext/robotsext"

// TestImports keeps the package to its rule (doc.go): its own files
// import only the standard library, internal/tdmrep and the public
// types of package directive; nothing it
// depends on, however indirectly, is Colly or the root package.
func TestImports(t *testing.T) {
	t.Parallel()
	layout.Check(t, module+"/internal/directives", layout.Rule{
		Imports: func(path string, standard bool) bool {
			return standard || path == module+"/internal/tdmrep" || path == module+"/internal/mailzone" || path == module+"/directive"
		},
		Deps: layout.NotColly(module),
	})
}
