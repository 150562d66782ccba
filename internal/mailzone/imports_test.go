package mailzone

import (
	"testing"

	"github.com/robotsext/robotsext/internal/layout"
)

// TestImports keeps the package to the standard library.
func TestImports(t *testing.T) {
	t.Parallel()
	layout.Check(t, "github.com/robotsext/robotsext/internal/mailzone", layout.Rule{
		Imports: func(_ string, standard bool) bool { return standard },
	})
}
