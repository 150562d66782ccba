package robotsext

import (
	"regexp"
	"strconv"
	"testing"
)

// TestReasonTable checks the one table every Reason is described in: each
// defined Reason has prose, a label of its own that metrics can use (short,
// snake_case, unique), and can allow or block; and a Reason past the table
// says so instead of borrowing a neighbour's row.
func TestReasonTable(t *testing.T) {
	t.Parallel()
	snake := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	all := Reasons()
	if len(all) <= int(ReasonLocalError) {
		t.Fatalf("Reasons() has %d entries, want more than %d", len(all), ReasonLocalError)
	}
	labels := map[string]Reason{}
	for i, r := range all {
		if int(r) != i {
			t.Errorf("Reasons()[%d] = %d, want them in order", i, r)
		}
		label := r.Label()
		if !snake.MatchString(label) || len(label) > 20 {
			t.Errorf("Reason %d label %q is not short snake_case", r, label)
		}
		if prev, dup := labels[label]; dup {
			t.Errorf("Reasons %d and %d share the label %q", prev, r, label)
		}
		labels[label] = r
		if r.String() == "unknown reason" || r.String() == "" {
			t.Errorf("Reason %d (%s) has no prose", r, label)
		}
		if !r.CanAllow() && !r.CanBlock() {
			t.Errorf("Reason %d (%s) neither allows nor blocks", r, label)
		}
	}
	past := Reason(len(all))
	if got, want := past.Label(), "reason_"+strconv.Itoa(len(all)); got != want {
		t.Errorf("Label of an undefined Reason = %q, want %q", got, want)
	}
	if past.String() != "unknown reason" || past.CanAllow() || past.CanBlock() {
		t.Errorf("an undefined Reason reads as %q, allows %v, blocks %v", past, past.CanAllow(), past.CanBlock())
	}
	// Spot checks that the rows are where their constants say.
	for _, tt := range []struct {
		r             Reason
		label         string
		allows, block bool
	}{
		{ReasonNoMatch, "no_match", true, false},
		{ReasonDisallowRule, "disallow_rule", false, true},
		{ReasonUnreachable, "unreachable", true, true},
		{ReasonLocalError, "local_error", false, true},
	} {
		if tt.r.Label() != tt.label || tt.r.CanAllow() != tt.allows || tt.r.CanBlock() != tt.block {
			t.Errorf("Reason %d = (%q, %v, %v), want (%q, %v, %v)", tt.r, tt.r.Label(), tt.r.CanAllow(), tt.r.CanBlock(), tt.label, tt.allows, tt.block)
		}
	}
}

// TestOutcomes checks that Outcomes lists every Outcome with a stable,
// snake_case String that metrics use as their label.
func TestOutcomes(t *testing.T) {
	t.Parallel()
	snake := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	want := []string{"unreachable", "ok", "unavailable", "unauthorized"}
	got := Outcomes()
	if len(got) != len(want) {
		t.Fatalf("Outcomes() = %v, want %d outcomes", got, len(want))
	}
	for i, o := range got {
		if o.String() != want[i] || !snake.MatchString(o.String()) {
			t.Errorf("Outcomes()[%d] = %q, want %q", i, o, want[i])
		}
	}
	if s := Outcome(len(want)).String(); s != "unknown outcome" {
		t.Errorf("an undefined Outcome reads %q", s)
	}
}
