package robotsext

import (
	"net/url"
	"testing"
)

// The decision as the request hook makes it for a cached origin: the match
// path from the request's *url.URL, then the rules of the groups for the
// collector's token. "pathOf+checkPath" is the plain form (a string path,
// the token resolved on every call); "appendPathOf+checkSel" is the form
// the hook can use, with the path in a stack buffer and the groups
// resolved once per policy and token (as a cache entry would keep them).
func BenchmarkHookDecision(b *testing.B) {
	type question struct {
		p   *Policy
		sel groupSel
		u   *url.URL
	}
	var qs []question
	for _, in := range corpusInputs(b) {
		p := ParsePolicy(in.robots)
		sel := p.selectGroups(benchAgent)
		for _, raw := range in.urls {
			u, err := url.Parse("https://www.example.com" + raw)
			if err != nil {
				continue
			}
			qs = append(qs, question{p, sel, u})
			_ = p.checkSel(sel, pathOf(u)) // builds the indexes before timing
		}
	}
	b.Run("pathOf+checkPath", func(b *testing.B) {
		loopCPU(b, len(qs), func(i int) {
			q := &qs[i]
			_ = q.p.checkPath(benchAgent, pathOf(q.u))
		})
	})
	b.Run("appendPathOf+checkSel", func(b *testing.B) {
		loopCPU(b, len(qs), func(i int) {
			q := &qs[i]
			var buf [pathBufSize]byte
			_ = q.p.checkSel(q.sel, bytesString(appendPathOf(buf[:0], q.u)))
		})
	})
	b.Run("checkSel", func(b *testing.B) {
		paths := make([]string, len(qs))
		for i, q := range qs {
			paths[i] = pathOf(q.u)
		}
		loopCPU(b, len(qs), func(i int) {
			q := &qs[i]
			_ = q.p.checkSel(q.sel, paths[i])
		})
	})
}
