package robotstxt

// This file decides which usage preferences of robots.txt apply to a path:
// it reads the Content-Usage and Content-Signal lines the parser kept
// (build.go) into rules, once, and finds the longest matching ones for
// the groups chosen for a crawler.

import (
	"slices"
	"strings"

	"github.com/dunglas/httpsfv"
)

// usageRule is a Content-Usage or Content-Signal line read: its path
// pattern, percent-encoded as Allow and Disallow patterns are, and the
// statements of its preference.
type usageRule struct {
	group   int32 // as usageLine.group
	line    int32
	pattern string // "/" when the line names no path
	stmts   []Statement
}

// signalKey maps a Content-Signal key to the vocabulary's: "ai-train" is
// "train-ai"; "search" is the same word and other keys are kept as written.
func signalKey(k string) string {
	if k == "ai-train" {
		return "train-ai"
	}
	return k
}

// readUsageRules reads p.usageLines into p.usageRules, in file order
// (groups ascending, the lines before any group first).
func (p *Policy) readUsageRules() {
	if len(p.usageLines) == 0 {
		return
	}
	rules := make([]usageRule, len(p.usageLines))
	for i, l := range p.usageLines {
		path, pref := splitUsageValue(l.value)
		var b strings.Builder
		writeEscaped(&b, []byte(path))
		rules[i] = usageRule{group: l.group, line: l.line, pattern: b.String(), stmts: parseUsage(pref, l.signal, int(l.line))}
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

// parseUsage reads a preference, an RFC 9651 Dictionary, into statements
// from the given line. The values "y" and "n" (tokens; "yes" and "no" for
// Content-Signal) state a preference; anything else states none for its
// key. A Dictionary that does not parse states nothing at all; a key
// written twice takes its last value (RFC 9651 §4.2.2); unknown keys are
// kept.
func parseUsage(pref string, signal bool, line int) []Statement {
	d, err := httpsfv.UnmarshalDictionary([]string{pref})
	if err != nil {
		return nil
	}
	src, yes, no := SourceContentUsage, httpsfv.Token("y"), httpsfv.Token("n")
	if signal {
		src, yes, no = SourceContentSignal, httpsfv.Token("yes"), httpsfv.Token("no")
	}
	out := make([]Statement, 0, len(d.Names()))
	for _, k := range d.Names() {
		m, _ := d.Get(k)
		s := Statement{Key: k, Source: src, Line: line}
		if signal {
			s.Key = signalKey(k)
		}
		if it, ok := m.(httpsfv.Item); ok {
			switch it.Value {
			case yes:
				s.Preference = PreferenceYes
			case no:
				s.Preference = PreferenceNo
			}
		}
		out = append(out, s)
	}
	return out
}

// HeaderUsage reads the Content-Usage header fields of a response (several
// fields are one Dictionary, RFC 9651 §4.2): the same values as a
// Content-Usage line's, from SourceHeader. It states nothing when there
// are no fields or they do not parse.
func HeaderUsage(fields []string) Usage {
	if len(fields) == 0 {
		return Usage{}
	}
	stmts := parseUsage(strings.Join(fields, ", "), false, 0)
	for i := range stmts {
		stmts[i].Source, stmts[i].Line = SourceHeader, 0
	}
	// The header states one Dictionary: a key mapped onto another cannot
	// occur, so the statements are distinct.
	return usageOf(stmts)
}

// HasUsage reports whether the file has any Content-Usage or Content-Signal
// line, so that a caller can skip the questions about usage preferences.
func (p *Policy) HasUsage() bool { return p != nil && len(p.usageLines) > 0 }

// UsageFor returns the preferences in force for path, in the form
// RequestPath returns, for the crawler the groups of sel apply to: among
// the Content-Usage and Content-Signal lines of those groups (and the
// Content-Signal lines before any group), those of the longest matching
// path, counted in octets of the percent-encoded pattern as for Allow and
// Disallow, combined key by key to the most restrictive. Line order does
// not matter. It does not look at the Allow and Disallow rules (see
// Usage).
func (p *Policy) UsageFor(sel Selection, path string) Usage {
	if p == nil || len(p.usageLines) == 0 {
		return Usage{}
	}
	p.usageOnce.Do(p.readUsageRules)
	best := -1
	var acc []Statement
	consider := func(rs []usageRule) {
		for _, r := range rs {
			if len(r.pattern) < best || !matchWild(r.pattern, path) {
				continue
			}
			if len(r.pattern) > best {
				best, acc = len(r.pattern), acc[:0]
			}
			acc = combine(acc, r.stmts)
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
	return usageOf(slices.Clone(acc))
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
func (p *Policy) Usage(token, rawURL string) Usage {
	if p == nil || len(p.usageLines) == 0 {
		return Usage{}
	}
	path, ready := PathSpan(rawURL)
	if !ready {
		var buf [PathBufSize]byte
		path = bytesString(FinishPath(buf[:0], path))
	}
	sel := p.Select(token)
	if !p.Decide(sel, path).Allowed() {
		return Usage{}
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
