package robotsext_test

import (
	"fmt"

	"github.com/robotsext/robotsext"
)

// A metrics or logging integration names each Reason by its Label, which
// stays stable when String's prose is reworded, and uses CanAllow and
// CanBlock to know which counters a reason can ever reach. robotsprom and
// robotsotel are built this way.
func ExampleReasons() {
	for _, r := range robotsext.Reasons() {
		if r.CanBlock() {
			fmt.Printf("%-15s can block: %s\n", r.Label(), r)
		}
	}
	// Output:
	// disallow_rule   can block: disallowed by rule
	// unreachable     can block: robots.txt unreachable
	// unauthorized    can block: robots.txt answered 401/403: disallow all
	// local_error     can block: robots.txt not fetched (local error): request dropped
	// usage           can block: usage preferences refuse every declared purpose
	// backoff         can block: host paused (it asked for less): request refused
	// nofollow        can block: link of a nofollow page
	// rel_nofollow    can block: link marked rel="nofollow"
	// identity        can block: the crawler's identity is not usable: request refused
	// closed          can block: the Extension is closed: request refused
}
