package lifecycle

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/robotsext/robotsext/backend"
)

// smallRobots is a typical small robots.txt: most of a crawl's hosts serve
// one like it, or none.
const smallRobots = "User-agent: *\nDisallow: /admin/\nDisallow: /cart\nAllow: /\nSitemap: https://example.com/sitemap.xml\n"

// TestMemoryPerOrigin measures the heap an origin's entry retains in the
// cache (its entry, answer, policy, selection, pins and the LRU's map and
// list) with a small robots.txt, over 20,000 origins, and proves the
// estimate the byte bound counts (Entry.Size) is not below it: the bound
// holds the real memory. The figure is docs/limits.md's memory per origin.
func TestMemoryPerOrigin(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 20,000 entries")
	}
	const n = 20000
	ca := New(Config{Fetcher: NewFetcher(FetcherConfig{}), Size: 1 << 30, MaxBytes: 1 << 40})
	now := time.Now()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var estimated int64
	for i := range n {
		o := Origin{Host: fmt.Sprintf("host-%06d.example.com", i)}
		r := &Robots{URL: o.RobotsURL(), FinalURL: o.RobotsURL(), Status: 200, Outcome: backend.OutcomeOK,
			Policy: parse([]byte(smallRobots)), Size: len(smallRobots), FetchedAt: now, Expires: now.Add(24 * time.Hour)}
		en := newEntry(o, nil, r)
		ca.install(t.Context(), en, nil, true)
		estimated += en.Size
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	measured := int64(after.HeapAlloc-before.HeapAlloc) / n
	t.Logf("memory per origin (small robots.txt): %d B measured, %d B counted against WithCacheMemory", measured, estimated/n)
	if measured > estimated/n {
		t.Errorf("an origin retains %d B, more than the %d B the byte bound counts", measured, estimated/n)
	}
	runtime.KeepAlive(ca)
}
