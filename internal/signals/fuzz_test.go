package signals

import (
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
