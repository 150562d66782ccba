package robotsext

import (
	"net/url"
	"testing"

	"github.com/robotsext/robotsext/internal/robotstxt"
)

// checkSel is the request hook's decision for a cached origin, the groups
// resolved once per policy and token: the engine's Decide, then the
// Verdict filled from its Match (see Extension.decideInto).
func checkSel(p *Policy, sel robotstxt.Selection, path string) (v Verdict) {
	e := p.engine()
	setVerdict(&v, e, e.Decide(sel, path))
	return v
}

// The decision as the request hook makes it for a cached origin: the match
// path from the request's *url.URL, then the rules of the groups for the
// collector's token. "pathOf+checkPath" is the plain form (a string path,
// the token resolved on every call); "appendPathOf+checkSel" is the form
// the hook can use, with the path in a stack buffer and the groups
// resolved once per policy and token (as a cache entry would keep them).
func BenchmarkHookDecision(b *testing.B) {
	type question struct {
		p   *Policy
		sel robotstxt.Selection
		u   *url.URL
	}
	var qs []question
	for _, in := range corpusInputs(b) {
		p := ParsePolicy(in.robots)
		sel := p.engine().Select(benchAgent)
		for _, raw := range in.urls {
			u, err := url.Parse("https://www.example.com" + raw)
			if err != nil {
				continue
			}
			qs = append(qs, question{p, sel, u})
			_ = checkSel(p, sel, robotstxt.PathOf(u)) // builds the indexes before timing
		}
	}
	b.Run("pathOf+checkPath", func(b *testing.B) {
		loopCPU(b, len(qs), func(i int) {
			q := &qs[i]
			_ = q.p.checkPath(benchAgent, robotstxt.PathOf(q.u))
		})
	})
	b.Run("appendPathOf+checkSel", func(b *testing.B) {
		loopCPU(b, len(qs), func(i int) {
			q := &qs[i]
			var buf [robotstxt.PathBufSize]byte
			_ = checkSel(q.p, q.sel, bytesString(robotstxt.AppendPath(buf[:0], q.u)))
		})
	})
	b.Run("checkSel", func(b *testing.B) {
		paths := make([]string, len(qs))
		for i, q := range qs {
			paths[i] = robotstxt.PathOf(q.u)
		}
		loopCPU(b, len(qs), func(i int) {
			q := &qs[i]
			_ = checkSel(q.p, q.sel, paths[i])
		})
	})
}
