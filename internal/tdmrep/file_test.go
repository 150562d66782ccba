package tdmrep

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// lookupCase is one path looked up in a file, and the rule expected.
type lookupCase struct {
	path   string
	index  int // -1: no rule matches
	res    Reservation
	policy string
}

func checkLookups(t *testing.T, f *File, cases []lookupCase) {
	t.Helper()
	for _, c := range cases {
		r, ok := f.Lookup(c.path)
		switch {
		case c.index < 0 && ok:
			t.Errorf("Lookup(%q) = rule %d; want none", c.path, r.Index)
		case c.index < 0:
		case !ok:
			t.Errorf("Lookup(%q) found nothing; want rule %d", c.path, c.index)
		case r.Index != c.index || r.Reservation != c.res || r.Policy != c.policy:
			t.Errorf("Lookup(%q) = rule %d %v %q; want rule %d %v %q", c.path, r.Index, r.Reservation, r.Policy, c.index, c.res, c.policy)
		}
	}
}

func mustParse(t *testing.T, body string) *File {
	t.Helper()
	f, err := Parse([]byte(body))
	if err != nil {
		t.Fatalf("Parse(%q): %v", body, err)
	}
	return f
}

// The report's first example: one rule reserving the whole site.
func TestParseWholeSite(t *testing.T) {
	t.Parallel()
	f := mustParse(t, `[ {"location": "/", "tdm-reservation": 1} ]`)
	checkLookups(t, f, []lookupCase{
		{"/", 0, Reserved, ""},
		{"/any/page.html?x=1", 0, Reserved, ""},
	})
	if f.IssueCount() != 0 {
		t.Errorf("issues %v", f.Issues())
	}
}

// The report's second example, with other directories and file types: a
// directory reserved without a policy, one reserved with a policy, and one
// kind of file in a third left free.
func TestParseThreeGroups(t *testing.T) {
	t.Parallel()
	f := mustParse(t, `[
	  {"location": "/archive/", "tdm-reservation": 1},
	  {"location": "/shop/pages/", "tdm-reservation": 1, "tdm-policy": "https://publisher.example/tdm/offer.json"},
	  {"location": "/shop/pictures/*.png", "tdm-reservation": 0}
	]`)
	checkLookups(t, f, []lookupCase{
		{"/archive/2019/annual.pdf", 0, Reserved, ""},
		{"/shop/pages/index.html", 1, Reserved, "https://publisher.example/tdm/offer.json"},
		{"/shop/pictures/cat.png", 2, NotReserved, ""},
		{"/shop/pictures/sub/dog.png?w=200", 2, NotReserved, ""},
		{"/shop/pictures/cat.gif", -1, 0, ""},
		{"/shop/", -1, 0, ""},
		{"/archive", -1, 0, ""},
	})
	if f.Len() != 3 || len(f.Rules()) != 3 || f.Rules()[1].Location != "/shop/pages/" {
		t.Errorf("Rules() = %v", f.Rules())
	}
}

// The first matching rule decides, even when a later one is longer: the
// report's "most specific match is the first in sequence".
func TestLookupFirstInSequence(t *testing.T) {
	t.Parallel()
	f := mustParse(t, `[
	  {"location": "/news/", "tdm-reservation": 1},
	  {"location": "/news/open/", "tdm-reservation": 0},
	  {"location": "/", "tdm-reservation": 0},
	  {"location": "/blog/", "tdm-reservation": 1}
	]`)
	checkLookups(t, f, []lookupCase{
		{"/news/open/a", 0, Reserved, ""},
		{"/news/b", 0, Reserved, ""},
		{"/blog/c", 2, NotReserved, ""},
		{"/d", 2, NotReserved, ""},
	})
}

