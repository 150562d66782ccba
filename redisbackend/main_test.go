package redisbackend

import (
	"os"
	"testing"
)

// TestMain runs the test binary as a crawler worker when the
// multi-process tests start it so (see runWorker), and as the tests
// otherwise.
func TestMain(m *testing.M) {
	if os.Getenv(envWorker) != "" {
		os.Exit(runWorker())
	}
	os.Exit(m.Run())
}
