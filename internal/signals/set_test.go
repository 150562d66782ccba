package signals

import (
	"slices"
	"testing"
)

func TestSet(t *testing.T) {
	t.Parallel()
	usage := stmt("train-ai", Yes, SourceContentUsage, 3)
	signal := stmt("train-ai", No, SourceContentSignal, 2)
	search := stmt("search", Yes, SourceContentSignal, 2)
	file := stmt("train-ai", No, SourceTDMRepFile, 0)

	a := SetOf([]Statement{usage, signal, search, file})
	b := SetOf([]Statement{file, search, signal, usage})
	if a != b {
		t.Fatalf("the order of the statements changed the Set: %v, %v", a.All(), b.All())
	}
	if got, want := a.All(), []Statement{search, usage, signal, file}; !slices.Equal(got, want) {
		t.Errorf("All = %v, want %v", got, want)
	}
	// In force: the most restrictive, the earliest source on a tie.
	if got, want := a.Statements(), []Statement{search, signal}; !slices.Equal(got, want) {
		t.Errorf("Statements = %v, want %v", got, want)
	}
	if got := a.Lookup("train-ai"); got != signal {
		t.Errorf("Lookup(train-ai) = %v, want %v", got, signal)
	}
	if got := a.Lookup("ai-input"); got != (Statement{Key: "ai-input"}) {
		t.Errorf("Lookup(ai-input) = %v", got)
	}

	// One key of one source: the most restrictive, the earliest line on
	// a tie.
	one := SetOf([]Statement{stmt("k", Yes, SourceContentUsage, 5), stmt("k", No, SourceContentUsage, 7), stmt("k", No, SourceContentUsage, 6)})
	if got := one.All(); !slices.Equal(got, []Statement{stmt("k", No, SourceContentUsage, 6)}) {
		t.Errorf("one source: %v", got)
	}

	// Merge and With keep every source, and combine within one.
	h := SetOf([]Statement{stmt("search", No, SourceContentSignalHeader, 0)})
	m := a.Merge(h)
	if got := m.Lookup("search"); got != stmt("search", No, SourceContentSignalHeader, 0) {
		t.Errorf("merged search = %v", got)
	}
	if m != a.With(h.All()...) || a.Merge(Set{}) != a || (Set{}).Merge(a) != a || a.With() != a {
		t.Error("Merge and With disagree")
	}
	if len(m.All()) != 5 {
		t.Errorf("merged: %v", m.All())
	}

	// What the encoding cannot hold is dropped.
	bad := SetOf([]Statement{{Key: ""}, {Key: "a\x1eb"}, {Key: "a b"}, {Key: "x", Preference: 7}, {Key: "x", Source: numSources}, {Key: "x", Line: -1}})
	if !bad.IsZero() {
		t.Errorf("unstorable statements kept: %v", bad.All())
	}
	var zero Set
	if !zero.IsZero() || zero.All() != nil || zero.Statements() != nil || zero.Lookup("k") != (Statement{Key: "k"}) {
		t.Error("the zero Set states something")
	}
}

// Looking a key up, which the request hook does for each declared
// purpose, allocates nothing.
func TestSetLookupAllocs(t *testing.T) {
	s := SetOf([]Statement{stmt("search", Yes, SourceContentSignal, 2), stmt("train-ai", Yes, SourceContentUsage, 13), stmt("train-ai", No, SourceTDMRepFile, 1)})
	if n := testing.AllocsPerRun(100, func() { _ = s.Lookup("train-ai") }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}
