package robotstxt

// This file keeps a file's sitemaps: their URLs are stored in Policy.text
// next to the patterns (one allocation for both), as references, once each
// in file order.

import (
	"bytes"
	"slices"
	"strings"
)

// textRef is a string of Policy.text: text[off:off+n].
type textRef struct{ off, n uint32 }

// Sitemaps returns the absolute http(s) URLs of the file's Sitemap lines, in
// file order, without duplicates. Sitemaps belong to the file, not to a group.
func (p *Policy) Sitemaps() []string {
	if p == nil || len(p.sitemaps) == 0 {
		return nil
	}
	out := make([]string, len(p.sitemaps))
	for i, r := range p.sitemaps {
		out[i] = p.text[r.off : r.off+r.n]
	}
	return out
}

// isSitemapURL reports whether a Sitemap value is kept: an absolute http(s)
// URL with a host and no space.
func isSitemapURL(value []byte) bool {
	rest, ok := cutPrefixFold(value, "http://")
	if !ok {
		rest, ok = cutPrefixFold(value, "https://")
	}
	return ok && len(rest) > 0 && rest[0] != '/' && bytes.IndexByte(value, ' ') < 0
}

// dedupeSitemaps drops every reference whose URL an earlier one already
// names, keeping file order. A few are compared pairwise; many are sorted
// by URL through an index.
func dedupeSitemaps(text string, refs []textRef) []textRef {
	str := func(r textRef) string { return text[r.off : r.off+r.n] }
	const scanLimit = 16 // below this many, pairwise comparison is cheaper
	if len(refs) <= scanLimit {
		return refs[:dedupeSmall(refs, str)]
	}
	order := make([]int32, len(refs))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := strings.Compare(str(refs[a]), str(refs[b])); c != 0 {
			return c
		}
		return int(a - b)
	})
	drop := make([]bool, len(refs))
	for i := 1; i < len(order); i++ {
		if str(refs[order[i]]) == str(refs[order[i-1]]) {
			drop[order[i]] = true // a later copy: order keeps file order among equals
		}
	}
	kept := refs[:0]
	for i, r := range refs {
		if !drop[i] {
			kept = append(kept, r)
		}
	}
	return kept
}

// dedupeSmall removes repeated URLs from refs in place, keeping the first
// of each, and returns how many remain.
func dedupeSmall(refs []textRef, str func(textRef) string) int {
	n := 0
	for _, r := range refs {
		if !slices.ContainsFunc(refs[:n], func(k textRef) bool { return str(k) == str(r) }) {
			refs[n] = r
			n++
		}
	}
	return n
}
