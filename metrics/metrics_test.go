package metrics

import (
	"regexp"
	"strings"
	"testing"

	"github.com/robotsext/robotsext"
)

// TestUnknownReason checks that a count of a Reason this version does not
// know is still reported, under its fallback label, beside each reason
// the measure can count at 0.
func TestUnknownReason(t *testing.T) {
	t.Parallel()
	l := reasons(func(s *robotsext.Stats) map[robotsext.Reason]uint64 { return s.Blocked }, robotsext.Reason.CanBlock)
	s := robotsext.Stats{Blocked: map[robotsext.Reason]uint64{robotsext.ReasonDisallowRule: 2, 200: 7}}
	got := map[string]uint64{}
	l.Points(&s, func(value string, n uint64) { got[value] = n })
	want := map[string]uint64{"disallow_rule": 2, "unreachable": 0, "unauthorized": 0, "local_error": 0, "usage": 0, "backoff": 0,
		"nofollow": 0, "rel_nofollow": 0, "identity": 0, "closed": 0, "reason_200": 7}
	if len(got) != len(want) {
		t.Errorf("points %v, want %v", got, want)
	}
	for label, n := range want {
		if got[label] != n {
			t.Errorf("reason=%q: %d, want %d", label, got[label], n)
		}
	}
}

// TestTable holds every row to the rules both adapters rely on: names
// unique and in each system's form, a help sentence, and exactly one way
// to read the value, matching the kind.
func TestTable(t *testing.T) {
	t.Parallel()
	prom := regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	otel := regexp.MustCompile(`^robotsext(\.[a-z][a-z0-9_]*)+$`)
	seenProm, seenOTel := map[string]bool{}, map[string]bool{}
	all := All()
	if len(all) < 49 {
		t.Fatalf("%d rows; the adapters exported 49 measures", len(all))
	}
	for _, m := range all {
		if !prom.MatchString(m.Prom) || !otel.MatchString(m.OTel) {
			t.Errorf("%s / %s: not a Prometheus and an OpenTelemetry name", m.Prom, m.OTel)
		}
		if seenProm[m.Prom] || seenOTel[m.OTel] {
			t.Errorf("%s / %s: listed twice", m.Prom, m.OTel)
		}
		seenProm[m.Prom], seenOTel[m.OTel] = true, true
		if m.Help == "" || !strings.HasSuffix(m.Help, ".") || m.Unit == "" {
			t.Errorf("%s: help %q, unit %q; want a sentence and a unit", m.Prom, m.Help, m.Unit)
		}
		ways := 0
		for _, set := range []bool{m.Value != nil, m.Histogram != nil, m.Label != nil} {
			if set {
				ways++
			}
		}
		if ways != 1 {
			t.Errorf("%s: %d ways to read it, want 1", m.Prom, ways)
		}
		switch {
		case m.Kind == Counter && !strings.HasSuffix(m.Prom, "_total"):
			t.Errorf("%s: a counter's name ends in _total", m.Prom)
		case m.Kind == Histogram && (m.Histogram == nil || m.Unit != "s" || !strings.HasSuffix(m.Prom, "_seconds")):
			t.Errorf("%s: a histogram is read as one, in seconds", m.Prom)
		case m.Kind != Counter && m.Label != nil:
			t.Errorf("%s: only counters have labels", m.Prom)
		}
		if l := m.Label; l != nil {
			if l.Prom == "" || !strings.HasPrefix(l.OTel, "robotsext.") || len(l.Values) == 0 || l.Points == nil {
				t.Errorf("%s: label %+v incomplete", m.Prom, *l)
			}
		}
	}
}

// TestPointsFromStart: with nothing counted, every label value a counter
// can take is reported, at 0.
func TestPointsFromStart(t *testing.T) {
	t.Parallel()
	var s robotsext.Stats
	for _, m := range All() {
		if m.Label == nil {
			if m.Value != nil && m.Value(&s) != 0 {
				t.Errorf("%s = %d on zero Stats", m.Prom, m.Value(&s))
			}
			continue
		}
		n := 0
		m.Label.Points(&s, func(value string, c uint64) {
			n++
			if c != 0 {
				t.Errorf("%s{%s=%q} = %d on zero Stats", m.Prom, m.Label.Prom, value, c)
			}
		})
		if n == 0 {
			t.Errorf("%s reports no value from the start", m.Prom)
		}
	}
}
