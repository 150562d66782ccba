package cacheresult

import "testing"

// FuzzParse: any field value reads as a Result whose String reads back as
// itself, and only a Result's own String reads as anything but None.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"hit", "miss", "revalidated", "stale", "none", "", "HIT", "hit ", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := Parse(s)
		if Parse(r.String()) != r {
			t.Fatalf("Parse(%q) = %v, which does not read back", s, r)
		}
		if r != None && r.String() != s {
			t.Fatalf("Parse(%q) = %v, though %q is not its String", s, r, s)
		}
		if got := Result(200).String(); got != "none" {
			t.Fatalf("an undefined Result prints %q", got)
		}
	})
}