func TestParseRuleLeniency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, rule string
		res        Reservation
		policy     string
		issue      string // "": none
	}{
		{"number 1", `{"location":"/","tdm-reservation":1}`, Reserved, "", ""},
		{"number 0", `{"location":"/","tdm-reservation":0}`, NotReserved, "", ""},
		{"number 1.0", `{"location":"/","tdm-reservation":1.0}`, Reserved, "", ""},
		{"number 1e0", `{"location":"/","tdm-reservation":1e0}`, Reserved, "", ""},
		{"string 1", `{"location":"/","tdm-reservation":"1"}`, Reserved, "", ""},
		{"string 0 with spaces", `{"location":"/","tdm-reservation":" 0 "}`, NotReserved, "", ""},
		{"true", `{"location":"/","tdm-reservation":true}`, Reserved, "", ""},
		{"false", `{"location":"/","tdm-reservation":false}`, NotReserved, "", ""},
		{"number 2", `{"location":"/","tdm-reservation":2}`, Unset, "", "tdm-reservation is neither 0 nor 1"},
		{"number -1", `{"location":"/","tdm-reservation":-1}`, Unset, "", "tdm-reservation is neither 0 nor 1"},
		{"string yes", `{"location":"/","tdm-reservation":"yes"}`, Unset, "", "tdm-reservation is neither 0 nor 1"},
		{"null", `{"location":"/","tdm-reservation":null}`, Unset, "", "tdm-reservation is neither 0 nor 1"},
		{"array", `{"location":"/","tdm-reservation":[1]}`, Unset, "", "tdm-reservation is neither 0 nor 1"},
		{"missing", `{"location":"/"}`, Unset, "", "no tdm-reservation"},
		{"upper-case names", `{"Location":"/","TDM-Reservation":1,"TDM-Policy":"https://p.example/"}`, Reserved, "https://p.example/", ""},
		{"duplicate: last wins", `{"location":"/","tdm-reservation":1,"tdm-reservation":0}`, NotReserved, "", ""},
		{"duplicate: last wins even if bad", `{"location":"/","tdm-reservation":1,"tdm-reservation":"x"}`, Unset, "", "tdm-reservation is neither 0 nor 1"},
		{"unknown properties ignored", `{"location":"/","x":{"y":[1,{"z":2}]},"tdm-reservation":1}`, Reserved, "", ""},
		{"policy kept with 0", `{"location":"/","tdm-reservation":0,"tdm-policy":"https://p.example/"}`, NotReserved, "https://p.example/", ""},
		{"policy not a string", `{"location":"/","tdm-reservation":1,"tdm-policy":7}`, Reserved, "", "tdm-policy dropped: not a string"},
		{"policy object", `{"location":"/","tdm-reservation":1,"tdm-policy":{"uid":"x"}}`, Reserved, "", "tdm-policy dropped: not a string"},
		{"policy empty", `{"location":"/","tdm-reservation":1,"tdm-policy":""}`, Reserved, "", ""},
		{"policy too long", `{"location":"/","tdm-reservation":1,"tdm-policy":"` + strings.Repeat("p", MaxPolicy+1) + `"}`, Reserved, "", "tdm-policy dropped: longer than 2048 octets or holds a control character"},
		{"policy control", `{"location":"/","tdm-reservation":1,"tdm-policy":"https://p.example/\n"}`, Reserved, "", "tdm-policy dropped: longer than 2048 octets or holds a control character"},
		{"policy at the bound", `{"location":"/","tdm-reservation":1,"tdm-policy":"` + strings.Repeat("p", MaxPolicy) + `"}`, Reserved, strings.Repeat("p", MaxPolicy), ""},
	}
	for _, tc := range tests {
		f := mustParse(t, "["+tc.rule+"]")
		r, ok := f.Lookup("/x")
		if !ok || r.Reservation != tc.res || r.Policy != tc.policy {
			t.Errorf("%s: Lookup = %v %v %q; want %v %q", tc.name, ok, r.Reservation, r.Policy, tc.res, tc.policy)
		}
		var issue string
		if is := f.Issues(); len(is) > 0 {
			issue = is[0].Reason
		}
		if issue != tc.issue || f.IssueCount() > 1 {
			t.Errorf("%s: issues %v; want %q", tc.name, f.Issues(), tc.issue)
		}
	}
}

