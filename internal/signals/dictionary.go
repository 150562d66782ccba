package signals

// This file reads a preference written as an RFC 9651 Dictionary: the
// value of a Content-Usage or Content-Signal line of robots.txt after its
// path, and the Content-Usage and Content-Signal response headers.

import (
	"strings"

	"github.com/dunglas/httpsfv"
)

// Dialect is how a Dictionary of preferences is written.
type Dialect uint8

const (
	// DialectContentUsage: the aipref vocabulary (draft-ietf-aipref-vocab):
	// the tokens y and n; keys as written.
	DialectContentUsage Dialect = iota
	// DialectContentSignal: Cloudflare's Content Signals: the tokens yes
	// and no; "ai-train" is the vocabulary's "train-ai".
	DialectContentSignal
)

// MaxFieldLen bounds the Dictionary ParseDictionary reads, in octets (all
// field lines of a header together); a longer one states nothing.
// Sites write a few dozen octets.
const MaxFieldLen = 8 << 10

// SignalKey maps a Content-Signal key to the vocabulary's: "ai-train" is
// "train-ai"; "search" is the same word and other keys are kept as
// written.
func SignalKey(k string) string {
	if k == "ai-train" {
		return KeyTrainAI
	}
	return k
}

// ParseDictionary reads a preference, an RFC 9651 Dictionary, written in
// dialect d, into statements of Source src at line. The tokens of the
// dialect (y and n, or yes and no) state a preference; any other value
// (a string, a number, an inner list, the other dialect's tokens) states
// None for its key. Parameters are ignored. A key written twice takes its
// last value (RFC 9651 §4.2.2); keys the dialect maps onto the same
// vocabulary key combine to the most restrictive; unknown keys are kept.
// A Dictionary that does not parse (an upper-case key, a trailing comma)
// or is longer than MaxFieldLen states nothing: nil.
func ParseDictionary(value string, d Dialect, src Source, line int) []Statement {
	if len(value) > MaxFieldLen {
		return nil
	}
	dict, err := httpsfv.UnmarshalDictionary([]string{value})
	if err != nil {
		return nil
	}
	yes, no := httpsfv.Token("y"), httpsfv.Token("n")
	if d == DialectContentSignal {
		yes, no = httpsfv.Token("yes"), httpsfv.Token("no")
	}
	names := dict.Names()
	if len(names) == 0 {
		return nil
	}
	out := make([]Statement, 0, len(names))
	for _, k := range names {
		m, _ := dict.Get(k)
		s := Statement{Key: k, Source: src, Line: line}
		if d == DialectContentSignal {
			s.Key = SignalKey(k)
		}
		if it, ok := m.(httpsfv.Item); ok {
			switch it.Value {
			case yes:
				s.Preference = Yes
			case no:
				s.Preference = No
			}
		}
		out = Combine(out, s)
	}
	return out
}

// ContentUsageHeader reads the Content-Usage fields of a response
// (http.Header.Values): several field lines are one Dictionary (RFC 9651
// §4.2). Nothing when there are none or they do not parse.
func ContentUsageHeader(fields []string) []Statement {
	return headerDictionary(fields, DialectContentUsage, SourceContentUsageHeader)
}

// ContentSignalHeader reads the Content-Signal fields of a response, the
// same syntax as the robots.txt line (search=yes, ai-train=no, ai-input=yes):
// several field lines are one Dictionary. Nothing when there are none or
// they do not parse.
func ContentSignalHeader(fields []string) []Statement {
	return headerDictionary(fields, DialectContentSignal, SourceContentSignalHeader)
}

func headerDictionary(fields []string, d Dialect, src Source) []Statement {
	switch len(fields) {
	case 0:
		return nil
	case 1:
		return ParseDictionary(fields[0], d, src, 0)
	}
	n := 0
	for _, f := range fields {
		n += len(f) + 2
	}
	if n > MaxFieldLen+2 {
		return nil
	}
	return ParseDictionary(strings.Join(fields, ", "), d, src, 0)
}
