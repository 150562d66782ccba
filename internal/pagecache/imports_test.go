package pagecache

import (
	"testing"

	"github.com/robotsext/robotsext/internal/layout"
)

// TestImports holds the page cache to the standard library and the
// public type of its Result (package cacheresult) (Colly and the
// root package are the glue's business, not the machinery's): its tests
// alone use internal/mockhttp and httpmock, which layout does not read.
func TestImports(t *testing.T) {
	t.Parallel()
	std := func(path string, standard bool) bool { return standard || layout.PublicTypes(path) }
	layout.Check(t, "github.com/robotsext/robotsext/internal/pagecache", layout.Rule{Imports: std, Deps: std})
}
