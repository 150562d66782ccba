package sitemap

import (
	"testing"

	"github.com/robotsext/robotsext/internal/layout"
)

// TestImports holds the sitemap reader to the standard library: HTTP,
// pacing and Colly are the caller's business.
func TestImports(t *testing.T) {
	t.Parallel()
	std := func(_ string, standard bool) bool { return standard }
	layout.Check(t, "github.com/robotsext/robotsext/internal/sitemap", layout.Rule{Imports: std, Deps: std})
}
