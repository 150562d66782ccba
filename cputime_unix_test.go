//go:build unix

package robotsext

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time (user and system) the process has used.
// Benchmarks report it per operation next to the wall time, because on a
// shared machine the wall time also counts the time spent waiting for a CPU.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
