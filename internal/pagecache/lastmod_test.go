package pagecache

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"
)

func TestUnchanged(t *testing.T) {
	t.Parallel()
	day := func(d int) time.Time { return time.Date(2024, 5, d, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		name    string
		lm      string    // the stored copy's Last-Modified, "" for none
		status  int       // the stored copy's status, 0 for nothing stored
		lastmod time.Time // the sitemap's claim
		want    bool
	}{
		{"older claim than Last-Modified", day(10).Format(http.TimeFormat), 200, day(9), true},
		{"same instant", day(10).Format(http.TimeFormat), 200, day(10), true},
		{"changed after Last-Modified", day(10).Format(http.TimeFormat), 200, day(11), false},
		{"no Last-Modified: stored after the change", "", 200, day(11), true}, // stored on day 12
		{"no Last-Modified: changed after it was stored", "", 200, day(13), false},
		{"unreadable Last-Modified: the stored time", "yesterday", 200, day(11), true},
		{"no lastmod", day(10).Format(http.TimeFormat), 200, time.Time{}, false},
		{"nothing stored", "", 0, day(1), false},
		{"a stored 404", "", 404, day(1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			st := &Memory{}
			c := New(Config{Store: st, Now: func() time.Time { return day(12) }})
			u, _ := url.Parse("https://ex.com/p")
			if tc.status != 0 {
				h := http.Header{}
				if tc.lm != "" {
					h.Set("Last-Modified", tc.lm)
				}
				e := &Entry{Method: "GET", URL: u.String(), Status: tc.status, Header: h, RequestTime: day(12), ResponseTime: day(12)}
				b, err := e.Encode()
				if err != nil {
					t.Fatal(err)
				}
				_ = st.Set(context.Background(), Key("GET", u), b)
			}
			if got := c.Unchanged(context.Background(), u, http.Header{}, tc.lastmod); got != tc.want {
				t.Fatalf("Unchanged = %v, want %v", got, tc.want)
			}
		})
	}
}
