package tdmrep

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// FuzzTDMRep reads any body as a tdmrep.json and looks any path up in it:
// nothing panics or hangs; an error is ErrMalformed, and only for bodies
// that are not a JSON array within the bounds; a File keeps the bounds; and
// Lookup finds the first rule that a plain reference matcher finds.
func FuzzTDMRep(f *testing.F) {
	for _, s := range []struct{ body, path string }{
		{`[{"location":"/","tdm-reservation":1}]`, "/a"},
		{`[{"location":"/a/","tdm-reservation":1},{"location":"/*.png$","tdm-reservation":0,"tdm-policy":"https://p.example/"}]`, "/b/c.png"},
		{`[{"location":"*x*y$","tdm-reservation":"1"}]`, "/axbyy"},
		{`{"location":"/","tdm-reservation":1}`, "/"},
		{`[1,"a",null,[],{}]`, "/"},
		{"\xEF\xBB\xBF[]", "/"},
		{"<html>", "/"},
	} {
		f.Add([]byte(s.body), s.path)
	}
	f.Fuzz(func(t *testing.T, body []byte, path string) {
		file, err := Parse(body)
		if err != nil {
			if !errors.Is(err, ErrMalformed) || file != nil {
				t.Fatalf("Parse: %v (%T), file %v", err, err, file)
			}
			if wellFormed(body) {
				t.Fatalf("Parse(%q) refused a JSON array within the bounds: %v", body, err)
			}
			return
		}
		if !json.Valid(bytes.TrimPrefix(body, []byte("\xEF\xBB\xBF"))) {
			t.Fatalf("Parse(%q) read a body that is not JSON", body)
		}
		rules := file.Rules()
		if len(rules) > MaxRules || len(file.Issues()) > MaxIssues || file.IssueCount() < len(file.Issues()) {
			t.Fatalf("bounds: %d rules, %d issues of %d", len(rules), len(file.Issues()), file.IssueCount())
		}
		want := -1
		for i, r := range rules {
			if r.Location == "" || len(r.Location) > MaxLocation || r.Location[0] != '/' && r.Location[0] != '*' || len(r.Policy) > MaxPolicy {
				t.Fatalf("rule %d out of bounds: %+v", i, r)
			}
			if i > 0 && r.Index <= rules[i-1].Index {
				t.Fatalf("rules out of order: %+v", rules)
			}
			if want < 0 && refMatch(normalise(r.Location), path) {
				want = i
			}
		}
		got, ok := file.Lookup(path)
		switch {
		case want < 0 && ok:
			t.Fatalf("Lookup(%q) = %+v; the reference matches nothing", path, got)
		case want >= 0 && (!ok || got != rules[want]):
			t.Fatalf("Lookup(%q) = %+v, %v; the reference finds %+v", path, got, ok, rules[want])
		}
	})
}

// refMatch is a plain reference for pattern.match: dynamic programming over
// the pattern and path, with '*' any run and a final '$' the end.
func refMatch(pat, path string) bool {
	anchored := strings.HasSuffix(pat, "$")
	if anchored {
		pat = pat[:len(pat)-1]
	}
	// can[j]: pat[:i] can match path[:j].
	can := make([]bool, len(path)+1)
	can[0] = true
	for i := 0; i < len(pat); i++ {
		next := make([]bool, len(path)+1)
		for j := 0; j <= len(path); j++ {
			if pat[i] == '*' {
				next[j] = can[j] || j > 0 && next[j-1]
			} else {
				next[j] = j > 0 && can[j-1] && path[j-1] == pat[i]
			}
		}
		can = next
	}
	if anchored {
		return can[len(path)]
	}
	for _, ok := range can {
		if ok {
			return true
		}
	}
	return false
}

// wellFormed reports whether Parse must read body: a JSON array (after an
// optional byte order mark) within MaxFileSize and MaxDepth.
func wellFormed(body []byte) bool {
	if len(body) > MaxFileSize {
		return false
	}
	body = bytes.TrimPrefix(body, []byte("\xEF\xBB\xBF"))
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if !json.Valid(body) || len(trimmed) == 0 || trimmed[0] != '[' {
		return false
	}
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest <= MaxDepth
}

// FuzzDeclaration reads any header values and meta contents: nothing
// panics; the reservation is what a plain split of the values finds; a
// policy kept is within MaxPolicy and holds no control character.
func FuzzDeclaration(f *testing.F) {
	f.Add("1", "https://p.example/policy.json")
	f.Add("0, 1", " https://p.example/a,b ")
	f.Add("yes", "\x1b]0;x\x07")
	f.Fuzz(func(t *testing.T, res, pol string) {
		want := Unset
		for _, el := range strings.Split(res, ",") {
			switch strings.Trim(el, " \t") {
			case "1":
				want = Reserved
			case "0":
				want = max(want, NotReserved)
			}
		}
		d := FromHeader([]string{res}, []string{pol})
		if d.Reservation != want || (d.From == TechniqueHeader) != (want != Unset) {
			t.Fatalf("FromHeader(%q) = %+v; want %v", res, d, want)
		}
		if len(d.Policy) > MaxPolicy || strings.ContainsFunc(d.Policy, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			t.Fatalf("policy %q kept", d.Policy)
		}
		if d.Policy != "" && d.Policy != strings.Trim(pol, " \t") {
			t.Fatalf("policy %q from %q", d.Policy, pol)
		}
		var m Declaration
		m.AddMeta(NameReservation, res)
		m.AddMeta(NamePolicy, pol)
		if m.Reservation != d.Reservation || m.Policy != d.Policy {
			t.Fatalf("meta %+v, header %+v", m, d)
		}
	})
}
