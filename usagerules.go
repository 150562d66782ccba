package robotsext

// This file decides which usage preferences of robots.txt apply to a path:
// it reads the Content-Usage and Content-Signal lines the parser kept
// (policy.go) into rules, once, and finds the longest matching ones for
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
	stmts   []UsageStatement
}

// signalKey maps a Content-Signal key to the vocabulary's: "ai-train" is
// "train-ai"; "search" is the same word and other keys are kept as written.
func signalKey(k string) string {
	if k == "ai-train" {
		return string(PurposeTrainAI)
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
func parseUsage(pref string, signal bool, line int) []UsageStatement {
	d, err := httpsfv.UnmarshalDictionary([]string{pref})
	if err != nil {
		return nil
	}
	src, yes, no := SourceContentUsage, httpsfv.Token("y"), httpsfv.Token("n")
	if signal {
		src, yes, no = SourceContentSignal, httpsfv.Token("yes"), httpsfv.Token("no")
	}
	out := make([]UsageStatement, 0, len(d.Names()))
	for _, k := range d.Names() {
		m, _ := d.Get(k)
		s := UsageStatement{Key: k, Source: src, Line: line}
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

// headerUsage reads the Content-Usage header fields of a response (several
// fields are one Dictionary, RFC 9651 §4.2); nothing when there are none
// or they do not parse.
func headerUsage(fields []string) Usage {
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

// usageSel returns the preferences in force for path, in the form
// requestPath returns, for the crawler the groups of sel apply to: among
// the Content-Usage and Content-Signal lines of those groups (and the
// Content-Signal lines before any group), those of the longest matching
// path, counted in octets of the percent-encoded pattern as for Allow and
// Disallow, combined key by key to the most restrictive. Line order does
// not matter.
func (p *Policy) usageSel(sel groupSel, path string) Usage {
	if p == nil || len(p.usageLines) == 0 {
		return Usage{}
	}
	p.usageOnce.Do(p.readUsageRules)
	best := -1
	var acc []UsageStatement
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
// whose product token is userAgent at rawURL (as Check reads it): the
// Content-Usage lines (draft-ietf-aipref-attach) and Content-Signal lines
// of the groups Check would choose, with the longest matching path
// deciding and conflicts on one path resolved to the most restrictive.
// Preferences concern only what may be crawled: a URL Check disallows has
// none. A nil Policy states nothing.
func (p *Policy) Usage(userAgent, rawURL string) Usage {
	if p == nil || len(p.usageLines) == 0 {
		return Usage{}
	}
	path, ready := pathSpan(rawURL)
	if !ready {
		var buf [pathBufSize]byte
		path = bytesString(finishPath(buf[:0], path))
	}
	sel := p.selectGroups(userAgent)
	var v Verdict
	p.verdict(&v, p.decide(sel, path, 0))
	if !v.Allowed {
		return Usage{}
	}
	return p.usageSel(sel, path)
}

// usageWritten returns the value of the usage line at line, as written.
func (p *Policy) usageWritten(line int) string {
	i, ok := slices.BinarySearchFunc(p.usageLines, int32(line), func(l usageLine, n int32) int { return int(l.line - n) })
	if !ok {
		return ""
	}
	return p.usageLines[i].value
}
