// Package signals is the model of the AI usage preferences a site states,
// shared by every mechanism it may state them with: a Statement (a key,
// yes, no or nothing, and where it came from), how the statements of one
// path-scoped mechanism resolve for a path (PathMatches), how the
// statements of different mechanisms combine (Combine), and the
// comparable value that carries them for one URL (Set).
//
// The mechanisms: the Content-Usage lines and header of the IETF aipref
// drafts, Cloudflare's Content-Signal lines and header, TDMRep's
// tdm-reservation (package tdmrep), and the noai and noimageai robots
// directives. Each states its own preference for a URL; they combine to
// the most restrictive, as draft-ietf-aipref-vocab's "Combining
// Preferences" says: any no is no, else any yes is yes, else nothing.
//
// The package is pure: it reads strings and returns values. Its Source is
// package usage's Source, which the root package names UsageSource, and
// its Preference numbers
// are those of the root's Preference, so the conversion is a cast (the
// root checks it at compile time).
package signals

import (
	"slices"
	"strconv"
	"strings"

	"github.com/robotsext/robotsext/usage"
)

// The vocabulary keys the package maps other mechanisms onto
// (draft-ietf-aipref-vocab), and Content-Signal's key the vocabulary does
// not name.
const (
	// KeyTrainAI is training AI models ("train-ai"; Content-Signal's
	// "ai-train").
	KeyTrainAI = "train-ai"
	// KeySearch is building a search index and showing results that link
	// to the content ("search").
	KeySearch = "search"
	// KeyAIInput is feeding content into a model's answer at the time of
	// use (Content-Signal's "ai-input", kept under its own name).
	KeyAIInput = "ai-input"
)

// Preference is what a statement says about one use: nothing, yes or no.
// The values are ordered from the least to the most restrictive; the zero
// value is None.
type Preference uint8

const (
	// None: no statement (a value the mechanism does not define).
	None Preference = iota
	// Yes: the use is allowed.
	Yes
	// No: the use is not wanted.
	No
)

// String returns "y", "n" or "?".
func (p Preference) String() string {
	switch p {
	case Yes:
		return "y"
	case No:
		return "n"
	}
	return "?"
}

// Source says which mechanism made a statement, and where (usage.Source,
// the public type the root package names UsageSource).
type Source = usage.Source

// The Source values.
const (
	SourceNone                = usage.SourceNone
	SourceContentUsage        = usage.SourceContentUsage
	SourceContentSignal       = usage.SourceContentSignal
	SourceContentUsageHeader  = usage.SourceContentUsageHeader
	SourceContentSignalHeader = usage.SourceContentSignalHeader
	SourceTDMRepFile          = usage.SourceTDMRepFile
	SourceTDMRepHeader        = usage.SourceTDMRepHeader
	SourceTDMRepMeta          = usage.SourceTDMRepMeta
	SourceXRobotsTag          = usage.SourceXRobotsTag
	SourceMetaRobots          = usage.SourceMetaRobots

	numSources = Source(usage.NumSources)
)

// Statement is one preference a site states for one key, and where.
type Statement struct {
	// Key is the vocabulary key, such as "train-ai". Content-Signal's
	// keys are mapped ("ai-train" to "train-ai"); other mechanisms
	// state train-ai; unknown keys are kept as written.
	Key string
	// Preference is yes, no, or None (the key was written with a value
	// the mechanism does not define).
	Preference Preference
	// Source is the mechanism that stated it.
	Source Source
	// Line is the robots.txt line for the two robots.txt sources, the
	// rule's index for SourceTDMRepFile, and 0 otherwise.
	Line int
}

// String returns "train-ai=n (Content-Signal line 4)", "train-ai=n
// (tdmrep.json rule 0)", "search=y (Content-Usage header)" and the like.
func (s Statement) String() string {
	kv := s.Key + "=" + s.Preference.String()
	switch s.Source {
	case SourceNone:
		return kv
	case SourceContentUsage, SourceContentSignal:
		return kv + " (" + s.Source.String() + " " + strconv.Itoa(s.Line) + ")"
	case SourceTDMRepFile:
		return kv + " (tdmrep.json rule " + strconv.Itoa(s.Line) + ")"
	}
	return kv + " (" + s.Source.String() + ")"
}

// before reports whether s wins a tie with o: the same preference, s from
// an earlier Source, or the same Source and an earlier line.
func (s Statement) before(o Statement) bool {
	if s.Source != o.Source {
		return s.Source < o.Source
	}
	return s.Line < o.Line
}

// Combine adds the statements of more to acc, which holds at most one
// statement per key, and returns it: for each key the most restrictive
// statement stays (no over yes over none, the vocabulary's combining
// rule). On a tie the statement of the earlier Source stays, then the one
// of the earlier line, so the result does not depend on the order in which
// statements come. acc's array is reused.
func Combine(acc []Statement, more ...Statement) []Statement {
	for _, s := range more {
		i := slices.IndexFunc(acc, func(a Statement) bool { return a.Key == s.Key })
		switch {
		case i < 0:
			acc = append(acc, s)
		case s.Preference > acc[i].Preference,
			s.Preference == acc[i].Preference && s.before(acc[i]):
			acc[i] = s
		}
	}
	return acc
}

// Lookup returns the statement for key in stmts, or a Statement with only
// Key set (None, SourceNone) when there is none.
func Lookup(stmts []Statement, key string) Statement {
	for _, s := range stmts {
		if s.Key == key {
			return s
		}
	}
	return Statement{Key: key}
}

// SortByKey sorts statements by key, the order a report lists them in.
func SortByKey(stmts []Statement) {
	slices.SortFunc(stmts, func(a, b Statement) int { return strings.Compare(a.Key, b.Key) })
}
