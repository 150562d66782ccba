package robotsext_test

import (
	"fmt"

	"github.com/robotsext/robotsext"
)

func ExampleExtension_ClaimExport() {
	ext := robotsext.Apply(nil)
	type where struct{ name string }
	release, ok := ext.ClaimExport(where{"metrics pipeline A"})
	_, again := ext.ClaimExport(where{"metrics pipeline A"})
	fmt.Println(ok, again)
	release()
	_, afterRelease := ext.ClaimExport(where{"metrics pipeline A"})
	fmt.Println(afterRelease)
	// Output:
	// true false
	// true
}
