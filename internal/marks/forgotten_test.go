package marks

import (
	"sync"
	"testing"
)

// TestForgottenBound: at most Max marks are kept; the oldest are
// remembered first; Has alone keeps a mark; Remember drops it; an empty
// set allocates nothing.
func TestForgottenBound(t *testing.T) {
	var f Forgotten
	for id := range uint64(Max + 10) {
		f.Forget(id)
	}
	if n := f.Len(); n > Max || n < Max/2 {
		t.Errorf("%d marks held, want at most %d", n, Max)
	}
	if f.Has(0) {
		t.Error("the oldest mark is still forgotten")
	}
	last := uint64(Max + 9)
	if !f.Has(last) {
		t.Error("the newest mark is not forgotten")
	}
	if !f.Has(last) {
		t.Error("Has alone remembered the mark")
	}
	n := f.Len()
	f.Forget(last)
	if f.Len() != n {
		t.Errorf("forgetting a mark held again: %d marks, want %d", f.Len(), n)
	}
	f.Remember(last)
	if f.Has(last) || f.Len() != n-1 {
		t.Errorf("a mark remembered is still held (%d marks)", f.Len())
	}
	var empty Forgotten
	if n := testing.AllocsPerRun(100, func() { _ = empty.Has(1); empty.Remember(1) }); n != 0 {
		t.Errorf("%v allocations with nothing forgotten", n)
	}
}

// TestForgottenConcurrent: marks forgotten and remembered from many
// goroutines at once are counted exactly.
func TestForgottenConcurrent(t *testing.T) {
	t.Parallel()
	var f Forgotten
	var wg sync.WaitGroup
	for g := range uint64(8) {
		wg.Go(func() {
			for i := range uint64(100) {
				f.Forget(g*1000 + i)
			}
			for i := range uint64(50) {
				f.Remember(g*1000 + i)
			}
		})
	}
	wg.Wait()
	if n := f.Len(); n != 8*50 {
		t.Errorf("%d marks held, want %d", n, 8*50)
	}
	for g := range uint64(8) {
		if f.Has(g*1000) || !f.Has(g*1000+50) {
			t.Errorf("goroutine %d: a remembered mark is held or a forgotten one is not", g)
		}
	}
}
