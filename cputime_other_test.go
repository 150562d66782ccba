//go:build !unix

package robotsext

import "time"

// processCPU is not measured on this platform; benchmarks then report 0
// CPU time.
func processCPU() time.Duration { return 0 }
