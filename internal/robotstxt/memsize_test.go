package robotstxt

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// memSizeInputs are large synthetic files, each stressing one part of a
// Policy: literal and wildcard rules, the agents map, and sitemaps, raw
// values and delays.
func memSizeInputs() map[string][]byte {
	var rules, agents, misc strings.Builder
	rules.WriteString("User-agent: *\n")
	for i := range 50_000 {
		fmt.Fprintf(&rules, "Disallow: /p%d/*q%d\nAllow: /catalog/p%d/\n", i, i, i)
	}
	for i := range 100_000 {
		fmt.Fprintf(&agents, "User-agent: bot%s\n", letters(i))
		if i%10 == 0 {
			fmt.Fprintf(&agents, "Disallow: /x%d\n", i)
		}
	}
	for i := range 20_000 {
		fmt.Fprintf(&misc, "User-agent: bot%s\nCrawl-delay: %d\nDisallow: /caf\u00e9/%d\nSitemap: https://example.com/sitemap-%d.xml\n", letters(i%500), i%7+1, i, i)
	}
	out := map[string][]byte{
		"50,000 rules":             []byte(rules.String()),
		"100,000 user-agent lines": []byte(agents.String()),
		"sitemaps, raws, delays":   []byte(misc.String()),
	}
	if b, err := os.ReadFile(filepath.Join(corpusDir, "371-xuexi-cn.txt")); err == nil {
		out["largest corpus file"] = b
	}
	return out
}

// retainedBytes measures the live heap that parsePolicy(robots) leaves
// behind once every group's index is built, after full collections on both
// sides.
func retainedBytes(robots []byte) (int64, int64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	p := parsePolicy(robots)
	for g := range p.groups {
		p.groupIndex(int32(g))
	}
	if len(p.agents) >= manyAgents {
		p.agentMap()
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	est := p.MemSize()
	runtime.KeepAlive(p)
	runtime.KeepAlive(robots) // its bytes must not be freed in between
	return int64(after.HeapAlloc) - int64(before.HeapAlloc), est
}

// MemSize is compared with the heap a Policy really retains. The test is not
// parallel so that no other test allocates meanwhile, and it takes the
// median of five measurements to ride out stray allocations elsewhere.
func TestMemSize(t *testing.T) {
	// Under -race the ratio is not checked (see raceEnabled): one
	// measurement per input is enough to log it.
	runs := 5
	if raceEnabled {
		runs = 1
	}
	for name, robots := range memSizeInputs() {
		var got []int64
		var est int64
		for range runs {
			var g int64
			g, est = retainedBytes(robots)
			got = append(got, g)
		}
		slices.Sort(got)
		real := got[len(got)/2]
		ratio := float64(est) / float64(real)
		t.Logf("%s: MemSize %d, retained %d (%.3f)", name, est, real, ratio)
		if raceEnabled {
			continue // see raceEnabled; the plain run checks the ratio
		}
		if ratio < 0.85 || ratio > 1.15 {
			t.Errorf("%s: MemSize = %d; the heap retains %d (ratio %.2f)", name, est, real, ratio)
		}
	}
	var nilPolicy *Policy
	if n := nilPolicy.MemSize(); n != 0 {
		t.Errorf("nil MemSize = %d", n)
	}
	if n := parsePolicy(nil).MemSize(); n <= 0 || n > 1024 {
		t.Errorf("empty policy MemSize = %d", n)
	}
}
