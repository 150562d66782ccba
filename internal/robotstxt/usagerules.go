package robotstxt

// This file decides which usage preferences of robots.txt apply to a path:
// it reads the Content-Usage and Content-Signal lines the parser kept
// (build.go) into rules, once, and finds each mechanism's longest matching
// ones for the groups chosen for a crawler. Reading a preference, and
// resolving the matches, is package signals' work, shared with the
// response headers and the other mechanisms.

import (
	"slices"
	"strings"

	"github.com/robotsext/robotsext/internal/signals"
)

// usageRule is a Content-Usage or Content-Signal line read: its path
// pattern, percent-encoded as Allow and Disallow patterns are, and the
// statements of its preference.
type usageRule struct {
	group   int32 // as usageLine.group
	line    int32
	source  signals.Source // SourceContentUsage or SourceContentSignal
	pattern string         // "/" when the line names no path
	stmts   []signals.Statement
}

// readUsageRules reads p.usageLines into p.usageRules, in file order
// (groups ascending, the lines before any group first). A preference is
// read by signals.ParseDictionary, as the response headers are.
func (p *Policy) readUsageRules() {
	if len(p.usageLines) == 0 {
		return
	}
	rules := make([]usageRule, len(p.usageLines))
	for i, l := range p.usageLines {
		path, pref := splitUsageValue(l.value)
		var b strings.Builder
		writeEscaped(&b, []byte(path))
		src, dialect := signals.SourceContentUsage, signals.DialectContentUsage
		if l.signal {
			src, dialect = signals.SourceContentSignal, signals.DialectContentSignal
		}
		rules[i] = usageRule{group: l.group, line: l.line, source: src, pattern: b.String(),
			stmts: signals.ParseDictionary(pref, dialect, src, int(l.line))}
	}
	p.usageRules = rules
}

// splitUsageValue splits a line's value into its path (up to the first SP
// or HTAB; "/" when there is none) and its preference. A value names a
// path when it starts with '/', or with '*' followed by a field without
// '=' (a Dictionary key may also start with '*').
func splitUsageValue(v string) (path, pref string) {
	k := strings.IndexAny(v, " \t")
	switch {
	case strings.HasPrefix(v, "/") && k < 0:
		return v, ""
	case strings.HasPrefix(v, "/"), strings.HasPrefix(v, "*") && k > 0 && !strings.Contains(v[:k], "="):
		return v[:k], strings.TrimLeft(v[k:], " \t")
	}
	return "/", v
}

// HasUsage reports whether the file has any Content-Usage or Content-Signal
// line, so that a caller can skip the questions about usage preferences.
func (p *Policy) HasUsage() bool { return p != nil && len(p.usageLines) > 0 }

// UsageFor returns the preferences in force for path, in the form
// RequestPath returns, for the crawler the groups of sel apply to, from
// the Content-Usage and Content-Signal lines of those groups (and the
// Content-Signal lines before any group). Each of the two mechanisms
// states its own preference (signals.PathMatches): among its lines, those
// of the longest matching path decide, counted in octets of the
// percent-encoded pattern as for Allow and Disallow, combined key by key
// to the most restrictive; line order does not matter. The Set keeps both
// mechanisms' statements; its Lookup combines them to the most
// restrictive, so a Content-Signal "no" for every path is not lifted by a
// longer Content-Usage "y", nor the reverse. It does not look at the Allow
// and Disallow rules (see Usage).
func (p *Policy) UsageFor(sel Selection, path string) signals.Set {
	if p == nil || len(p.usageLines) == 0 {
		return signals.Set{}
	}
	p.usageOnce.Do(p.readUsageRules)
	var m signals.PathMatches
	consider := func(rs []usageRule) {
		for _, r := range rs {
			if matchWild(r.pattern, path) {
				m.Add(r.source, len(r.pattern), r.stmts)
			}
		}
	}
	consider(p.usageOfGroup(-1))
	for i := range sel.n {
		g := sel.first
		if sel.n > 1 {
			g = p.lists[sel.first+i]
		}
		consider(p.usageOfGroup(g))
	}
	return signals.SetOf(m.BySource(nil))
}

// usageOfGroup returns the usage rules of group g (-1: those before any
// group), which are contiguous in p.usageRules.
func (p *Policy) usageOfGroup(g int32) []usageRule {
	rs := p.usageRules
	lo, _ := slices.BinarySearchFunc(rs, g, func(r usageRule, g int32) int { return int(r.group - g) })
	hi := lo
	for hi < len(rs) && rs[hi].group == g {
		hi++
	}
	return rs[lo:hi]
}

// Usage returns the AI usage preferences robots.txt states for the crawler
// whose product token is token at rawURL (read as RequestPath reads it):
// UsageFor the groups Select chooses. Preferences concern only what may be
// crawled: a path Decide disallows has none. A nil Policy states nothing.
func (p *Policy) Usage(token, rawURL string) signals.Set {
	if p == nil || len(p.usageLines) == 0 {
		return signals.Set{}
	}
	path, ready := PathSpan(rawURL)
	if !ready {
		var buf [PathBufSize]byte
		path = bytesString(FinishPath(buf[:0], path))
	}
	sel := p.Select(token)
	if !p.Decide(sel, path).Allowed() {
		return signals.Set{}
	}
	return p.UsageFor(sel, path)
}

// UsageLine returns the value of the usage line at line (a Statement's
// Line), as written, or "" when no usage line is there.
func (p *Policy) UsageLine(line int) string {
	i, ok := slices.BinarySearchFunc(p.usageLines, int32(line), func(l usageLine, n int32) int { return int(l.line - n) })
	if !ok {
		return ""
	}
	return p.usageLines[i].value
}
