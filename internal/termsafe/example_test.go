package termsafe_test

import (
	"fmt"

	"github.com/robotsext/robotsext/internal/termsafe"
)

func ExampleLine() {
	fmt.Println(termsafe.Line("Disallow: /\x1b[2Jall records purged\u202e"))
	// Output: Disallow: /\x1b[2Jall records purged\u202e
}

func ExampleText() {
	fmt.Print(termsafe.Text("User-agent: *\r\nDisallow: /\x1b]0;title\x07\r\n"))
	// Output:
	// User-agent: *
	// Disallow: /\x1b]0;title\x07
}
