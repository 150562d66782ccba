package robotsext

import (
	"strings"
	"testing"

	"github.com/robotsext/robotsext/internal/signals"
)

// attachExample is the robots.txt of draft-ietf-aipref-attach's example
// (section "Example" of -04/-05).
const attachExample = `User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: / train-ai=n
Content-Usage: /ai-ok/ train-ai=y

User-Agent: ExampleBot
Allow: /
Content-Usage: / train-ai=y
`

func TestUsageAttachDraftExample(t *testing.T) {
	t.Parallel()
	p := ParsePolicy([]byte(attachExample))
	tests := []struct {
		agent, path string
		crawl       bool
		want        string // Usage.String()
	}{
		{"OtherBot", "/test", true, "train-ai=n (Content-Usage line 4)"},
		{"OtherBot", "/never/test", false, "no statement"},
		{"OtherBot", "/ai-ok/test", true, "train-ai=y (Content-Usage line 5)"},
		{"ExampleBot", "/test", true, "train-ai=y (Content-Usage line 9)"},
		{"ExampleBot", "/never/test", true, "train-ai=y (Content-Usage line 9)"},
	}
	for _, tt := range tests {
		if v := p.Check(tt.agent, tt.path); v.Allowed != tt.crawl {
			t.Errorf("%s %s: crawl %v, want %v", tt.agent, tt.path, v.Allowed, tt.crawl)
		}
		if got := p.Usage(tt.agent, tt.path).String(); got != tt.want {
			t.Errorf("%s %s: usage %q, want %q", tt.agent, tt.path, got, tt.want)
		}
	}
}

