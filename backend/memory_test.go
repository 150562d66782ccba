package backend_test

import (
	"testing"

	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/backend/backendtest"
)

// TestMemoryContract holds Memory, the reference Backend, to the contract
// every Backend must pass, its optional interfaces included.
func TestMemoryContract(t *testing.T) {
	t.Parallel()
	backendtest.Run(t, func(*testing.T) backend.Backend { return backend.NewMemory() })
}

// TestMemoryZeroValue: the zero Memory is ready to use.
func TestMemoryZeroValue(t *testing.T) {
	t.Parallel()
	backendtest.Run(t, func(*testing.T) backend.Backend { return new(backend.Memory) })
}
