package statusclass_test

import (
	"fmt"

	"github.com/robotsext/robotsext/statusclass"
)

// Of sorts a status into its class; a status no standard defines goes to
// the nearest class.
func ExampleOf() {
	for _, status := range []int{200, 304, 429, 503, 99, 700} {
		fmt.Println(status, statusclass.Of(status))
	}
	fmt.Println(statusclass.None)
	// Output:
	// 200 2xx
	// 304 3xx
	// 429 4xx
	// 503 5xx
	// 99 1xx
	// 700 5xx
	// none
}
