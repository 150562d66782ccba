package directive

import (
	"testing"
	"time"
)

func TestLimitTighter(t *testing.T) {
	t.Parallel()
	unset, none, zero, five, ten := Limit{}, Limit{true, -1}, Limit{true, 0}, Limit{true, 5}, Limit{true, 10}
	tests := []struct{ l, o, want Limit }{
		{unset, unset, unset},
		{unset, five, five},
		{five, unset, five},
		{none, five, five},
		{five, none, five},
		{none, none, none},
		{ten, five, five},
		{five, ten, five},
		{zero, five, zero},
	}
	for _, tt := range tests {
		if got := tt.l.Tighter(tt.o); got != tt.want {
			t.Errorf("%+v.Tighter(%+v) = %+v, want %+v", tt.l, tt.o, got, tt.want)
		}
	}
}

func TestMark(t *testing.T) {
	t.Parallel()
	var d Directives
	d.Mark(NoAI, FromMeta)
	d.Mark(NoAI, FromXRobotsTag)
	d.Mark(numDirectives, FromMeta) // out of range: ignored, no panic
	if got := d.From(NoAI); got != FromXRobotsTag|FromMeta {
		t.Errorf("From(NoAI) = %v, want header+meta", got)
	}
	if got := d.From(numDirectives + 3); got != 0 {
		t.Errorf("From(out of range) = %v, want 0", got)
	}
	if d.IsZero() {
		t.Error("a Directives with a rule marked reads as zero")
	}
}

func TestAddKeepsEarliestAndSmallest(t *testing.T) {
	t.Parallel()
	early, late := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	d := Directives{UnavailableAfter: late, MaxImagePreview: ImagePreviewLarge}
	d.MarkNofollowRule("first")
	o := Directives{UnavailableAfter: early, MaxImagePreview: ImagePreviewNone, NoFollow: true}
	o.MarkNofollowRule("second")
	d.Add(o)
	if !d.UnavailableAfter.Equal(early) || d.MaxImagePreview != ImagePreviewNone || !d.NoFollow || d.NofollowRule() != "first" {
		t.Errorf("Add = %+v (rule %q)", d, d.NofollowRule())
	}
}
