//go:build !race

package robotsext

// raceEnabled reports a -race build, in which the allocator gives every
// small string its own block (no tiny allocator), so heap sizes differ.
const raceEnabled = false
