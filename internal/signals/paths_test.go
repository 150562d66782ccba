package signals

import "testing"

// usageLine is a robots.txt usage line that matches the path under test:
// its source, pattern and preference, as the robots.txt engine would hand
// them over.
type usageLine struct {
	src     Source
	line    int
	pattern string
	pref    string
}

// resolve runs lines through PathMatches as the robots.txt engine is to:
// every line given matches the path.
func resolve(lines []usageLine) []Statement {
	var m PathMatches
	for _, l := range lines {
		d := DialectContentUsage
		if l.src == SourceContentSignal {
			d = DialectContentSignal
		}
		m.Add(l.src, len(l.pattern), ParseDictionary(l.pref, d, l.src, l.line))
	}
	return m.Statements(nil)
}

// The round-4 defect: a "*" group with
//
//	Content-Signal: search=yes, ai-train=no     (line 2, every path)
//	Content-Usage: /open/ train-ai=y            (line 3)
//
// had /open/a fetched by a crawl declaring train-ai. The longest path
// decides among the rules of one mechanism; the two mechanisms then
// combine, and the Content-Signal no holds.
func TestRound4SignalNotHiddenByLongerUsage(t *testing.T) {
	t.Parallel()
	signal := usageLine{SourceContentSignal, 2, "/", "search=yes, ai-train=no"}
	usage := usageLine{SourceContentUsage, 3, "/open/", "train-ai=y"}
	for _, order := range [][]usageLine{{signal, usage}, {usage, signal}} {
		got := resolve(order)
		want := []Statement{
			stmt("train-ai", No, SourceContentSignal, 2),
			stmt("search", Yes, SourceContentSignal, 2),
		}
		if !sameSet(got, want) {
			t.Errorf("/open/a: %v; want %v", got, want)
		}
	}
	// Elsewhere on the site only the Content-Signal line matches.
	got := resolve([]usageLine{signal})
	if s := Lookup(got, "train-ai"); s != stmt("train-ai", No, SourceContentSignal, 2) {
		t.Errorf("/b: train-ai %v", s)
	}
}

// The reverse: a Content-Usage no for every path is not lifted by a
// longer Content-Signal yes.
func TestRound4UsageNotHiddenByLongerSignal(t *testing.T) {
	t.Parallel()
	got := resolve([]usageLine{
		{SourceContentUsage, 2, "/", "train-ai=n"},
		{SourceContentSignal, 3, "/open/", "ai-train=yes, search=yes"},
	})
	want := []Statement{
		stmt("train-ai", No, SourceContentUsage, 2),
		stmt("search", Yes, SourceContentSignal, 3),
	}
	if !sameSet(got, want) {
		t.Errorf("%v; want %v", got, want)
	}
}

// The attach draft's own example, within one mechanism: the longest path
// decides, so /ai-ok/ lifts the group-wide "n".
func TestAttachDraftExample(t *testing.T) {
	t.Parallel()
	all := usageLine{SourceContentUsage, 4, "/", "train-ai=n"}
	ok := usageLine{SourceContentUsage, 5, "/ai-ok/", "train-ai=y"}
	if s := Lookup(resolve([]usageLine{all}), "train-ai"); s != stmt("train-ai", No, SourceContentUsage, 4) {
		t.Errorf("/test: %v", s)
	}
	if s := Lookup(resolve([]usageLine{ok, all}), "train-ai"); s != stmt("train-ai", Yes, SourceContentUsage, 5) {
		t.Errorf("/ai-ok/test: %v", s)
	}
}

func TestPathMatchesWithinOneSource(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lines []usageLine
		want  []Statement
	}{
		{"longer line's silence is not filled in",
			[]usageLine{{SourceContentUsage, 2, "/", "train-ai=n, search=y"}, {SourceContentUsage, 3, "/a/", "search=n"}},
			[]Statement{stmt("search", No, SourceContentUsage, 3)}},
		{"same length combine to the most restrictive",
			[]usageLine{{SourceContentUsage, 2, "/a/", "train-ai=y"}, {SourceContentUsage, 3, "/a/", "train-ai=n, search=y"}},
			[]Statement{stmt("train-ai", No, SourceContentUsage, 3), stmt("search", Yes, SourceContentUsage, 3)}},
		{"unparsable longest line states nothing",
			[]usageLine{{SourceContentUsage, 2, "/", "train-ai=n"}, {SourceContentUsage, 3, "/a/", "Train-AI=y"}},
			nil},
		{"unparsable line of one source leaves the other",
			[]usageLine{{SourceContentSignal, 2, "/", "ai-train=no"}, {SourceContentUsage, 3, "/a/", "Train-AI=y"}},
			[]Statement{stmt("train-ai", No, SourceContentSignal, 2)}},
		{"length counts octets of the encoded pattern",
			[]usageLine{{SourceContentUsage, 2, "/caf%C3%A9", "train-ai=y"}, {SourceContentUsage, 3, "/cafe/x", "train-ai=n"}},
			[]Statement{stmt("train-ai", Yes, SourceContentUsage, 2)}},
	}
	for _, tc := range tests {
		if got := resolve(tc.lines); !sameSet(got, tc.want) {
			t.Errorf("%s: %v; want %v", tc.name, got, tc.want)
		}
	}
	var m PathMatches
	m.Add(SourceContentSignal, 1, []Statement{stmt("train-ai", No, SourceContentUsage, 7)})
	if got := m.Statements(nil); !sameSet(got, []Statement{stmt("train-ai", No, SourceContentSignal, 7)}) {
		t.Errorf("Add kept the statement's source: %v", got)
	}
}

func TestPathMatchesReset(t *testing.T) {
	t.Parallel()
	var m PathMatches
	m.Add(SourceContentUsage, 10, []Statement{stmt("train-ai", Yes, SourceContentUsage, 2)})
	m.Reset()
	m.Add(SourceContentUsage, 1, []Statement{stmt("train-ai", No, SourceContentUsage, 3)})
	if got := m.Statements(nil); !sameSet(got, []Statement{stmt("train-ai", No, SourceContentUsage, 3)}) {
		t.Errorf("after Reset: %v", got)
	}
	m.Add(Source(99), 100, []Statement{stmt("x", No, 0, 0)})
	if got := m.Statements(nil); len(got) != 1 {
		t.Errorf("an unknown source was kept: %v", got)
	}
}

// Resolving a path allocates nothing once the PathMatches has grown.
func TestPathMatchesAllocs(t *testing.T) {
	signal := ParseDictionary("search=yes, ai-train=no", DialectContentSignal, SourceContentSignal, 2)
	usage := ParseDictionary("train-ai=y", DialectContentUsage, SourceContentUsage, 3)
	var m PathMatches
	dst := make([]Statement, 0, 8)
	run := func() {
		m.Reset()
		m.Add(SourceContentSignal, 1, signal)
		m.Add(SourceContentUsage, 6, usage)
		dst = m.Statements(dst[:0])
	}
	run()
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
