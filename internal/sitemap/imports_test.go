package sitemap

import (
	"strings"
	"testing"

	"github.com/robotsext/robotsext/internal/layout"
)

// TestImports holds the sitemap reader to the standard library and the
// internal packages its fetch paces and caches with: Colly and the root
// are the glue's business.
func TestImports(t *testing.T) {
	t.Parallel()
	ok := func(p string, standard bool) bool {
		return standard || layout.PublicTypes(p) || strings.HasPrefix(p, "github.com/robotsext/robotsext/internal/")
	}
	noColly := func(p string, _ bool) bool {
		return !strings.Contains(p, "gocolly") && p != "github.com/robotsext/robotsext"
	}
	layout.Check(t, "github.com/robotsext/robotsext/internal/sitemap", layout.Rule{Imports: ok, Deps: noColly})
}
