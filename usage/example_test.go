package usage_test

import (
	"fmt"

	"github.com/robotsext/robotsext/usage"
)

// String names a Source as a report shows it.
func ExampleSource_String() {
	for _, s := range []usage.Source{usage.SourceContentUsage, usage.SourceTDMRepFile, usage.SourceXRobotsTag, usage.SourceNone} {
		fmt.Println(s)
	}
	// Output:
	// Content-Usage line
	// tdmrep.json
	// X-Robots-Tag
	// none
}
