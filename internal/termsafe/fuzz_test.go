package termsafe

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzLine checks that nothing Line, Text or JSON returns holds a character
// a terminal would act on, and that JSON keeps the decoded value.
func FuzzLine(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b]0;t\x07", "\x1b[2J", "a\u202eb", "\xff\x9b", "a\r\nb", "\U000E0041"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if out := Line(s); !Safe(out) {
			t.Fatalf("Line(%q) = %q", s, out)
		}
		for _, line := range strings.Split(Text(s), "\n") {
			if !Safe(strings.ReplaceAll(line, "\t", " ")) {
				t.Fatalf("Text(%q) holds the unsafe line %q", s, line)
			}
		}
		js, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		out := JSON(js)
		if !Safe(string(out)) {
			t.Fatalf("JSON(%s) = %s", js, out)
		}
		var a, b string
		if err := json.Unmarshal(js, &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &b); err != nil || a != b {
			t.Fatalf("JSON changed the value: %q -> %q (%v)", a, b, err)
		}
	})
}
