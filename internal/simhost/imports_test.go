package simhost

import (
	"testing"

	"github.com/robotsext/robotsext/internal/layout"
)

// module is the path of the module this package belongs to.
const module = "github.com/robotsext/robotsext"

// TestImports keeps the package to its rule (doc.go): it imports the
// standard library only, so that it depends on neither Colly nor the root.
func TestImports(t *testing.T) {
	t.Parallel()
	layout.Check(t, module+"/internal/simhost", layout.Rule{
		Imports: func(_ string, standard bool) bool { return standard },
	})
}