// Rules whose location cannot be matched are ignored: the rules after them
// decide.
func TestParseRulesIgnored(t *testing.T) {
	t.Parallel()
	long := "/" + strings.Repeat("a", MaxLocation)
	f := mustParse(t, `[
	  1,
	  "text",
	  [ {"location": "/", "tdm-reservation": 1} ],
	  null,
	  {"tdm-reservation": 1},
	  {"location": 5, "tdm-reservation": 1},
	  {"location": "", "tdm-reservation": 1},
	  {"location": "https://site.example/", "tdm-reservation": 1},
	  {"location": "`+long+`", "tdm-reservation": 1},
	  {"location": "/ok/", "tdm-reservation": 1}
	]`)
	want := []string{
		"rule 0: not an object",
		"rule 1: not an object",
		"rule 2: not an object",
		"rule 3: not an object",
		"rule 4: no location",
		"rule 5: location is not a string",
		"rule 6: empty location",
		"rule 7: location does not start with / or *",
		"rule 8: location longer than 2048 octets",
	}
	var got []string
	for _, is := range f.Issues() {
		got = append(got, is.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("issues:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	checkLookups(t, f, []lookupCase{
		{"/ok/a", 9, Reserved, ""},
		{"/other", -1, 0, ""},
		{long, -1, 0, ""},
	})
	// A location at the bound is read.
	atBound := "/" + strings.Repeat("b", MaxLocation-1)
	g := mustParse(t, `[{"location":"`+atBound+`","tdm-reservation":1}]`)
	checkLookups(t, g, []lookupCase{{atBound, 0, Reserved, ""}})
}

func TestParseMalformed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body string
		notJSON    bool
	}{
		{"empty", "", true},
		{"spaces", " \n\t", true},
		{"html", "<!doctype html><title>Not found</title>", true},
		{"text", "User-agent: *", true},
		{"object", `{"location": "/", "tdm-reservation": 1}`, false},
		{"string", `"[]"`, false},
		{"null", `null`, false},
		{"number", `1`, false},
		{"unclosed", `[{"location": "/", "tdm-reservation": 1}`, false},
		{"unclosed object", `[{"location": "/"`, false},
		{"trailing comma", `[{"location": "/", "tdm-reservation": 1},]`, false},
		{"missing comma", `[{"location": "/"} {"location": "/a"}]`, false},
		{"single quotes", `[{'location': '/'}]`, false},
		{"comment", `[ // all
		  {"location": "/", "tdm-reservation": 1}]`, false},
		{"data after", `[] []`, false},
		{"text after", `[{"location": "/", "tdm-reservation": 1}] x`, false},
		{"bad escape", `[{"location": "/\q", "tdm-reservation": 1}]`, false},
		{"syntax error late", `[{"location": "/", "tdm-reservation": 1}, {"location": "/a", "tdm-reservation": 1 1}]`, false},
		{"deep nesting", "[" + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "]", false},
		{"deep nesting in a rule", `[{"location":"/","x":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}]`, false},
		{"too large", "[" + strings.Repeat(" ", MaxFileSize) + "]", false},
		{"BOM then html", "\xEF\xBB\xBF<html>", true},
	}
	for _, tc := range tests {
		f, err := Parse([]byte(tc.body))
		var pe *ParseError
		switch {
		case err == nil:
			t.Errorf("%s: Parse = %d rules, no error", tc.name, f.Len())
		case !errors.Is(err, ErrMalformed) || !errors.As(err, &pe):
			t.Errorf("%s: error %v (%T) is not a ParseError and ErrMalformed", tc.name, err, err)
		case errors.Is(err, ErrNotJSON) != tc.notJSON:
			t.Errorf("%s: errors.Is(%v, ErrNotJSON) = %v", tc.name, err, !tc.notJSON)
		case f != nil:
			t.Errorf("%s: a File with the error", tc.name)
		}
		// A nil File states nothing.
		if _, ok := f.Lookup("/"); ok {
			t.Errorf("%s: nil File matched", tc.name)
		}
	}
}

func TestParseErrorOffset(t *testing.T) {
	t.Parallel()
	body := `[{"location": "/", "tdm-reservation": 1}, x]`
	_, err := Parse([]byte(body))
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Offset < int64(strings.Index(body, "}")) || pe.Offset > int64(strings.Index(body, "x"))+1 {
		t.Fatalf("error %v; want one near octet %d", err, strings.Index(body, "x"))
	}
	if !strings.HasPrefix(err.Error(), "tdmrep.json: ") {
		t.Errorf("Error() = %q", err.Error())
	}
	// A BOM counts in the offset.
	_, err = Parse([]byte("\xEF\xBB\xBF[x]"))
	if !errors.As(err, &pe) || pe.Offset < 4 {
		t.Errorf("with a BOM: %v", err)
	}
}

