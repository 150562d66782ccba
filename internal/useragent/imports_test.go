package useragent

import (
	"strings"
	"testing"

	"github.com/robotsext/robotsext/internal/layout"
)

// module is the path of the module this package belongs to.
const module = "github.com/robotsext/robotsext"

// TestImports keeps the package to its rule (doc.go): its own files
// import only the standard library and internal/robotstxt; nothing it
// depends on, however indirectly, is Colly, net/http or the root package.
func TestImports(t *testing.T) {
	t.Parallel()
	notColly := layout.NotColly(module)
	layout.Check(t, module+"/internal/useragent", layout.Rule{
		Imports: func(path string, standard bool) bool {
			return standard && !strings.HasPrefix(path, "net/http") || path == module+"/internal/robotstxt"
		},
		Deps: func(path string, standard bool) bool {
			return notColly(path, standard) && !strings.HasPrefix(path, "net/http")
		},
	})
}
