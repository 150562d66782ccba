package robotsext

// This file holds the AI usage preferences a site states: the vocabulary
// (Purpose, Preference), the value that carries the preferences in force
// (Usage) and Policy.Usage. The engine (internal/robotstxt, usage.go and
// usagerules.go) reads them from robots.txt and combines them; these types
// wrap its values. usagehook.go enforces them for a crawler that declares
// its purposes. See docs/usage-preferences.md for the drafts they follow.

import (
	"strconv"
	"strings"

	"github.com/robotsext/robotsext/internal/robotstxt"
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
	u robotstxt.Usage // the statements, encoded by the engine
}

// IsZero reports whether u states nothing at all.
func (u Usage) IsZero() bool { return u.u.IsZero() }

// Statements returns the statements of u, sorted by key.
func (u Usage) Statements() []UsageStatement {
	var out []UsageStatement
	for _, s := range u.u.Statements() {
		out = append(out, statementOf(s))
	}
	return out
}

// Lookup returns the statement for key, or one with PreferenceNone and
// SourceNone when u has none.
func (u Usage) Lookup(key string) UsageStatement { return statementOf(u.u.Lookup(key)) }

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

// statementOf is the engine's statement as a UsageStatement: the
// preferences and sources are numbered alike (see the checks below).
func statementOf(s robotstxt.Statement) UsageStatement {
	return UsageStatement{Key: s.Key, Preference: Preference(s.Preference), Source: UsageSource(s.Source), Line: s.Line}
}

// The engine numbers preferences and sources as this package does; each
// pair of constants below fails to compile if one stops doing so.
const (
	_ uint8 = uint8(PreferenceNone) - uint8(robotstxt.PreferenceNone)
	_ uint8 = uint8(robotstxt.PreferenceNone) - uint8(PreferenceNone)
	_ uint8 = uint8(PreferenceYes) - uint8(robotstxt.PreferenceYes)
	_ uint8 = uint8(robotstxt.PreferenceYes) - uint8(PreferenceYes)
	_ uint8 = uint8(PreferenceNo) - uint8(robotstxt.PreferenceNo)
	_ uint8 = uint8(robotstxt.PreferenceNo) - uint8(PreferenceNo)
	_ uint8 = uint8(SourceNone) - uint8(robotstxt.SourceNone)
	_ uint8 = uint8(robotstxt.SourceNone) - uint8(SourceNone)
	_ uint8 = uint8(SourceContentUsage) - uint8(robotstxt.SourceContentUsage)
	_ uint8 = uint8(robotstxt.SourceContentUsage) - uint8(SourceContentUsage)
	_ uint8 = uint8(SourceContentSignal) - uint8(robotstxt.SourceContentSignal)
	_ uint8 = uint8(robotstxt.SourceContentSignal) - uint8(SourceContentSignal)
	_ uint8 = uint8(SourceHeader) - uint8(robotstxt.SourceHeader)
	_ uint8 = uint8(robotstxt.SourceHeader) - uint8(SourceHeader)
)

// merge combines u with the statements of other, most restrictive first,
// as a page's robots.txt preferences and its header combine.
func (u Usage) merge(other Usage) Usage { return Usage{u.u.Merge(other.u)} }

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

// headerUsage reads the Content-Usage header fields of a response (several
// fields are one Dictionary, RFC 9651 §4.2); nothing when there are none
// or they do not parse.
func headerUsage(fields []string) Usage { return Usage{robotstxt.HeaderUsage(fields)} }

// Usage returns the AI usage preferences robots.txt states for the crawler
// whose product token is token (see ProductToken; a string that is not a
// product token gets the "*" groups' preferences, and ValidToken says so)
// at rawURL (as Check reads it): the
// Content-Usage lines (draft-ietf-aipref-attach) and Content-Signal lines
// of the groups Check would choose, with the longest matching path
// deciding and conflicts on one path resolved to the most restrictive.
// Preferences concern only what may be crawled: a URL Check disallows has
// none. A nil Policy states nothing.
func (p *Policy) Usage(token, rawURL string) Usage {
	return Usage{p.engine().Usage(token, rawURL)}
}
