package robotsext

import (
	"slices"
	"testing"
	"time"
)

// TestHistogram: each duration lands in the first bucket whose bound it
// does not exceed, the last bucket takes what is longer than every
// bound, and Count and Sum add up.
func TestHistogram(t *testing.T) {
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
		{time.Minute, len(histogramBounds) - 1},
		{time.Hour, len(histogramBounds)},
	}
	var h histogram
	want := make([]uint64, len(histogramBounds)+1)
	var sum time.Duration
	for _, tt := range tests {
		h.observe(tt.d)
		want[tt.bucket]++
		sum += max(tt.d, 0)
	}
	s := h.snapshot()
	if !slices.Equal(s.Counts, want) {
		t.Errorf("Counts = %v, want %v", s.Counts, want)
	}
	if s.Count != uint64(len(tests)) || s.Sum != sum {
		t.Errorf("Count %d, Sum %v; want %d, %v", s.Count, s.Sum, len(tests), sum)
	}
	if !slices.IsSorted(s.Bounds) || len(s.Bounds)+1 != len(s.Counts) {
		t.Errorf("Bounds %v do not fit Counts %v", s.Bounds, s.Counts)
	}
}

// TestStatsTimings: a crawl of a paced host observes each page's wait
// and the robots.txt fetch.
func TestStatsTimings(t *testing.T) {
	t.Parallel()
	s := newAccSite(t, accBody("User-agent: *\nCrawl-delay: 0.05\n"))
	c, client := accCollector(t, "AcmeBot/2.1")
	ext := Apply(c, client)
	accVisit(t, c, s.URL, "/a", "/b", "/c")
	c.Wait()
	st := ext.Stats()
	if st.PaceWaits.Count != 3 {
		t.Errorf("PaceWaits.Count = %d, want 3 (one per page of the paced host)", st.PaceWaits.Count)
	}
	if st.PaceWaits.Sum < 100*time.Millisecond {
		t.Errorf("PaceWaits.Sum = %v, want at least the two delays the later pages waited", st.PaceWaits.Sum)
	}
	if st.FetchDurations.Count != 1 {
		t.Errorf("FetchDurations.Count = %d, want 1", st.FetchDurations.Count)
	}
}
