package lifecycle

import (
	"testing"
	"time"
)

// TestFreshRealClock: on the real clock (Config.Now nil) the Cache's
// reading (now) tells an entry fresh by the monotonic clock against its
// expiry, whether that expiry
// carries a monotonic reading (made from time.Now) or not (a record's
// wall-clock time, from a Backend or a Date header).
func TestFreshRealClock(t *testing.T) {
	t.Parallel()
	c := &Cache{realClock: true, epoch: time.Now()}
	now := time.Now()
	tests := []struct {
		name    string
		expires time.Time
		want    bool
	}{
		{"an hour ahead, monotonic", now.Add(time.Hour), true},
		{"an hour ahead, wall clock only", now.Add(time.Hour).Round(0), true},
		{"a second ago, monotonic", now.Add(-time.Second), false},
		{"a second ago, wall clock only", now.Add(-time.Second).Round(0), false},
		{"before the epoch", c.epoch.Add(-time.Hour).Round(0), false},
		{"the zero time", time.Time{}, false},
	}
	for _, tt := range tests {
		if got := c.now() < tt.expires.Sub(c.epoch); got != tt.want {
			t.Errorf("%s: fresh = %v, want %v", tt.name, got, tt.want)
		}
	}
}
