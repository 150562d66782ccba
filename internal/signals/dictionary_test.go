package signals

import (
	"strings"
	"testing"
)

func TestContentSignalHeader(t *testing.T) {
	t.Parallel()
	h := func(k string, p Preference) Statement { return stmt(k, p, SourceContentSignalHeader, 0) }
	tests := []struct {
		name   string
		fields []string
		want   []Statement
	}{
		{"none", nil, nil},
		{"empty", []string{""}, nil},
		{"Cloudflare's example", []string{"search=yes, ai-input=yes, ai-train=no"},
			[]Statement{h("search", Yes), h("ai-input", Yes), h("train-ai", No)}},
		{"omitted key states nothing", []string{"search=yes"}, []Statement{h("search", Yes)}},
		{"several field lines are one Dictionary", []string{"search=yes", "ai-train=no"},
			[]Statement{h("search", Yes), h("train-ai", No)}},
		{"duplicate: the last wins", []string{"ai-train=no, ai-train=yes"}, []Statement{h("train-ai", Yes)}},
		{"duplicate across lines: the last wins", []string{"ai-train=no", "ai-train=yes"}, []Statement{h("train-ai", Yes)}},
		{"the vocabulary's key too: most restrictive", []string{"ai-train=yes, train-ai=no"}, []Statement{h("train-ai", No)}},
		{"y and n are not Content-Signal's", []string{"ai-train=n, search=y"}, []Statement{h("train-ai", None), h("search", None)}},
		{"a string is no token", []string{`ai-train="no"`}, []Statement{h("train-ai", None)}},
		{"boolean key", []string{"ai-train"}, []Statement{h("train-ai", None)}},
		{"parameters ignored", []string{"ai-train=no;why=x, search=yes"}, []Statement{h("train-ai", No), h("search", Yes)}},
		{"semicolons make parameters", []string{"ai-train=no; search=yes"}, []Statement{h("train-ai", No)}},
		{"inner list", []string{"ai-train=(no)"}, []Statement{h("train-ai", None)}},
		{"unknown keys kept", []string{"ai-agent=no"}, []Statement{h("ai-agent", No)}},
		{"upper case does not parse", []string{"AI-Train=no"}, nil},
		{"trailing comma does not parse", []string{"ai-train=no,"}, nil},
		{"one bad line spoils the Dictionary", []string{"ai-train=no", "Search=yes"}, nil},
		{"too long", []string{"ai-train=no, x=" + strings.Repeat("a", MaxFieldLen)}, nil},
		{"too long in lines", []string{"ai-train=no", "x=" + strings.Repeat("a", MaxFieldLen)}, nil},
	}
	for _, tc := range tests {
		got := ContentSignalHeader(tc.fields)
		if !sameSet(got, tc.want) {
			t.Errorf("%s: ContentSignalHeader(%q) = %v; want %v", tc.name, tc.fields, got, tc.want)
		}
	}
}

func TestContentUsageHeader(t *testing.T) {
	t.Parallel()
	h := func(k string, p Preference) Statement { return stmt(k, p, SourceContentUsageHeader, 0) }
	tests := []struct {
		fields []string
		want   []Statement
	}{
		{[]string{"train-ai=n, search=y"}, []Statement{h("train-ai", No), h("search", Yes)}},
		{[]string{"ai-train=n"}, []Statement{h("ai-train", No)}},
		{[]string{"train-ai=no"}, []Statement{h("train-ai", None)}},
		{[]string{"train-ai=n", "search=y"}, []Statement{h("train-ai", No), h("search", Yes)}},
		{[]string{"tdm=n, bots=y"}, []Statement{h("tdm", No), h("bots", Yes)}},
	}
	for _, tc := range tests {
		if got := ContentUsageHeader(tc.fields); !sameSet(got, tc.want) {
			t.Errorf("ContentUsageHeader(%q) = %v; want %v", tc.fields, got, tc.want)
		}
	}
}

// A robots.txt line's preference read as the robots.txt engine is to read
// it, with its source and line.
func TestParseDictionaryLine(t *testing.T) {
	t.Parallel()
	got := ParseDictionary("search=yes, ai-train=no", DialectContentSignal, SourceContentSignal, 7)
	want := []Statement{stmt("search", Yes, SourceContentSignal, 7), stmt("train-ai", No, SourceContentSignal, 7)}
	if !sameSet(got, want) {
		t.Errorf("%v; want %v", got, want)
	}
	if got := ParseDictionary(strings.Repeat("a", MaxFieldLen), DialectContentUsage, SourceContentUsage, 1); len(got) != 1 {
		t.Errorf("a Dictionary at the bound: %v", got)
	}
}

func TestSignalKey(t *testing.T) {
	t.Parallel()
	for k, want := range map[string]string{"ai-train": "train-ai", "search": "search", "ai-input": "ai-input", "train-ai": "train-ai", "x": "x"} {
		if got := SignalKey(k); got != want {
			t.Errorf("SignalKey(%q) = %q; want %q", k, got, want)
		}
	}
}
