package cacheresult_test

import (
	"fmt"

	"github.com/robotsext/robotsext/cacheresult"
)

// Parse reads back the Robotsext-Cache field the page cache sets on each
// response; a value it does not know is None.
func ExampleParse() {
	for _, field := range []string{"hit", "revalidated", "bogus"} {
		r := cacheresult.Parse(field)
		fmt.Println(r, r == cacheresult.Hit)
	}
	// Output:
	// hit true
	// revalidated false
	// none false
}
