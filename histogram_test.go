package robotsext

import (
	"testing"
	"time"
)

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
