package signals

import (
	"slices"
	"testing"
)

// stmt is a short way to write a statement in a table.
func stmt(key string, p Preference, src Source, line int) Statement {
	return Statement{Key: key, Preference: p, Source: src, Line: line}
}

// sameSet reports whether a and b hold the same statements in any order.
func sameSet(a, b []Statement) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	SortByKey(a)
	SortByKey(b)
	return slices.Equal(a, b)
}

func TestCombine(t *testing.T) {
	t.Parallel()
	cu := func(k string, p Preference, line int) Statement { return stmt(k, p, SourceContentUsage, line) }
	tests := []struct {
		name      string
		acc, more []Statement
		want      []Statement
	}{
		{"empty", nil, nil, nil},
		{"new keys added", []Statement{cu("search", Yes, 2)}, []Statement{cu("train-ai", No, 3)},
			[]Statement{cu("search", Yes, 2), cu("train-ai", No, 3)}},
		{"no beats yes", []Statement{cu("train-ai", Yes, 2)}, []Statement{stmt("train-ai", No, SourceTDMRepHeader, 0)},
			[]Statement{stmt("train-ai", No, SourceTDMRepHeader, 0)}},
		{"yes does not beat no", []Statement{stmt("train-ai", No, SourceXRobotsTag, 0)}, []Statement{cu("train-ai", Yes, 2)},
			[]Statement{stmt("train-ai", No, SourceXRobotsTag, 0)}},
		{"yes beats none", []Statement{cu("train-ai", None, 2)}, []Statement{stmt("train-ai", Yes, SourceContentSignalHeader, 0)},
			[]Statement{stmt("train-ai", Yes, SourceContentSignalHeader, 0)}},
		{"none does not beat yes", []Statement{cu("train-ai", Yes, 2)}, []Statement{cu("train-ai", None, 1)},
			[]Statement{cu("train-ai", Yes, 2)}},
		{"tie: earlier source", []Statement{stmt("train-ai", No, SourceMetaRobots, 0)}, []Statement{stmt("train-ai", No, SourceContentSignal, 9)},
			[]Statement{stmt("train-ai", No, SourceContentSignal, 9)}},
		{"tie: earlier line", []Statement{cu("train-ai", No, 7)}, []Statement{cu("train-ai", No, 3)},
			[]Statement{cu("train-ai", No, 3)}},
		{"tie: same statement", []Statement{cu("train-ai", No, 3)}, []Statement{cu("train-ai", No, 3)},
			[]Statement{cu("train-ai", No, 3)}},
		{"several in more", nil, []Statement{cu("a", Yes, 1), cu("a", No, 2), cu("b", None, 3), cu("a", Yes, 4)},
			[]Statement{cu("a", No, 2), cu("b", None, 3)}},
	}
	for _, tc := range tests {
		got := Combine(slices.Clone(tc.acc), tc.more...)
		if !sameSet(got, tc.want) {
			t.Errorf("%s: Combine = %v; want %v", tc.name, got, tc.want)
		}
	}
}

// Combine's result does not depend on the order statements come in.
func TestCombineOrderFree(t *testing.T) {
	t.Parallel()
	all := []Statement{
		stmt("train-ai", Yes, SourceContentUsage, 4),
		stmt("train-ai", No, SourceContentSignal, 2),
		stmt("train-ai", No, SourceTDMRepFile, 0),
		stmt("search", Yes, SourceContentSignal, 2),
		stmt("search", None, SourceContentUsageHeader, 0),
		stmt("ai-input", None, SourceContentSignalHeader, 0),
	}
	want := Combine(nil, all...)
	var permute func(k int)
	permute = func(k int) {
		if k == len(all) {
			if got := Combine(nil, all...); !sameSet(got, want) {
				t.Fatalf("order %v: %v; want %v", all, got, want)
			}
			return
		}
		for i := k; i < len(all); i++ {
			all[k], all[i] = all[i], all[k]
			permute(k + 1)
			all[k], all[i] = all[i], all[k]
		}
	}
	permute(0)
	if s := Lookup(want, "train-ai"); s != stmt("train-ai", No, SourceContentSignal, 2) {
		t.Errorf("train-ai: %v", s)
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	stmts := []Statement{stmt("search", Yes, SourceContentSignal, 3)}
	if got := Lookup(stmts, "search"); got != stmts[0] {
		t.Errorf("Lookup(search) = %v", got)
	}
	if got := Lookup(stmts, "train-ai"); got != (Statement{Key: "train-ai"}) {
		t.Errorf("Lookup(train-ai) = %v", got)
	}
}

func TestStatementString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    Statement
		want string
	}{
		{stmt("train-ai", No, SourceContentSignal, 4), "train-ai=n (Content-Signal line 4)"},
		{stmt("search", Yes, SourceContentUsage, 2), "search=y (Content-Usage line 2)"},
		{stmt("tdm", None, SourceContentUsageHeader, 0), "tdm=? (Content-Usage header)"},
		{stmt("search", Yes, SourceContentSignalHeader, 0), "search=y (Content-Signal header)"},
		{stmt("train-ai", No, SourceTDMRepFile, 0), "train-ai=n (tdmrep.json rule 0)"},
		{stmt("train-ai", No, SourceTDMRepHeader, 0), "train-ai=n (tdm-reservation header)"},
		{stmt("train-ai", No, SourceTDMRepMeta, 0), "train-ai=n (tdm-reservation meta)"},
		{stmt("train-ai", No, SourceXRobotsTag, 0), "train-ai=n (X-Robots-Tag)"},
		{stmt("train-ai", No, SourceMetaRobots, 0), "train-ai=n (meta robots)"},
		{Statement{Key: "x"}, "x=?"},
	}
	for _, tc := range tests {
		if got := tc.s.String(); got != tc.want {
			t.Errorf("%q; want %q", got, tc.want)
		}
	}
	if Source(200).String() != "none" {
		t.Error("an unknown Source has a name")
	}
}

// The numbers the root package's UsageSource and Preference use today:
// the conversion is a cast only while they agree, and a Source must stay
// one decimal digit in the root's encoding of a Usage.
func TestNumbersMatchTheRoot(t *testing.T) {
	t.Parallel()
	if SourceNone != 0 || SourceContentUsage != 1 || SourceContentSignal != 2 || SourceContentUsageHeader != 3 {
		t.Error("the root's UsageSource values moved")
	}
	if None != 0 || Yes != 1 || No != 2 {
		t.Error("the root's Preference values moved")
	}
	if numSources > 10 {
		t.Errorf("%d sources do not fit one digit", numSources)
	}
}
