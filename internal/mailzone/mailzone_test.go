package mailzone

import "testing"

func TestOffset(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"GMT", 0, true}, {"ut", 0, true}, {"Z", 0, true},
		{"EST", -5 * 3600, true}, {"edt", -4 * 3600, true}, {"PST", -8 * 3600, true}, {"PDT", -7 * 3600, true},
		{"+0530", 5*3600 + 30*60, true}, {"-0000", 0, true},
		{"CET", 0, false}, {"+2500", 0, false}, {"+0560", 0, false}, {"0530", 0, false}, {"", 0, false},
	} {
		if got, ok := Offset(tc.in); got != tc.want || ok != tc.ok {
			t.Errorf("Offset(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
