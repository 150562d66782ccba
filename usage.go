package robotsext

// This file holds the AI usage preferences a site states: the vocabulary
// (Purpose, Preference), the value that carries the statements made for a
// URL or page (Usage) and Policy.Usage. Package internal/signals reads and
// combines the statements of every mechanism, and the engine
// (internal/robotstxt, usagerules.go) resolves robots.txt's lines with it;
// these types wrap its values. usagehook.go enforces them for a crawler
// that declares its purposes. See docs/usage-preferences.md for the
// sources they follow.

import (
	"strings"

	"github.com/robotsext/robotsext/internal/signals"
	"github.com/robotsext/robotsext/usage"
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

// UsageSource says which mechanism made a statement of a Usage, and
// where (usage.Source, where it reads in full). Its String names it as a
// report shows it: "Content-Usage line", "tdmrep.json", "X-Robots-Tag"…
type UsageSource = usage.Source

// The UsageSource values; see usage.Source for each.
const (
	SourceNone                UsageSource = usage.SourceNone
	SourceContentUsage        UsageSource = usage.SourceContentUsage
	SourceContentSignal       UsageSource = usage.SourceContentSignal
	SourceContentUsageHeader  UsageSource = usage.SourceContentUsageHeader
	SourceContentSignalHeader UsageSource = usage.SourceContentSignalHeader
	SourceTDMRepFile          UsageSource = usage.SourceTDMRepFile
	SourceTDMRepHeader        UsageSource = usage.SourceTDMRepHeader
	SourceTDMRepMeta          UsageSource = usage.SourceTDMRepMeta
	SourceXRobotsTag          UsageSource = usage.SourceXRobotsTag
	SourceMetaRobots          UsageSource = usage.SourceMetaRobots
)

// SourceHeader is SourceContentUsageHeader, named before the other
// headers were read.
const SourceHeader = SourceContentUsageHeader

// UsageStatement is one mechanism's preference for one vocabulary key,
// and where it was stated.
type UsageStatement struct {
	// Key is the vocabulary key, such as "train-ai"; Content-Signal's
	// keys are mapped ("ai-train" to "train-ai"), TDMRep, noai and
	// noimageai state "train-ai", other keys are kept as written.
	Key string
	// Preference is yes, no, or no statement (a key written with a value
	// the vocabulary does not define).
	Preference Preference
	// Source is the mechanism; Line is the robots.txt line for the two
	// robots.txt sources, the rule's index for SourceTDMRepFile, else 0.
	Source UsageSource
	Line   int
}

// String returns "train-ai=n (Content-Usage line 4)", "train-ai=n
// (tdmrep.json rule 0)", "search=y (Content-Signal header)" and the like;
// "?" stands for no statement.
func (s UsageStatement) String() string { return s.signal().String() }

// signal is s in package signals' terms.
func (s UsageStatement) signal() signals.Statement {
	return signals.Statement{Key: s.Key, Preference: signals.Preference(s.Preference), Source: s.Source, Line: s.Line}
}

// Usage is the AI usage preferences stated for one URL or page. Each
// mechanism (a Content-Usage or Content-Signal line of robots.txt, the
// Content-Usage and Content-Signal headers, TDMRep, noai and noimageai)
// states its own preference per vocabulary key, and All lists them; the
// preference in force for a key is the most restrictive of them (no
// over yes over no statement, as draft-ietf-aipref-vocab combines
// preferences), which Statements, Lookup and For give. On a tie the
// statement of the earlier UsageSource is named.
//
// It is a small comparable value (two equal sets compare equal with ==),
// so that Verdict stays comparable; the zero value states nothing.
type Usage struct {
	s signals.Set
}

// IsZero reports whether u states nothing at all.
func (u Usage) IsZero() bool { return u.s.IsZero() }

// Statements returns the statement in force for each key, sorted by key.
func (u Usage) Statements() []UsageStatement { return statementsOf(u.s.Statements()) }

// All returns every mechanism's statement, sorted by key, then source:
// also those a more restrictive statement of another mechanism overrules.
func (u Usage) All() []UsageStatement { return statementsOf(u.s.All()) }

// Lookup returns the statement in force for key, or one with
// PreferenceNone and SourceNone when u has none.
func (u Usage) Lookup(key string) UsageStatement { return statementOf(u.s.Lookup(key)) }

// For returns the preference in force for purpose p.
func (u Usage) For(p Purpose) Preference { return u.Lookup(string(p)).Preference }

// String lists the statements in force, "search=y (Content-Signal line
// 3), train-ai=n (tdmrep.json rule 0)", or returns "no statement".
func (u Usage) String() string {
	if u.IsZero() {
		return "no statement"
	}
	return joinStatements(u.Statements())
}

// joinStatements lists statements, comma-separated.
func joinStatements(stmts []UsageStatement) string {
	var b strings.Builder
	for i, s := range stmts {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s.String())
	}
	return b.String()
}

// statementOf is a statement of package signals as a UsageStatement: the
// preferences are numbered alike (see the checks below).
func statementOf(s signals.Statement) UsageStatement {
	return UsageStatement{Key: s.Key, Preference: Preference(s.Preference), Source: s.Source, Line: s.Line}
}

func statementsOf(stmts []signals.Statement) []UsageStatement {
	if len(stmts) == 0 {
		return nil
	}
	out := make([]UsageStatement, len(stmts))
	for i, s := range stmts {
		out[i] = statementOf(s)
	}
	return out
}

// Package signals numbers preferences as this package does; each pair of
// constants below fails to compile if one stops doing so.
const (
	_ uint8 = uint8(PreferenceNone) - uint8(signals.None)
	_ uint8 = uint8(signals.None) - uint8(PreferenceNone)
	_ uint8 = uint8(PreferenceYes) - uint8(signals.Yes)
	_ uint8 = uint8(signals.Yes) - uint8(PreferenceYes)
	_ uint8 = uint8(PreferenceNo) - uint8(signals.No)
	_ uint8 = uint8(signals.No) - uint8(PreferenceNo)
)

// merge returns the statements of u and other together, as a page's
// robots.txt preferences and its headers combine.
func (u Usage) merge(other Usage) Usage { return Usage{u.s.Merge(other.s)} }

// with returns u with stmts added.
func (u Usage) with(stmts ...signals.Statement) Usage { return Usage{u.s.With(stmts...)} }

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

// Usage returns the AI usage preferences robots.txt states for the crawler
// whose product token is token (see ProductToken; a string that is not a
// product token gets the "*" groups' preferences, and ValidToken says so)
// at rawURL (as Check reads it): the
// Content-Usage lines (draft-ietf-aipref-attach) and Content-Signal lines
// of the groups Check would choose. Each of the two states its own
// preference, with its longest matching path deciding and conflicts on
// one path resolved to the most restrictive; the two then combine to the
// most restrictive.
// Preferences concern only what may be crawled: a URL Check disallows has
// none. A nil Policy states nothing.
func (p *Policy) Usage(token, rawURL string) Usage {
	return Usage{p.engine().Usage(token, rawURL)}
}
