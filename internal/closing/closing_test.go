package closing

import (
	"context"
	"errors"
	"testing"
	"time"
)

// blockingSleep is a clock whose sleeps end only with their context.
func blockingSleep(ctx context.Context, _ time.Duration) error {
	<-ctx.Done()
	return ctx.Err()
}

// TestCloseWakes holds Close to its promise for every context a wait may
// run under: the parent bound in New, another context, an uncomparable
// one; a wait after Close ends at once; Close reports the first call.
func TestCloseWakes(t *testing.T) {
	t.Parallel()
	parent := context.Background()
	tests := []struct {
		name string
		ctx  context.Context
	}{
		{"parent", parent},
		{"other", context.WithValue(parent, testKey{}, 1)},
		{"uncomparable", uncomparable{parent, []int{1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := New(parent)
			sleep := c.Sleep(blockingSleep)
			done := make(chan error, 1)
			go func() { done <- sleep(tt.ctx, time.Hour) }()
			if !c.Close() || c.Close() {
				t.Error("Close reported wrong which call closed")
			}
			if err := <-done; !errors.Is(err, context.Canceled) { // a hang here is the failure
				t.Errorf("the wait ended with %v, want context.Canceled", err)
			}
			if err := sleep(tt.ctx, time.Hour); err == nil {
				t.Error("a wait after Close did not end at once")
			}
			if !c.Closed() || tt.ctx.Err() != nil {
				t.Errorf("Closed %v, the wait's own context ended: %v", c.Closed(), tt.ctx.Err())
			}
		})
	}
}

// TestNewUncomparable: a parent Go cannot compare is never compared (it
// panicked) and its waits are bound one by one.
func TestNewUncomparable(t *testing.T) {
	t.Parallel()
	p := uncomparable{context.Background(), []int{1}}
	c := New(p)
	ctx, stop := c.Bind(p)
	defer stop()
	c.Close()
	<-ctx.Done()
}

// TestNil: a nil Closer never closes, and binds nothing.
func TestNil(t *testing.T) {
	t.Parallel()
	var c *Closer
	ctx, stop := c.Bind(context.Background())
	stop()
	if c.Close() || c.Closed() || c.Context() != nil || ctx.Done() != nil {
		t.Error("a nil Closer closed something")
	}
}

// TestBindParentAllocs: a wait under the parent allocates nothing.
func TestBindParentAllocs(t *testing.T) {
	parent := context.Background()
	c := New(parent)
	if n := testing.AllocsPerRun(100, func() { _, stop := c.Bind(parent); stop() }); n != 0 {
		t.Errorf("Bind(parent): %v allocations, want 0", n)
	}
}

// testKey keys the value of another context.
type testKey struct{}

// uncomparable is a context of a type Go cannot compare.
type uncomparable struct {
	context.Context
	_ []int
}
