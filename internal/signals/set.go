package signals

// This file holds a Set: the statements every mechanism made for one URL
// or page, as one comparable value, and the preference in force for each
// key, read from it.

import (
	"slices"
	"strconv"
	"strings"
)

// Set is the statements made for one URL or page, at most one per key and
// Source: each mechanism's own statement (for a path-scoped one, what its
// longest match says, see PathMatches), kept side by side. Lookup and
// Statements combine them into the one in force per key; All lists them
// as made.
//
// A Set is a small comparable value: two sets of the same statements
// compare equal with ==, whatever order they were made in. The zero value
// states nothing.
type Set struct {
	// enc holds the statements sorted by key, then Source, then line,
	// each as key '\x1f' preference source line '\x1e' (preference and
	// source one decimal digit each, line in decimal). Keys are
	// Structured Field keys or vocabulary keys, which hold neither
	// separator.
	enc string
}

// SetOf returns the Set of stmts. Statements of one key and one Source
// combine to the most restrictive (Combine's rule); statements of
// different Sources are all kept. A statement with an empty key, or a key
// holding a separator or a control character, is dropped. stmts is
// reordered.
func SetOf(stmts []Statement) Set {
	stmts = slices.DeleteFunc(stmts, func(s Statement) bool { return !storable(s) })
	if len(stmts) == 0 {
		return Set{}
	}
	slices.SortFunc(stmts, order)
	var b strings.Builder
	for i := 0; i < len(stmts); {
		// The run of one key and one Source: its most restrictive
		// statement, the earliest line on a tie.
		s := stmts[i]
		for i++; i < len(stmts) && stmts[i].Key == s.Key && stmts[i].Source == s.Source; i++ {
			if stmts[i].Preference > s.Preference {
				s = stmts[i]
			}
		}
		b.WriteString(s.Key)
		b.WriteByte('\x1f')
		b.WriteByte('0' + byte(s.Preference))
		b.WriteByte('0' + byte(s.Source))
		b.WriteString(strconv.Itoa(s.Line))
		b.WriteByte('\x1e')
	}
	return Set{enc: b.String()}
}

// storable reports whether s fits the encoding: a key of printable ASCII
// without the separators, a known Preference and Source, a line ≥ 0.
func storable(s Statement) bool {
	if s.Key == "" || s.Preference > No || s.Source >= numSources || s.Line < 0 {
		return false
	}
	for i := 0; i < len(s.Key); i++ {
		if c := s.Key[i]; c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

// order sorts statements by key, then Source, then line.
func order(a, b Statement) int {
	if c := strings.Compare(a.Key, b.Key); c != 0 {
		return c
	}
	if a.Source != b.Source {
		return int(a.Source) - int(b.Source)
	}
	return a.Line - b.Line
}

// IsZero reports whether s states nothing at all.
func (s Set) IsZero() bool { return s.enc == "" }

// All returns every statement of s, sorted by key, then Source.
func (s Set) All() []Statement {
	var out []Statement
	for rest := s.enc; rest != ""; {
		var e string
		e, rest, _ = strings.Cut(rest, "\x1e")
		out = append(out, decode(e))
	}
	return out
}

// Statements returns the statement in force for each key of s, sorted by
// key: per key the most restrictive of its Sources' (Combine's rule).
func (s Set) Statements() []Statement {
	var out []Statement
	for _, st := range s.All() {
		if n := len(out); n > 0 && out[n-1].Key == st.Key {
			if st.Preference > out[n-1].Preference {
				out[n-1] = st
			}
			continue
		}
		out = append(out, st)
	}
	return out
}

// Lookup returns the statement in force for key: the most restrictive of
// its Sources', the earliest Source on a tie; or a Statement with only Key
// set when s has none. It does not allocate.
func (s Set) Lookup(key string) Statement {
	best, found := Statement{Key: key}, false
	for rest := s.enc; rest != ""; {
		var e string
		e, rest, _ = strings.Cut(rest, "\x1e")
		if k, _, _ := strings.Cut(e, "\x1f"); k == key {
			if st := decode(e); !found || st.Preference > best.Preference {
				best, found = st, true
			}
		} else if found {
			break // the key's statements are contiguous
		}
	}
	return best
}

// Merge returns the statements of s and o together. A statement of a key
// and Source both hold combines to the more restrictive.
func (s Set) Merge(o Set) Set {
	switch {
	case o.IsZero():
		return s
	case s.IsZero():
		return o
	}
	return SetOf(append(s.All(), o.All()...))
}

// With returns s with stmts added, as Merge does.
func (s Set) With(stmts ...Statement) Set {
	if len(stmts) == 0 {
		return s
	}
	return SetOf(append(s.All(), stmts...))
}

// decode reads one encoded statement.
func decode(e string) Statement {
	k, v, _ := strings.Cut(e, "\x1f")
	s := Statement{Key: k}
	if len(v) >= 2 {
		s.Preference, s.Source = Preference(v[0]-'0'), Source(v[1]-'0')
		s.Line, _ = strconv.Atoi(v[2:])
	}
	return s
}
