package signals

// This file resolves the path-scoped statements of robots.txt for one
// path. The round-4 defect it fixes: the longest matching path decided
// among the Content-Usage and Content-Signal lines together, so a site
// whose "*" group said "Content-Signal: search=yes, ai-train=no" (every
// path) and "Content-Usage: /open/ train-ai=y" had /open/a fetched by a
// crawler declaring train-ai, the longer Content-Usage line hiding the
// Content-Signal "no". The longest-path rule of draft-ietf-aipref-attach
// orders the rules of one mechanism; statements of different mechanisms
// are different statements of preference, which draft-ietf-aipref-vocab
// combines: any no is no.

// PathMatches collects the path-scoped statements that match one path
// (the Content-Usage and Content-Signal lines of robots.txt, each with the
// length of its pattern) and resolves them:
//
//   - within one Source the longest pattern decides, counted in octets of
//     the percent-encoded pattern as for Allow and Disallow; the
//     statements of the lines of that length combine to the most
//     restrictive, key by key; a key those lines do not mention has no
//     statement from that Source (a shorter line does not fill it in);
//   - the winners of each Source combine (Combine).
//
// The zero value is empty and ready; Reset empties it for another path,
// keeping its memory. A PathMatches is not safe for concurrent use.
type PathMatches struct {
	per [numSources]sourceMatch
}

// sourceMatch is the longest match of one Source so far.
type sourceMatch struct {
	best  int // the pattern length plus one; 0: no match yet
	stmts []Statement
}

// Add records a line of Source src whose pattern, patternLen octets long,
// matches the path, and the statements its preference makes (none when it
// did not parse: as the longest match it still leaves its path without a
// statement of src). Statements whose own Source is not src are counted
// as src's.
func (m *PathMatches) Add(src Source, patternLen int, stmts []Statement) {
	if src >= numSources {
		return
	}
	sm := &m.per[src]
	switch n := patternLen + 1; {
	case n < sm.best:
		return
	case n > sm.best:
		sm.best, sm.stmts = n, sm.stmts[:0]
	}
	for _, s := range stmts {
		s.Source = src
		sm.stmts = Combine(sm.stmts, s)
	}
}

// Statements appends to dst the statements in force: per Source the
// longest match's, combined across Sources. Keys are in no order.
func (m *PathMatches) Statements(dst []Statement) []Statement {
	for i := range m.per {
		dst = Combine(dst, m.per[i].stmts...)
	}
	return dst
}

// BySource appends to dst the statements of each Source's longest match,
// not combined across Sources: a Set of them keeps every mechanism's
// statement, and its Lookup combines them as Statements does.
func (m *PathMatches) BySource(dst []Statement) []Statement {
	for i := range m.per {
		dst = append(dst, m.per[i].stmts...)
	}
	return dst
}

// Reset empties m.
func (m *PathMatches) Reset() {
	for i := range m.per {
		m.per[i].best, m.per[i].stmts = 0, m.per[i].stmts[:0]
	}
}
