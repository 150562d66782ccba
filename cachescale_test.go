package robotsext

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/lifecycle"
)

// answerRobots is a transport that answers every robots.txt request at
// once with body, counting them.
type answerRobots struct {
	body string
	n    int
}

func (a *answerRobots) RoundTrip(req *http.Request) (*http.Response, error) {
	a.n++ // the test's Gets run one at a time
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Request: req,
		Body: io.NopCloser(strings.NewReader(a.body))}, nil
}

// TestCacheHoldsManyHosts proves that the default cache holds a crawl of
// 100,000 hosts with small robots.txt files: each host's robots.txt is
// fetched once, none is evicted, and a second look at every host fetches
// nothing (with the count bound of 4096 origins it had before: 195,904
// evictions and 200,000 fetches).
func TestCacheHoldsManyHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches 100,000 robots.txt from a transport")
	}
	const hosts = 100_000
	tr := &answerRobots{body: "User-agent: *\nDisallow: /admin/\nDisallow: /cart\nAllow: /\n"}
	e := Apply(colly.NewCollector(colly.UserAgent("TestBot/1.0")), WithHTTPClient(&http.Client{Transport: tr}))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range 2 {
		for i := range hosts {
			if _, err := e.entryFor(t.Context(), lifecycle.Origin{Host: fmt.Sprintf("h%06d.test", i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	s := e.Stats()
	t.Logf("%d hosts: %d robots.txt fetches, %d origins cached in %d B (%d B each), %d evictions; heap %d B per host (cache, pace, counts)",
		hosts, tr.n, s.Origins, s.CacheBytes, s.CacheBytes/int64(max(s.Origins, 1)), s.Evictions, int64(after.HeapAlloc-before.HeapAlloc)/hosts)
	if tr.n != hosts || s.Evictions != 0 || s.Origins != hosts {
		t.Errorf("%d fetches, %d evictions, %d origins cached; want %d, 0, %d", tr.n, s.Evictions, s.Origins, hosts, hosts)
	}
}
