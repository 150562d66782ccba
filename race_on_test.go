//go:build race

package robotsext

// raceEnabled reports a -race build: the tests that read tens of
// megabytes to show a bound skip it, as the detector multiplies their
// cost and their allocations differ.
const raceEnabled = true