func TestParseValidEdges(t *testing.T) {
	t.Parallel()
	nest := MaxDepth - 2 // below the array and the rule
	deep := `[{"location":"/","x":` + strings.Repeat("[", nest) + strings.Repeat("]", nest) + `}, ` + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + `]`
	for _, body := range []string{"[]", " [ ] \n", "\xEF\xBB\xBF[]", "[{}]", `[{"location":"/"}]`, deep} {
		f := mustParse(t, body)
		if body == "[]" && (f.Len() != 0 || f.IssueCount() != 0) {
			t.Errorf("%q: %d rules, issues %v", body, f.Len(), f.Issues())
		}
	}
	// A BOM before a valid array is skipped.
	f := mustParse(t, "\xEF\xBB\xBF"+`[{"location":"/a","tdm-reservation":1}]`)
	checkLookups(t, f, []lookupCase{{"/a", 0, Reserved, ""}})
	// Invalid UTF-8 in a location is read as U+FFFD (encoding/json) and
	// percent-encoded; it does not stop the file.
	f = mustParse(t, "[{\"location\":\"/\xff\",\"tdm-reservation\":1}]")
	checkLookups(t, f, []lookupCase{{"/%EF%BF%BD", 0, Reserved, ""}})
	// Escapes written in JSON are decoded by JSON first.
	f = mustParse(t, `[{"location":"/caf\u00e9/\u002a.txt$","tdm-reservation":1}]`)
	checkLookups(t, f, []lookupCase{{"/caf%C3%A9/a.txt", 0, Reserved, ""}, {"/caf%C3%A9/a.txt?x", -1, 0, ""}})
}

func TestParseMaxRules(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("[")
	for i := range MaxRules + 10 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"location":"/r` + strconv.Itoa(i) + `$","tdm-reservation":1}`)
	}
	b.WriteString("]")
	f := mustParse(t, b.String())
	if f.Len() != MaxRules {
		t.Fatalf("Len() = %d; want %d", f.Len(), MaxRules)
	}
	checkLookups(t, f, []lookupCase{
		{"/r0", 0, Reserved, ""},
		{"/r" + strconv.Itoa(MaxRules-1), MaxRules - 1, Reserved, ""},
		{"/r" + strconv.Itoa(MaxRules), -1, 0, ""},
	})
	is := f.Issues()
	if len(is) != 1 || is[0].Reason != "10 rules after the first 1024 ignored" {
		t.Errorf("issues %v", is)
	}
	// The rest must still be JSON.
	if _, err := Parse([]byte(b.String()[:b.Len()-1] + ",x]")); !errors.Is(err, ErrMalformed) {
		t.Errorf("a syntax error after MaxRules: %v", err)
	}
}

func TestIssuesBounded(t *testing.T) {
	t.Parallel()
	body := "[" + strings.Repeat("1,", 99) + "1]"
	f := mustParse(t, body)
	if len(f.Issues()) != MaxIssues || f.IssueCount() != 100 {
		t.Errorf("kept %d issues of %d; want %d of 100", len(f.Issues()), f.IssueCount(), MaxIssues)
	}
}

func TestFileSize(t *testing.T) {
	t.Parallel()
	small := mustParse(t, `[{"location":"/","tdm-reservation":1}]`)
	var b strings.Builder
	b.WriteString("[")
	for i := range 100 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`{"location":"/dir` + strconv.Itoa(i) + `/caf` + "\u00e9" + `","tdm-reservation":1,"tdm-policy":"https://p.example/policy.json"}`)
	}
	b.WriteString("]")
	big := mustParse(t, b.String())
	if small.Size() <= 0 || big.Size() < 100*len("/dir00/caf%C3%A9https://p.example/policy.json") || big.Size() > 4*b.Len()+1024 {
		t.Errorf("Size() small %d, big %d (body %d)", small.Size(), big.Size(), b.Len())
	}
	var nilFile *File
	if nilFile.Size() != 0 || nilFile.Len() != 0 || nilFile.Rules() != nil || nilFile.Issues() != nil || nilFile.IssueCount() != 0 {
		t.Error("nil File not empty")
	}
	if d := nilFile.Declaration("/"); d != (Declaration{}) {
		t.Errorf("nil File declares %+v", d)
	}
}

func TestFileDeclaration(t *testing.T) {
	t.Parallel()
	f := mustParse(t, `[
	  {"location":"/a/","tdm-reservation":1,"tdm-policy":"https://p.example/"},
	  {"location":"/b/","tdm-reservation":"maybe","tdm-policy":"https://q.example/"}
	]`)
	tests := []struct {
		path string
		want Declaration
	}{
		{"/a/x", Declaration{Reservation: Reserved, Policy: "https://p.example/", From: TechniqueFile, Rule: 0}},
		{"/b/x", Declaration{Policy: "https://q.example/"}},
		{"/c", Declaration{}},
	}
	for _, tc := range tests {
		if got := f.Declaration(tc.path); got != tc.want {
			t.Errorf("Declaration(%q) = %+v; want %+v", tc.path, got, tc.want)
		}
	}
}
