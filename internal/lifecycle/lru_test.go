package lifecycle

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// The LRU keeps the exact order of use, whether a get takes the lock or is
// answered from the front without it, and a get never returns an entry a
// put has replaced.
func TestLRUOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ops  string // "+a" puts a new entry for a, "a" gets a
		want string // what each get returned, "-" for nothing, and what stays
	}{
		{"repeated gets keep the front", "+a +b a a a +c b", "a1 a1 a1 - | a1 c1"},
		{"a put ends the shortcut", "+a +b b b +c b +d", "b1 b1 b1 | b1 d1"},
		{"get after the front changed", "+a +b a b a +c", "a1 b1 a1 | a1 c1"},
		{"replaced entry is not served", "+a a +a a a", "a1 a2 a2 | a2"},
		{"evicted entry is not served", "+a a +b +c a", "a1 - | b1 c1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := newLRU(2, 1<<30, nil)
			version := map[string]int{}
			var got []string
			for _, op := range strings.Fields(tt.ops) {
				if host, ok := strings.CutPrefix(op, "+"); ok {
					version[host]++
					c.put(&Entry{Origin: Origin{Host: host}, SelToken: fmt.Sprint(version[host])}, 0)
					continue
				}
				if en := c.get(Origin{Host: op}); en != nil {
					got = append(got, en.Origin.Host+en.SelToken)
				} else {
					got = append(got, "-")
				}
			}
			got = append(got, "|")
			for el := c.order.Back(); el != nil; el = el.Prev() {
				en := el.Value.(*Entry)
				got = append(got, en.Origin.Host+en.SelToken)
			}
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("%s: got %q, want %q", tt.ops, g, tt.want)
			}
		})
	}
}

// Concurrent gets and puts: every get returns its origin's entry, and once
// the puts are done every get returns the last one put.
func TestLRUConcurrentFront(t *testing.T) {
	t.Parallel()
	c := newLRU(4, 1<<30, nil)
	hosts := []string{"a", "b", "c"}
	const rounds = 2000
	var wg sync.WaitGroup
	for _, h := range hosts {
		wg.Go(func() {
			for i := range rounds {
				c.put(&Entry{Origin: Origin{Host: h}, SelToken: fmt.Sprint(i)}, 0)
			}
		})
		for range 2 {
			wg.Go(func() {
				for range rounds {
					for _, o := range hosts {
						if en := c.get(Origin{Host: o}); en != nil && en.Origin.Host != o {
							t.Errorf("get(%s) returned %s", o, en.Origin.Host)
							return
						}
					}
				}
			})
		}
	}
	wg.Wait()
	for _, h := range hosts {
		for range 2 {
			if en := c.get(Origin{Host: h}); en == nil || en.SelToken != fmt.Sprint(rounds-1) {
				t.Errorf("get(%s) after the puts = %+v", h, en)
			}
		}
	}
}
