package ratelimit

import (
	"net/http"
	"testing"
	"time"
)

var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func clock() time.Time { return now }

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lines []string
		want  Limit
		ok    bool
	}{
		{"spent with a window", []string{`"default";r=0;t=2`}, Limit{true, 2 * time.Second}, true},
		{"the draft's example: quota left", []string{`"default";r=50;t=30`}, Limit{}, false},
		{"quota left without a window", []string{`"default";r=999;pk=:dHJpYWwxMjEzMjM=:`}, Limit{}, false},
		{"spent without a window", []string{`"default";r=0`}, Limit{Spent: true}, true},
		{"spent with a window of 0: over", []string{`"default";r=0;t=0`}, Limit{}, false},
		{"one of two policies spent", []string{`"burst";r=0;t=5, "daily";r=900;t=86400`}, Limit{true, 5 * time.Second}, true},
		{"the longest window of the spent ones", []string{`"burst";r=0;t=5, "hourly";r=0;t=1200, "daily";r=3`}, Limit{true, 1200 * time.Second}, true},
		{"spent with and without a window", []string{`"a";r=0, "b";r=0;t=7`}, Limit{true, 7 * time.Second}, true},
		{"split over two field lines", []string{`"burst";r=4;t=5`, `"daily";r=0;t=60`}, Limit{true, time.Minute}, true},
		{"token as the policy name", []string{`default;r=0;t=3`}, Limit{true, 3 * time.Second}, true},
		{"other parameters are comments", []string{`"default";r=0;t=4;acme-burst=2;pk=:AA==:`}, Limit{true, 4 * time.Second}, true},
		{"parameter order", []string{`"default";t=4;r=0`}, Limit{true, 4 * time.Second}, true},
		{"huge window saturates", []string{`"default";r=0;t=999999999999999`}, Limit{true, 1<<63 - 1}, true},
		{"no r: malformed", []string{`"default";t=4`}, Limit{}, false},
		{"negative r: malformed", []string{`"default";r=-1;t=4`}, Limit{}, false},
		{"decimal r: malformed", []string{`"default";r=0.0;t=4`}, Limit{}, false},
		{"string t: malformed", []string{`"default";r=0;t="4"`}, Limit{}, false},
		{"negative t: malformed", []string{`"default";r=0;t=-4`}, Limit{}, false},
		{"a malformed item spoils the field", []string{`"a";r=0;t=4, "b";t=4`}, Limit{}, false},
		{"inner list: malformed", []string{`("a" "b");r=0;t=4`}, Limit{}, false},
		{"integer as the name: malformed", []string{`5;r=0;t=4`}, Limit{}, false},
		{"not a list: malformed", []string{`"default";r=0;t=4,`}, Limit{}, false},
		{"the -07 dictionary form is not read", []string{`limit=10, remaining=0, reset=5`}, Limit{}, false},
		{"empty", []string{``}, Limit{}, false},
		{"no lines", nil, Limit{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := Parse(tt.lines)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Parse(%q) = %+v, %v; want %+v, %v", tt.lines, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestRead(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		h    http.Header
		want Limit
		ok   bool
	}{
		{"no field", http.Header{"Content-Type": {"text/html"}}, Limit{}, false},
		{"RateLimit and its policy", http.Header{"Ratelimit-Policy": {`"default";q=3;w=2`}, "Ratelimit": {`"default";r=0;t=2`}}, Limit{true, 2 * time.Second}, true},
		{"RateLimit-Policy alone says nothing", http.Header{"Ratelimit-Policy": {`"default";q=3;w=2`}}, Limit{}, false},
		{"from a cache", http.Header{"Ratelimit": {`"default";r=0;t=2`}, "Age": {"30"}}, Limit{}, false},
		{"Age 0 is fresh", http.Header{"Ratelimit": {`"default";r=0;t=2`}, "Age": {"0"}}, Limit{true, 2 * time.Second}, true},
		{"malformed RateLimit, older fields ignored", http.Header{"Ratelimit": {`bad;;`}, "X-Ratelimit-Remaining": {"0"}}, Limit{}, false},
		{"X- spent, reset in seconds", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"30"}}, Limit{true, 30 * time.Second}, true},
		{"X- spent, reset as a Unix time", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"1780315245"}}, Limit{true, 45 * time.Second}, true},
		{"X- spent, reset a Unix time past", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"1780315100"}}, Limit{Spent: true}, true},
		{"X- spent, reset in milliseconds: no window", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"1780315245000"}}, Limit{Spent: true}, true},
		{"X- spent, reset a fraction: no window", http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {"1780315245.5"}}, Limit{Spent: true}, true},
		{"X- spent, no reset", http.Header{"X-Ratelimit-Remaining": {"0"}}, Limit{Spent: true}, true},
		{"X- quota left", http.Header{"X-Ratelimit-Remaining": {"12"}, "X-Ratelimit-Reset": {"30"}}, Limit{}, false},
		{"X- remaining not a number", http.Header{"X-Ratelimit-Remaining": {"none"}}, Limit{}, false},
		{"X- remaining twice", http.Header{"X-Ratelimit-Remaining": {"0", "5"}}, Limit{}, false},
		{"older draft names", http.Header{"Ratelimit-Remaining": {"0"}, "Ratelimit-Reset": {"12"}}, Limit{true, 12 * time.Second}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := Read(tt.h, clock)
			if got != tt.want || ok != tt.ok {
				t.Errorf("Read(%v) = %+v, %v; want %+v, %v", tt.h, got, ok, tt.want, tt.ok)
			}
		})
	}
}

// TestReadAllocs: a response without quota fields costs Read no
// allocation.
func TestReadAllocs(t *testing.T) {
	h := http.Header{"Content-Type": {"text/html"}, "Content-Length": {"12"}}
	if n := testing.AllocsPerRun(1000, func() { Read(h, clock) }); n != 0 {
		t.Errorf("Read of a header without quota fields: %v allocations, want 0", n)
	}
}

// FuzzRateLimit: any RateLimit field reads without panicking; what it
// reads is consistent (ok exactly when a quota is spent, a window never
// negative), and a field that reads as spent still does with a
// well-formed policy with quota left added after it.
func FuzzRateLimit(f *testing.F) {
	for _, s := range []string{`"default";r=0;t=2`, `"default";r=50;t=30`, `"a";r=0, "b";r=9;t=1`, `x;r=0;t=999999999999999`, `"d";r=-1`, `("a");r=0`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		l, ok := Parse([]string{v})
		if ok != l.Spent || l.Reset < 0 || (!ok && l != (Limit{})) {
			t.Fatalf("Parse(%q) = %+v, %v", v, l, ok)
		}
		if !ok {
			return
		}
		l2, ok2 := Parse([]string{v, `"other";r=5;t=1`})
		if len(v)+20 < MaxFieldLen && (!ok2 || l2 != l) {
			t.Fatalf("Parse(%q + a policy with quota left) = %+v, %v; alone %+v", v, l2, ok2, l)
		}
	})
}
