package tally

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestDurations: each duration lands in the first bucket whose bound it
// does not exceed, the last bucket takes what is longer than every
// bound, and the count and sum add up.
func TestDurations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d      time.Duration
		bucket int
	}{
		{-time.Second, 0},
		{0, 0},
		{5 * time.Millisecond, 0},
		{5*time.Millisecond + 1, 1},
		{time.Second, 7},
		{time.Minute, len(Bounds) - 1},
		{time.Hour, len(Bounds)},
	}
	var h Durations
	want := make([]uint64, len(Bounds)+1)
	var sum time.Duration
	for _, tt := range tests {
		h.Observe(tt.d)
		want[tt.bucket]++
		sum += max(tt.d, 0)
	}
	counts, count, gotSum := h.Snapshot()
	if !slices.Equal(counts, want) {
		t.Errorf("counts = %v, want %v", counts, want)
	}
	if count != uint64(len(tests)) || gotSum != sum {
		t.Errorf("count %d, sum %v; want %d, %v", count, gotSum, len(tests), sum)
	}
	if !slices.IsSorted(Bounds[:]) {
		t.Errorf("Bounds %v are not ascending", Bounds)
	}
}

// TestDurationsAllocs: observing a duration allocates nothing.
func TestDurationsAllocs(t *testing.T) {
	var h Durations
	if n := testing.AllocsPerRun(1000, func() { h.Observe(37 * time.Millisecond) }); n != 0 {
		t.Errorf("Observe: %v allocations, want 0", n)
	}
}

func TestClass(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		want   Class
		name   string
	}{
		{-1, C1xx, "1xx"}, {0, C1xx, "1xx"}, {100, C1xx, "1xx"}, {199, C1xx, "1xx"},
		{200, C2xx, "2xx"}, {301, C3xx, "3xx"}, {404, C4xx, "4xx"}, {503, C5xx, "5xx"},
		{599, C5xx, "5xx"}, {600, C5xx, "5xx"}, {999, C5xx, "5xx"},
	}
	for _, tt := range tests {
		if got := Of(tt.status); got != tt.want || got.String() != tt.name {
			t.Errorf("Of(%d) = %v (%d), want %s", tt.status, got, got, tt.name)
		}
	}
	if None.String() != "none" || Class(NumClasses).String() != "class_6" {
		t.Errorf("None is %q and class 6 %q", None, Class(NumClasses))
	}
}

// TestHosts: each host's responses are counted apart; Add says how many
// hosts there are when a host is new; Forget and Sweep drop hosts.
func TestHosts(t *testing.T) {
	t.Parallel()
	var h Hosts
	if n := h.Add("a.test", C2xx); n != 1 {
		t.Errorf("Add of the first host = %d, want 1", n)
	}
	if n := h.Add("a.test", C2xx); n != 0 {
		t.Errorf("Add of a known host = %d, want 0", n)
	}
	h.Add("a.test", None)
	if n := h.Add("b.test", C5xx); n != 2 {
		t.Errorf("Add of the second host = %d, want 2", n)
	}
	h.Add("c.test", C4xx)
	if got, want := h.Counts("a.test"), map[Class]uint64{C2xx: 2, None: 1}; !maps.Equal(got, want) {
		t.Errorf("Counts(a.test) = %v, want %v", got, want)
	}
	if got := h.Counts("d.test"); got != nil {
		t.Errorf("Counts of an unknown host = %v, want nil", got)
	}
	h.Forget("a.test")
	h.Forget("a.test")
	if got := h.Counts("a.test"); got != nil {
		t.Errorf("Counts of a forgotten host = %v", got)
	}
	h.Sweep(func(host string) bool { return host == "b.test" })
	if h.Counts("c.test") != nil || h.Counts("b.test") == nil {
		t.Errorf("after Sweep: b.test %v, c.test %v; want b.test kept alone", h.Counts("b.test"), h.Counts("c.test"))
	}
	if n := h.Add("e.test", C2xx); n != 2 {
		t.Errorf("Add after Forget and Sweep = %d hosts, want 2", n)
	}
}

// TestHostsConcurrent: responses counted from many goroutines at once are
// all counted, and a new host is reported new once.
func TestHostsConcurrent(t *testing.T) {
	t.Parallel()
	var h Hosts
	var wg sync.WaitGroup
	var mu sync.Mutex
	news := 0
	for range 8 {
		wg.Go(func() {
			for i := range 100 {
				if h.Add(fmt.Sprintf("h%d.test", i%10), C2xx) > 0 {
					mu.Lock()
					news++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if news != 10 {
		t.Errorf("%d hosts reported new, want 10", news)
	}
	for i := range 10 {
		if n := h.Counts(fmt.Sprintf("h%d.test", i))[C2xx]; n != 80 {
			t.Errorf("h%d.test counted %d, want 80", i, n)
		}
	}
}
