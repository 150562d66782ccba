package robotsext

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestDefaultPaceSaid: the default pace is announced once per Extension
// at Info, with its value and the option that changes it, and each host
// paced by it at Debug; a host stating its Crawl-delay is not named, and
// nothing is said while the default pace is off.
func TestDefaultPaceSaid(t *testing.T) {
	t.Parallel()
	site := func(robots string) *httptest.Server {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/robots.txt" && robots != "" {
				io.WriteString(w, robots)
				return
			}
			http.NotFound(w, r)
		}))
		t.Cleanup(srv.Close)
		return srv
	}
	silentA, silentB := site("User-agent: *\nDisallow: /private\n"), site("") // a 404 states nothing either
	stated := site("User-agent: *\nCrawl-delay: 2\n")
	tests := []struct {
		name string
		opts []Option
		info string // "" : no Info record
	}{
		{"DefaultDelay", nil, "one request every 1s per host (DefaultDelay; WithDefaultDelay changes it)"},
		{"WithDefaultDelay", []Option{WithDefaultDelay(250 * time.Millisecond)}, "one request every 250ms per host (WithDefaultDelay's)"},
		{"capped", []Option{WithMaxCrawlDelay(500 * time.Millisecond)}, "one request every 500ms per host (DefaultDelay, capped by WithMaxCrawlDelay"},
		{"off", []Option{WithDefaultDelay(0)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var l seamLog
			ext := Apply(nil, append([]Option{WithLogger(l.logger(slog.LevelDebug))}, tt.opts...)...)
			// Check fetches robots.txt and loads the host's pace without
			// waiting for it.
			for _, u := range []string{silentA.URL + "/a", silentA.URL + "/b", silentB.URL + "/a", stated.URL + "/a"} {
				if _, err := ext.Check(u); err != nil {
					t.Fatal(err)
				}
			}
			logs := l.String()
			info := l.count("level=INFO msg=\"robotsext: hosts whose robots.txt states no Crawl-delay are paced at the default pace")
			if tt.info == "" {
				if info != 0 || l.count("level=DEBUG msg=\"robotsext: robots.txt states no Crawl-delay") != 0 {
					t.Errorf("the default pace is off, yet:\n%s", logs)
				}
				return
			}
			if info != 1 || !strings.Contains(logs, tt.info) {
				t.Errorf("%d Info records, want 1 saying %q:\n%s", info, tt.info, logs)
			}
			for _, srv := range []*httptest.Server{silentA, silentB} {
				host := strings.TrimPrefix(srv.URL, "http://")
				if n := l.count("states no Crawl-delay: the host is paced at the default pace\" host=" + host); n != 1 {
					t.Errorf("%d Debug records for %s, want 1:\n%s", n, host, logs)
				}
			}
			if host := strings.TrimPrefix(stated.URL, "http://"); l.count("default pace\" host="+host) != 0 || l.count("first_host="+host) != 0 {
				t.Errorf("the host stating its Crawl-delay is named:\n%s", logs)
			}
		})
	}
}
