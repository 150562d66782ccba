package pagecache

import (
	"net/url"
	"testing"
)

// TestMarks: a mark keeps its Kind and the very URL of the hop it was
// made for (a pointer: an equal URL is another hop); Unmark forgets it.
func TestMarks(t *testing.T) {
	t.Parallel()
	var m Marks
	u, v := &url.URL{Host: "a.example"}, &url.URL{Host: "a.example"}
	m.Mark("r1", LocalPage, u, nil)
	m.Mark("r2", LocalColly, v, nil)
	for _, tt := range []struct {
		k    string
		kind Kind
		u    *url.URL
	}{{"r1", LocalPage, u}, {"r2", LocalColly, v}} {
		if kind, ok := m.Kind(tt.k); !ok || kind != tt.kind {
			t.Errorf("%s: Kind = %v, %v; want %v", tt.k, kind, ok, tt.kind)
		}
		if got, ok := m.Unmark(tt.k); !ok || got != tt.u {
			t.Errorf("%s: Unmark = %p, %v; want %p", tt.k, got, ok, tt.u)
		}
	}
	if _, ok := m.Unmark("r1"); ok || m.Any() || m.Len() != 0 {
		t.Errorf("after Unmark: still marked (Any %v, Len %d)", m.Any(), m.Len())
	}
}
