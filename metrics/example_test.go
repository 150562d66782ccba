package metrics_test

import (
	"fmt"

	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/metrics"
)

// Each row says how to read one measure from a Stats snapshot, under the
// names both adapters export it by.
func ExampleAll() {
	s := robotsext.Stats{CacheHits: 4, Blocked: map[robotsext.Reason]uint64{robotsext.ReasonDisallowRule: 2}}
	for _, m := range metrics.All() {
		switch m.Prom {
		case "cache_hits_total":
			fmt.Println(m.Name(), m.OTel, m.Kind, m.Unit, m.Value(&s))
		case "blocked_total":
			m.Label.Points(&s, func(value string, n uint64) {
				if n > 0 {
					fmt.Printf("%s{%s=%q} %d\n", m.Name(), m.Label.Prom, value, n)
				}
			})
		}
	}
	// Output:
	// robotsext_blocked_total{reason="disallow_rule"} 2
	// robotsext_cache_hits_total robotsext.cache.hits counter {request} 4
}
