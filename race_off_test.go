//go:build !race

package robotsext

// raceEnabled reports a -race build (see race_on_test.go).
const raceEnabled = false
