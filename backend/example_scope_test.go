package backend_test

import (
	"errors"
	"fmt"

	"github.com/robotsext/robotsext/backend"
)

// A Backend made of parts that fail alone (a backend.Scoper, such as
// redisbackend on a Redis Cluster) names the part a failed call concerns
// with a ScopeError; the Extension then keeps the fallback to the hosts
// that part serves. Any other error concerns the whole backend.
func ExampleScopeOf() {
	refused := errors.New("dial tcp 10.0.0.7:6379: connect: connection refused")
	onNode := fmt.Errorf("queue example.com: %w", &backend.ScopeError{Scope: "10.0.0.7:6379", Err: refused})
	fmt.Printf("%q\n", backend.ScopeOf(onNode))
	fmt.Printf("%q\n", backend.ScopeOf(refused))
	fmt.Println(errors.Is(onNode, refused))
	// Output:
	// "10.0.0.7:6379"
	// ""
	// true
}
