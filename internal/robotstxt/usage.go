package robotstxt

// This file holds the AI usage preferences a file states, as values: a
// statement per vocabulary key (yes, no or nothing, and where it came
// from), the set of statements in force for one URL (Usage), and how
// statements combine. usagerules.go reads them from the usage lines.

import (
	"slices"
	"strconv"
	"strings"
)

// Preference is what a site says about one use of its content: yes, no,
// or nothing. The zero value is PreferenceNone.
type Preference uint8

// The preferences of the vocabulary (draft-ietf-aipref-vocab).
const (
	// PreferenceNone: no statement, or a value the vocabulary does not
	// define. It never refuses.
	PreferenceNone Preference = iota
	// PreferenceYes: the use is allowed ("y"; Content-Signal's "yes").
	PreferenceYes
	// PreferenceNo: the use is not wanted ("n"; Content-Signal's "no").
	PreferenceNo
)

// restrictive orders preferences for combining statements: no before
// yes before no statement (draft-ietf-aipref-vocab, "combining").
func (p Preference) restrictive() int {
	switch p {
	case PreferenceNo:
		return 2
	case PreferenceYes:
		return 1
	}
	return 0
}

// Source says where a statement came from.
type Source uint8

// The sources of a statement.
const (
	// SourceNone: no statement was found.
	SourceNone Source = iota
	// SourceContentUsage: a Content-Usage line of robots.txt.
	SourceContentUsage
	// SourceContentSignal: a Content-Signal line of robots.txt.
	SourceContentSignal
	// SourceHeader: a Content-Usage response header (HeaderUsage).
	SourceHeader
)

// Statement is the preference stated for one vocabulary key, and where.
type Statement struct {
	// Key is the vocabulary key, such as "train-ai"; Content-Signal's
	// keys are mapped ("ai-train" to "train-ai"), other keys are kept as
	// written.
	Key        string
	Preference Preference
	Source     Source
	Line       int // the robots.txt line of the two robots.txt sources, else 0
}

// Usage is the set of usage preferences in force for one URL or page: at
// most one Statement per key. It is a small comparable value (two equal
// sets compare equal with ==); the zero value states nothing.
type Usage struct {
	// enc holds the statements sorted by key, each as
	// key '\x1f' preference source line '\x1e' (preference and source one
	// digit each, line in decimal). Keys are Structured Field keys, which
	// hold neither separator.
	enc string
}

// IsZero reports whether u states nothing at all.
func (u Usage) IsZero() bool { return u.enc == "" }

// Statements returns the statements of u, sorted by key.
func (u Usage) Statements() []Statement {
	var out []Statement
	for rest := u.enc; rest != ""; {
		var e string
		e, rest, _ = strings.Cut(rest, "\x1e")
		out = append(out, decodeStatement(e))
	}
	return out
}

// Lookup returns the statement for key, or one with PreferenceNone and
// SourceNone when u has none.
func (u Usage) Lookup(key string) Statement {
	for rest := u.enc; rest != ""; {
		var e string
		e, rest, _ = strings.Cut(rest, "\x1e")
		if k, _, _ := strings.Cut(e, "\x1f"); k == key {
			return decodeStatement(e)
		}
	}
	return Statement{Key: key}
}

func decodeStatement(e string) Statement {
	k, v, _ := strings.Cut(e, "\x1f")
	s := Statement{Key: k}
	if len(v) >= 2 {
		s.Preference, s.Source = Preference(v[0]-'0'), Source(v[1]-'0')
		s.Line, _ = strconv.Atoi(v[2:])
	}
	return s
}

// usageOf encodes statements, at most one per key, as a Usage. It sorts
// stmts.
func usageOf(stmts []Statement) Usage {
	if len(stmts) == 0 {
		return Usage{}
	}
	slices.SortFunc(stmts, func(a, b Statement) int { return strings.Compare(a.Key, b.Key) })
	var b strings.Builder
	for _, s := range stmts {
		b.WriteString(s.Key)
		b.WriteByte('\x1f')
		b.WriteByte('0' + byte(s.Preference))
		b.WriteByte('0' + byte(s.Source))
		b.WriteString(strconv.Itoa(s.Line))
		b.WriteByte('\x1e')
	}
	return Usage{enc: b.String()}
}

// combine adds the statements of more to acc, key by key, keeping the most
// restrictive; on a tie the statement already in acc stays.
func combine(acc []Statement, more []Statement) []Statement {
	for _, s := range more {
		i := slices.IndexFunc(acc, func(a Statement) bool { return a.Key == s.Key })
		switch {
		case i < 0:
			acc = append(acc, s)
		case s.Preference.restrictive() > acc[i].Preference.restrictive():
			acc[i] = s
		}
	}
	return acc
}

// Merge combines u with the statements of other, key by key, keeping the
// most restrictive and u's on a tie, as a page's robots.txt preferences
// and its header combine.
func (u Usage) Merge(other Usage) Usage {
	if other.IsZero() {
		return u
	}
	if u.IsZero() {
		return other
	}
	return usageOf(combine(u.Statements(), other.Statements()))
}
