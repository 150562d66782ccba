package signals

import (
	"slices"
	"strings"
	"testing"
)

// FuzzContentSignal reads any header value in both dialects: nothing
// panics; at most one statement per key, every key a Structured Field key
// and none of them "ai-train" once mapped; each preference one of the
// three; and the two dialects agree on which keys the value names.
func FuzzContentSignal(f *testing.F) {
	for _, s := range []string{
		"search=yes, ai-input=yes, ai-train=no",
		"ai-train=no;x=1, train-ai=yes",
		"train-ai=n, search=y",
		`ai-train="no", search=(yes no)`,
		"AI-Train=no",
		"a=1, a=?0, a=yes",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, value string) {
		sig := ContentSignalHeader([]string{value})
		use := ContentUsageHeader([]string{value})
		seen := map[string]bool{}
		for _, s := range sig {
			if seen[s.Key] || s.Key == "ai-train" || !isKey(s.Key) || s.Preference > No || s.Source != SourceContentSignalHeader || s.Line != 0 {
				t.Fatalf("ContentSignalHeader(%q): %v", value, sig)
			}
			seen[s.Key] = true
		}
		if (sig == nil) != (use == nil) {
			t.Fatalf("dialects disagree on %q: %v and %v", value, sig, use)
		}
		for _, s := range use {
			if !seen[SignalKey(s.Key)] {
				t.Fatalf("key %q of %q lost in Content-Signal: %v", s.Key, value, sig)
			}
		}
		// Split over two field lines at a comma, the value reads the same.
		if i := strings.IndexByte(value, ','); i > 0 && len(value) <= MaxFieldLen {
			two := ContentSignalHeader([]string{value[:i], value[i+1:]})
			if sig != nil && !sameSet(two, sig) {
				t.Fatalf("%q in two lines: %v; in one: %v", value, two, sig)
			}
		}
	})
}

// isKey reports whether k is an RFC 9651 key: lcalpha or '*', then
// lcalpha, digits, '_', '-', '.', '*'.
func isKey(k string) bool {
	if k == "" || !(k[0] >= 'a' && k[0] <= 'z' || k[0] == '*') {
		return false
	}
	for i := 1; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("_-.*", c) >= 0) {
			return false
		}
	}
	return true
}

// FuzzSet builds a Set from statements decoded from the input: nothing
// panics; at most one statement per key and source, sorted; the Set
// survives its encoding, whatever the order of its statements; the
// statement in force for a key is the most restrictive of its own, the
// earliest source on a tie.
func FuzzSet(f *testing.F) {
	f.Add([]byte("train-ai\x00\x02\x02\x03search\x00\x01\x02\x03train-ai\x00\x01\x01\x04"), uint8(3))
	f.Add([]byte("k\x00\x02\x05\x00k\x00\x02\x03\x07"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, rot uint8) {
		var stmts []Statement
		for len(data) > 0 && len(stmts) < 64 {
			k, rest, ok := strings.Cut(string(data), "\x00")
			if !ok || len(rest) < 3 {
				break
			}
			stmts = append(stmts, Statement{Key: k, Preference: Preference(rest[0] % 4), Source: Source(rest[1] % 12), Line: int(rest[2])})
			data = []byte(rest[3:])
		}
		s := SetOf(slices.Clone(stmts))
		all := s.All()
		for i, st := range all {
			if !storable(st) || i > 0 && order(all[i-1], st) >= 0 || i > 0 && all[i-1].Key == st.Key && all[i-1].Source == st.Source {
				t.Fatalf("%v from %v", all, stmts)
			}
			in := s.Lookup(st.Key)
			if in.Preference < st.Preference || in.Preference == st.Preference && in.Source > st.Source {
				t.Fatalf("in force for %q: %v, yet %v", st.Key, in, st)
			}
		}
		if SetOf(all) != s {
			t.Fatalf("%v does not survive its encoding", all)
		}
		if len(stmts) > 0 {
			r := int(rot) % len(stmts)
			if rotated := SetOf(append(slices.Clone(stmts[r:]), stmts[:r]...)); rotated != s {
				t.Fatalf("order changed the Set: %v and %v", rotated.All(), all)
			}
		}
		for _, st := range s.Statements() {
			if s.Lookup(st.Key) != st {
				t.Fatalf("Statements and Lookup disagree on %q", st.Key)
			}
		}
	})
}