// TestUsagePrecedence has one case per rule of the issue: the group chosen
// as for Allow/Disallow, longest matching path, most restrictive on one
// path, y/n tokens only, unparsable Dictionary, duplicate key, unknown
// keys, Content-Signal's mapping, and lines outside a group.
func TestUsagePrecedence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, robots, agent, path string
		want                      string
	}{
		{"group of the crawler, not *",
			"User-agent: *\nAllow: /\nContent-Usage: train-ai=n\n\nUser-agent: FooBot\nAllow: /\nContent-Usage: train-ai=y\n",
			"FooBot", "/x", "train-ai=y (Content-Usage line 7)"},
		{"usage lines are no rules: without one, user-agent lines stay one group (RFC 9309)",
			"User-agent: *\nContent-Usage: train-ai=n\n\nUser-agent: FooBot\nContent-Usage: train-ai=y\n",
			"FooBot", "/x", "train-ai=n (Content-Usage line 2)"},
		{"groups of one token merge as for rules",
			"User-agent: FooBot\nContent-Usage: /a train-ai=y\n\nUser-agent: FooBot\nContent-Usage: /a/b train-ai=n\n",
			"FooBot", "/a/b/c", "train-ai=n (Content-Usage line 5)"},
		{"no group for the crawler: *",
			"User-agent: *\nDisallow:\nContent-Usage: train-ai=n\n\nUser-agent: FooBot\nDisallow:\nContent-Usage: train-ai=n\nContent-Usage: search=y\n",
			"BarBot", "/x", "train-ai=n (Content-Usage line 3)"},
		{"longest path wins over a shorter no",
			"User-agent: *\nContent-Usage: / train-ai=n\nContent-Usage: /open/ train-ai=y\n",
			"X", "/open/page", "train-ai=y (Content-Usage line 3)"},
		{"longest path wins and states only its keys",
			"User-agent: *\nContent-Usage: / search=y, train-ai=n\nContent-Usage: /open/ train-ai=y\n",
			"X", "/open/page", "train-ai=y (Content-Usage line 3)"},
		{"line order has no meaning",
			"User-agent: *\nContent-Usage: /open/ train-ai=y\nContent-Usage: / train-ai=n\n",
			"X", "/open/page", "train-ai=y (Content-Usage line 2)"},
		{"length counts encoded octets",
			"User-agent: *\nContent-Usage: /é train-ai=n\nContent-Usage: /%C3%A9x train-ai=y\n",
			"X", "/%C3%A9", "train-ai=n (Content-Usage line 2)"},
		{"wildcards match as in Allow/Disallow",
			"User-agent: *\nContent-Usage: / train-ai=y\nContent-Usage: /*.pdf$ train-ai=n\n",
			"X", "/docs/a.pdf", "train-ai=n (Content-Usage line 3)"},
		{"same path: most restrictive",
			"User-agent: *\nContent-Usage: /a train-ai=y, search=y\nContent-Usage: /a train-ai=n\n",
			"X", "/a", "search=y (Content-Usage line 2), train-ai=n (Content-Usage line 3)"},
		{"same path: yes over no statement",
			"User-agent: *\nContent-Usage: /a train-ai=maybe\nContent-Usage: /a train-ai=y\n",
			"X", "/a", "train-ai=y (Content-Usage line 3)"},
		{"only the tokens y and n",
			"User-agent: *\nContent-Usage: train-ai=yes, search=\"n\", ai-input=?1, bots=N\n",
			"X", "/", "ai-input=? (Content-Usage line 2), bots=? (Content-Usage line 2), search=? (Content-Usage line 2), train-ai=? (Content-Usage line 2)"},
		{"unparsable Dictionary states nothing",
			"User-agent: *\nContent-Usage: Train-AI=n\n",
			"X", "/", "no statement"},
		{"unparsable longest line states nothing (no fallback)",
			"User-agent: *\nContent-Usage: / train-ai=n\nContent-Usage: /a train-ai=n,\n",
			"X", "/a", "no statement"},
		{"duplicate key: the last wins",
			"User-agent: *\nContent-Usage: train-ai=n, train-ai=y\n",
			"X", "/", "train-ai=y (Content-Usage line 2)"},
		{"unknown keys kept",
			"User-agent: *\nContent-Usage: tdm=n, train-genai=y\n",
			"X", "/", "tdm=n (Content-Usage line 2), train-genai=y (Content-Usage line 2)"},
		{"parameters ignored",
			"User-agent: *\nContent-Usage: train-ai=n;until=2030\n",
			"X", "/", "train-ai=n (Content-Usage line 2)"},
		{"Content-Signal maps ai-train, keeps search and ai-input",
			"User-agent: *\nContent-Signal: search=yes, ai-input=no, ai-train=no\n",
			"X", "/", "ai-input=n (Content-Signal line 2), search=y (Content-Signal line 2), train-ai=n (Content-Signal line 2)"},
		{"Content-Signal values are yes and no",
			"User-agent: *\nContent-Signal: ai-train=n\n",
			"X", "/", "train-ai=? (Content-Signal line 2)"},
		{"Content-Signal and Content-Usage on one path: most restrictive",
			"User-agent: *\nContent-Signal: ai-train=yes\nContent-Usage: train-ai=n\n",
			"X", "/", "train-ai=n (Content-Usage line 3)"},
		{"each mechanism's longest path decides, then the two combine: a Content-Signal no is not lifted by a longer Content-Usage yes",
			"User-agent: *\nContent-Signal: search=yes, ai-train=no\nContent-Usage: /open/ train-ai=y\n",
			"X", "/open/a", "search=y (Content-Signal line 2), train-ai=n (Content-Signal line 2)"},
		{"nor a Content-Usage no by a longer Content-Signal yes",
			"User-agent: *\nContent-Usage: train-ai=n\nContent-Signal: /open/ ai-train=yes, search=yes\n",
			"X", "/open/a", "search=y (Content-Signal line 3), train-ai=n (Content-Usage line 2)"},
		{"Content-Signal before any group applies to every crawler",
			"Content-Signal: ai-train=no\n\nUser-agent: FooBot\nDisallow: /x\n",
			"FooBot", "/", "train-ai=n (Content-Signal line 1)"},
		{"Content-Usage before any group is ignored",
			"Content-Usage: train-ai=n\n\nUser-agent: *\nDisallow: /x\n",
			"X", "/", "no statement"},
		{"disallowed paths have no preferences",
			"User-agent: *\nDisallow: /x\nContent-Usage: train-ai=n\n",
			"X", "/x", "no statement"},
		{"a path without a preference states nothing there",
			"User-agent: *\nContent-Usage: / train-ai=n\nContent-Usage: /free/\n",
			"X", "/free/a", "no statement"},
		{"trailing comment and blanks",
			"User-agent: *\nContent-Usage:   /a \t train-ai=n   # not for training\n",
			"X", "/a", "train-ai=n (Content-Usage line 2)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := ParsePolicy([]byte(tt.robots))
			if got := p.Usage(tt.agent, tt.path).String(); got != tt.want {
				t.Errorf("Usage(%q, %q) = %q, want %q\nrobots.txt:\n%s", tt.agent, tt.path, got, tt.want, tt.robots)
			}
		})
	}
}

