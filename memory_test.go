package robotsext_test

import (
	"testing"

	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/backendtest"
)

// TestMemoryBackendContract holds MemoryBackend, the reference Backend, to
// the contract every Backend must pass.
func TestMemoryBackendContract(t *testing.T) {
	t.Parallel()
	backendtest.Run(t, func(*testing.T) robotsext.Backend { return robotsext.NewMemoryBackend() })
}

// TestMemoryBackendZeroValue: the zero MemoryBackend is ready to use.
func TestMemoryBackendZeroValue(t *testing.T) {
	t.Parallel()
	backendtest.Run(t, func(*testing.T) robotsext.Backend { return new(robotsext.MemoryBackend) })
}
