package robotsext

import (
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/gocolly/colly/v2"
)

var errStopRedirects = errors.New("no redirects, thank you")

// TestResponsesCollyRefusedRedirect: a redirect that Colly refuses to
// follow (its target already visited, or outside the collector's domains
// or URL filters) got a 3xx, and is counted so; "no response" is kept for
// a request that got no status line (a hang-up). So is a redirect the
// user's own redirect handler refuses.
func TestResponsesCollyRefusedRedirect(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	mux.HandleFunc("/target", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	mux.HandleFunc("/to-target", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/target", http.StatusFound) })
	mux.HandleFunc("/to-elsewhere", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://elsewhere.invalid/x", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/to-filtered", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/filtered/x", http.StatusFound) })
	mux.HandleFunc("/hangup", func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	host := regexp.MustCompile(`^https?://[^/]+`).FindString(srv.URL)

	tests := []struct {
		name    string
		setup   func(c *colly.Collector)
		visits  []string
		wantErr func(error) bool
		want    map[StatusClass]uint64
	}{
		{"target already visited", nil, []string{"/target", "/to-target"},
			func(err error) bool { var av *colly.AlreadyVisitedError; return errors.As(err, &av) },
			map[StatusClass]uint64{Status2xx: 1, Status3xx: 1}},
		{"target outside the allowed domains", func(c *colly.Collector) { c.AllowedDomains = []string{"127.0.0.1"} }, []string{"/to-elsewhere"},
			func(err error) bool { return errors.Is(err, colly.ErrForbiddenDomain) },
			map[StatusClass]uint64{Status3xx: 1}},
		{"target outside the URL filters", func(c *colly.Collector) {
			c.URLFilters = []*regexp.Regexp{regexp.MustCompile(regexp.QuoteMeta(host) + "/to-")}
		}, []string{"/to-filtered"},
			func(err error) bool { return errors.Is(err, colly.ErrNoURLFiltersMatch) },
			map[StatusClass]uint64{Status3xx: 1}},
		{"target refused by the user's redirect handler", nil, []string{"/to-target"},
			func(err error) bool { return errors.Is(err, errStopRedirects) },
			map[StatusClass]uint64{Status3xx: 1}},
		{"no status line", nil, []string{"/hangup"},
			func(err error) bool { return err != nil },
			map[StatusClass]uint64{NoResponse: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; CountBot/1.0; +https://count.example/bot)"))
			if tt.setup != nil {
				tt.setup(c)
			}
			opts := []Option{WithDefaultDelay(0), quiet()} // the subject is the count, not the pace
			if strings.Contains(tt.name, "redirect handler") {
				opts = append(opts, WithRedirectHandler(func(*http.Request, []*http.Request) error { return errStopRedirects }))
			}
			ext := Apply(c, opts...)
			var errs []error
			c.OnError(func(_ *colly.Response, err error) { errs = append(errs, err) })
			for _, p := range tt.visits {
				_ = c.Visit(srv.URL + p)
			}
			if len(errs) != 1 || !tt.wantErr(errs[0]) {
				t.Errorf("OnError saw %v", errs)
			}
			if got := ext.Stats().Responses; !maps.Equal(got, tt.want) {
				t.Errorf("Stats().Responses = %v, want %v", got, tt.want)
			}
		})
	}
}
