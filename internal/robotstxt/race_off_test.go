//go:build !race

package robotstxt

// raceEnabled reports a -race build, in which the allocator gives every
// small string its own block (no tiny allocator), so heap sizes differ.
const raceEnabled = false
