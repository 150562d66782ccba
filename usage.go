package robotsext

// This file holds the AI usage preferences a site states: the vocabulary
// (Purpose, Preference), the value that carries the preferences in force
// (Usage) and how statements combine. usagerules.go reads them from
// robots.txt; usagehook.go enforces them for a crawler that declares its
// purposes. See docs/usage-preferences.md for the drafts they follow.

import (
	"slices"
	"strconv"
	"strings"
)

// Purpose is what a crawler uses content for, named by its key in the
// IETF aipref vocabulary (draft-ietf-aipref-vocab), such as "train-ai".
// A crawler declares its purposes with WithPurpose.
type Purpose string

// The purposes of the vocabulary, and the one of Cloudflare's
// Content-Signal that the vocabulary does not name.
const (
	// PurposeTrainAI is training AI models (vocabulary key "train-ai";
	// Content-Signal's "ai-train").
	PurposeTrainAI Purpose = "train-ai"
	// PurposeSearch is building a search index and showing results that
	// link to the content (vocabulary key "search").
	PurposeSearch Purpose = "search"
	// PurposeAIInput is feeding content into an AI model's answer at the
	// time of use, as retrieval-augmented generation does
	// (Content-Signal's "ai-input", kept under its own name).
	PurposeAIInput Purpose = "ai-input"
)

// Preference is what a site says about one use of its content: yes, no,
// or nothing. The zero value is PreferenceNone.
type Preference uint8

const (
	// PreferenceNone: no statement. The key is missing, its value is not
	// one the vocabulary defines, or the statement could not be read.
	// It never refuses.
	PreferenceNone Preference = iota
	// PreferenceYes: the use is allowed ("y"; Content-Signal's "yes").
	PreferenceYes
	// PreferenceNo: the use is not wanted ("n"; Content-Signal's "no").
	PreferenceNo
)

// String returns "y", "n" or "no statement".
func (p Preference) String() string {
	switch p {
	case PreferenceYes:
		return "y"
	case PreferenceNo:
		return "n"
	}
	return "no statement"
}

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

// UsageSource says where a statement of a Usage came from.
type UsageSource uint8

const (
	// SourceNone: no statement was found.
	SourceNone UsageSource = iota
	// SourceContentUsage: a Content-Usage line of robots.txt.
	SourceContentUsage
	// SourceContentSignal: a Content-Signal line of robots.txt.
	SourceContentSignal
	// SourceHeader: the Content-Usage header of the response.
	SourceHeader
)

// String names the source as a reader of a report expects it.
func (s UsageSource) String() string {
	switch s {
	case SourceContentUsage:
		return "Content-Usage line"
	case SourceContentSignal:
		return "Content-Signal line"
	case SourceHeader:
		return "Content-Usage header"
	}
	return "none"
}

// UsageStatement is the preference in force for one vocabulary key, and
// where it came from.
type UsageStatement struct {
	// Key is the vocabulary key, such as "train-ai"; Content-Signal's
	// keys are mapped ("ai-train" to "train-ai"), other keys are kept as
	// written.
	Key string
	// Preference is yes, no, or no statement (a key written with a value
	// the vocabulary does not define).
	Preference Preference
	// Source is where it came from; Line is the robots.txt line for the
	// two robots.txt sources, else 0.
	Source UsageSource
	Line   int
}

// String returns "key=y (line 4)", "key=n (header)" and the like.
func (s UsageStatement) String() string {
	v := s.Preference.String()
	if s.Preference == PreferenceNone {
		v = "?"
	}
	switch s.Source {
	case SourceHeader:
		return s.Key + "=" + v + " (header)"
	case SourceContentUsage, SourceContentSignal:
		return s.Key + "=" + v + " (line " + strconv.Itoa(s.Line) + ")"
	}
	return s.Key + "=" + v
}

// Usage is the set of usage preferences in force for one URL or page: per
// vocabulary key, yes, no or no statement, and where each came from. A key
// it does not list has no statement. It is a small comparable value (two
// equal sets compare equal with ==), so that Verdict stays comparable; the
// zero value states nothing.
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
func (u Usage) Statements() []UsageStatement {
	var out []UsageStatement
	for rest := u.enc; rest != ""; {
		var e string
		e, rest, _ = strings.Cut(rest, "\x1e")
		out = append(out, decodeStatement(e))
	}
	return out
}

// Lookup returns the statement for key, or one with PreferenceNone and
// SourceNone when u has none.
func (u Usage) Lookup(key string) UsageStatement {
	for rest := u.enc; rest != ""; {
		var e string
		e, rest, _ = strings.Cut(rest, "\x1e")
		if k, _, _ := strings.Cut(e, "\x1f"); k == key {
			return decodeStatement(e)
		}
	}
	return UsageStatement{Key: key}
}

// For returns the preference stated for purpose p.
func (u Usage) For(p Purpose) Preference { return u.Lookup(string(p)).Preference }

// String lists the statements, "search=y (line 3), train-ai=n (line 2)",
// or returns "no statement".
func (u Usage) String() string {
	if u.IsZero() {
		return "no statement"
	}
	var b strings.Builder
	for i, s := range u.Statements() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s.String())
	}
	return b.String()
}

func decodeStatement(e string) UsageStatement {
	k, v, _ := strings.Cut(e, "\x1f")
	s := UsageStatement{Key: k}
	if len(v) >= 2 {
		s.Preference, s.Source = Preference(v[0]-'0'), UsageSource(v[1]-'0')
		s.Line, _ = strconv.Atoi(v[2:])
	}
	return s
}

// usageOf encodes statements, at most one per key, as a Usage.
func usageOf(stmts []UsageStatement) Usage {
	if len(stmts) == 0 {
		return Usage{}
	}
	slices.SortFunc(stmts, func(a, b UsageStatement) int { return strings.Compare(a.Key, b.Key) })
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
func combine(acc []UsageStatement, more []UsageStatement) []UsageStatement {
	for _, s := range more {
		i := slices.IndexFunc(acc, func(a UsageStatement) bool { return a.Key == s.Key })
		switch {
		case i < 0:
			acc = append(acc, s)
		case s.Preference.restrictive() > acc[i].Preference.restrictive():
			acc[i] = s
		}
	}
	return acc
}

// merge combines u with the statements of other, most restrictive first,
// as a page's robots.txt preferences and its header combine.
func (u Usage) merge(other Usage) Usage {
	if other.IsZero() {
		return u
	}
	if u.IsZero() {
		return other
	}
	return usageOf(combine(u.Statements(), other.Statements()))
}

// refuses reports whether u says "n" for every one of purposes (none: never),
// and returns the statement of the first purpose, which names where the
// refusal came from.
func (u Usage) refuses(purposes []Purpose) (UsageStatement, bool) {
	if len(purposes) == 0 || u.IsZero() {
		return UsageStatement{}, false
	}
	var first UsageStatement
	for i, p := range purposes {
		s := u.Lookup(string(p))
		if s.Preference != PreferenceNo {
			return UsageStatement{}, false
		}
		if i == 0 {
			first = s
		}
	}
	return first, true
}
