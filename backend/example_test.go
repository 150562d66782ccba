package backend_test

import (
	"context"
	"fmt"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// Memory's Reserve books request starts per host; each booking starts at
// least the delay after the previous one.
func ExampleNewMemory() {
	b := backend.NewMemory()
	ctx := context.Background()
	w1, _ := b.Reserve(ctx, "example.com", time.Second)
	w2, _ := b.Reserve(ctx, "example.com", time.Second)
	w3, _ := b.Reserve(ctx, "other.example", time.Second)
	fmt.Println(w1 == 0, w2 > 900*time.Millisecond, w3 == 0)
	// Output: true true true
}

// Start grants a host's next start once the delay has passed since the
// latest one; the token granted the latest start confirms it with its token
// right before its request goes on the wire.
func ExampleMemory_Start() {
	b := backend.NewMemory()
	ctx := context.Background()
	w1, _, _ := b.Start(ctx, "example.com", "worker-a/1", time.Second)
	w2, _, _ := b.Start(ctx, "example.com", "worker-b/1", time.Second)
	w3, _, _ := b.Start(ctx, "example.com", "worker-a/1", time.Second)
	fmt.Println(w1 == 0, w2 > 900*time.Millisecond, w3 == 0)
	// Output: true true true
}

// Claim lets one request of the fleet claim a host from the wire to its
// answer: another worker waits while the claim is in force, and once it is
// unclaimed, the delay counts from the Unclaim.
func ExampleMemory_Claim() {
	b := backend.NewMemory()
	ctx := context.Background()
	w1, _, _ := b.Claim(ctx, "example.com", "worker-a/1", time.Second, 5*time.Second)
	w2, _, _ := b.Claim(ctx, "example.com", "worker-b/1", time.Second, 5*time.Second)
	_ = b.Unclaim(ctx, "example.com", "worker-a/1") // its response headers came
	w3, _, _ := b.Claim(ctx, "example.com", "worker-b/1", time.Second, 5*time.Second)
	fmt.Println(w1 == 0, w2 > 0, w3 > 900*time.Millisecond)
	// Output: true true true
}

// Forget drops an origin's record for the fleet; every worker learns of
// it from Purges with the cursor it kept.
func ExampleMemory_Forget() {
	b := backend.NewMemory()
	ctx := context.Background()
	_, cursor, _, _ := b.Purges(ctx, "")
	_ = b.Forget(ctx, "https://example.com")
	origins, _, all, _ := b.Purges(ctx, cursor)
	fmt.Println(origins, all)
	// Output: [https://example.com] false
}
