package robotsext_test

import (
	"errors"
	"fmt"

	"github.com/robotsext/robotsext"
)

// A site that refuses everyone but MyBot. Asked with the whole User-Agent,
// Check answers for the "*" group and says, in TokenErr, that the string
// is not a product token; ProductToken finds the token the Extension would
// use, and that token gets MyBot's own group.
func ExampleProductToken() {
	p := robotsext.ParsePolicy([]byte("User-agent: *\nDisallow: /\n\nUser-agent: MyBot\nAllow: /\n"))
	const ua = "Mozilla/5.0 (compatible; MyBot/1.0; +https://mybot.example/bot)"

	v := p.Check(ua, "/page")
	fmt.Println("whole User-Agent:", v.Allowed, errors.Is(v.TokenErr, robotsext.ErrNotProductToken))

	token, ok := robotsext.ProductToken(ua)
	v = p.Check(token, "/page")
	fmt.Println(token, ok, v.Allowed, v.TokenErr)
	// Output:
	// whole User-Agent: false true
	// MyBot true true <nil>
}

func ExampleValidToken() {
	for _, s := range []string{"MyBot", "*", "MyBot/1.0"} {
		fmt.Printf("%-10s %v\n", s, robotsext.ValidToken(s))
	}
	// Output:
	// MyBot      <nil>
	// *          <nil>
	// MyBot/1.0  robotsext: "MyBot/1.0" is not a robots.txt product token (only "User-agent: *" groups apply to it); the token it names is "MyBot" (see ProductToken)
}