// TestUsageLinesChangeNoDecision: adding Content-Usage and Content-Signal
// lines anywhere changes neither group boundaries nor any decision.
func TestUsageLinesChangeNoDecision(t *testing.T) {
	t.Parallel()
	base := []string{
		"User-agent: FooBot", "User-agent: BarBot", "Disallow: /a", "Allow: /a/b",
		"User-agent: *", "Disallow: /", "Allow: /pub", "User-agent: BazBot", "Disallow: /z",
	}
	agents := []string{"FooBot", "BarBot", "BazBot", "Other"}
	paths := []string{"/", "/a", "/a/b", "/pub/x", "/z", "/q"}
	decide := func(lines []string) string {
		p := ParsePolicy([]byte(strings.Join(lines, "\n")))
		var b strings.Builder
		for _, a := range agents {
			for _, path := range paths {
				v := p.Check(a, path)
				v.Line = 0 // lines shift with the inserted one
				b.WriteString(a + path + " " + v.Reason.String() + " " + v.Rule + "\n")
			}
		}
		return b.String()
	}
	want := decide(base)
	for _, extra := range []string{"Content-Usage: train-ai=n", "Content-Signal: ai-train=no", "Content-Usage: /a search=y"} {
		for at := 0; at <= len(base); at++ {
			lines := append(append(append([]string{}, base[:at]...), extra), base[at:]...)
			if got := decide(lines); got != want {
				t.Fatalf("%q inserted at %d changed decisions:\n%s\nwant\n%s", extra, at, got, want)
			}
		}
	}
}

// TestUsageRound4 is the defect of round 4 through the Extension: a "*"
// group whose Content-Signal line says ai-train=no for every path, and
// whose Content-Usage line says train-ai=y under /open/, let a crawler
// declaring train-ai fetch /open/a. Both statements are kept; the no is
// in force.
func TestUsageRound4(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	s := newSite(t, robotsTxt("User-agent: *\nAllow: /\nContent-Signal: search=yes, ai-train=no\nContent-Usage: /open/ train-ai=y\n"))
	e := Apply(nil, WithDefaultDelay(0), WithUserAgent("TrainBot"), WithPurpose(PurposeTrainAI))
	v, err := e.Check(s.URL + "/open/a")
	if err != nil {
		t.Fatal(err)
	}
	if v.Allowed || v.Reason != ReasonUsage || v.Line != 3 || v.Rule != "search=yes, ai-train=no" {
		t.Errorf("/open/a: %+v", v)
	}
	if got, want := joinStatements(v.Usage.All()), "search=y (Content-Signal line 3), train-ai=y (Content-Usage line 4), train-ai=n (Content-Signal line 3)"; got != want {
		t.Errorf("every statement: %q, want %q", got, want)
	}
	if got, want := v.Usage.String(), "search=y (Content-Signal line 3), train-ai=n (Content-Signal line 3)"; got != want {
		t.Errorf("in force: %q, want %q", got, want)
	}
}

func TestUsageValue(t *testing.T) {
	t.Parallel()
	var zero Usage
	if !zero.IsZero() || zero.String() != "no statement" || zero.For(PurposeTrainAI) != PreferenceNone || zero.Statements() != nil {
		t.Fatalf("zero Usage states something: %v", zero)
	}
	a := ParsePolicy([]byte("User-agent: *\nContent-Usage: search=y, train-ai=n\n")).Usage("x", "/")
	b := ParsePolicy([]byte("User-agent: *\nContent-Usage: train-ai=n, search=y\n")).Usage("x", "/")
	if a != b {
		t.Fatalf("equal preferences compare unequal: %v, %v", a, b)
	}
	if s := a.Lookup("train-ai"); s != (UsageStatement{Key: "train-ai", Preference: PreferenceNo, Source: SourceContentUsage, Line: 2}) {
		t.Fatalf("Lookup(train-ai) = %+v", s)
	}
	if s := a.Lookup("ai-input"); s != (UsageStatement{Key: "ai-input"}) {
		t.Fatalf("Lookup(ai-input) = %+v", s)
	}
	h := Usage{}.with(signals.ContentUsageHeader([]string{"train-ai=y", "search=n"})...)
	m := a.merge(h)
	if got := m.String(); got != "search=n (Content-Usage header), train-ai=n (Content-Usage line 2)" {
		t.Fatalf("merge = %q", got)
	}
	if got := joinStatements(m.All()); got != "search=y (Content-Usage line 2), search=n (Content-Usage header), train-ai=n (Content-Usage line 2), train-ai=y (Content-Usage header)" {
		t.Fatalf("merge, every statement = %q", got)
	}
	if (Usage{}).with(signals.ContentUsageHeader([]string{"TRAIN-AI=n"})...) != (Usage{}) {
		t.Fatal("an unparsable header states something")
	}
	for _, tt := range []struct {
		purposes []Purpose
		refuses  bool
	}{
		{nil, false},
		{[]Purpose{PurposeTrainAI}, true},
		{[]Purpose{PurposeTrainAI, PurposeSearch}, true},
		{[]Purpose{PurposeTrainAI, PurposeAIInput}, false}, // no statement never refuses
		{[]Purpose{PurposeAIInput}, false},
	} {
		if _, got := m.refuses(tt.purposes); got != tt.refuses {
			t.Errorf("refuses(%v) = %v, want %v", tt.purposes, got, tt.refuses)
		}
	}
}
