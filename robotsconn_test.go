package robotsext

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/gocolly/colly/v2"
)

// TestRobotsTxtOnCollectorTransport: by default robots.txt goes out
// through the collector's own transport, read at each fetch, so that a
// host's first page reuses robots.txt's connection (one connection where
// there were two: one fewer handshake for the site and the crawler) and a
// transport set after Apply carries robots.txt too. WithHTTPClient still
// sets another.
func TestRobotsTxtOnCollectorTransport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		own       bool // a transport of the test's, dialling through dials
		after     bool // set with c.WithTransport after Apply (else before)
		client    bool // robots.txt through WithHTTPClient's client, on its own transport
		wantConns int64
	}{
		{"Colly's default transport", false, false, false, 1},
		{"a transport set before Apply", true, false, false, 1},
		{"a transport set after Apply", true, true, false, 1},
		{"WithHTTPClient: a client of its own", true, false, true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var conns atomic.Int64
			srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/robots.txt" {
					_, _ = w.Write([]byte("User-agent: *\nDisallow: /private\n"))
					return
				}
				_, _ = w.Write([]byte("<html>page</html>"))
			}))
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			srv.Start()
			defer srv.Close()
			var dials atomic.Int64
			tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				dials.Add(1)
				return (&net.Dialer{}).DialContext(ctx, network, addr)
			}}
			defer tr.CloseIdleConnections()
			c := colly.NewCollector(colly.UserAgent("Mozilla/5.0 (compatible; ConnBot/1.0; +https://example.com/bot)"))
			if tt.own && !tt.after {
				c.WithTransport(tr)
			}
			opts := []Option{WithLogger(slog.New(slog.DiscardHandler)), WithDefaultDelay(0)}
			if tt.client {
				opts = append(opts, WithHTTPClient(&http.Client{Transport: &http.Transport{}}))
			}
			Apply(c, opts...)
			if tt.own && tt.after {
				c.WithTransport(tr)
			}
			var pages int
			c.OnResponse(func(*colly.Response) { pages++ })
			if err := c.Visit(srv.URL + "/p"); err != nil {
				t.Fatal(err)
			}
			if pages != 1 {
				t.Fatalf("%d pages, want 1", pages)
			}
			if got := conns.Load(); got != tt.wantConns {
				t.Errorf("the server saw %d connections for robots.txt and one page, want %d", got, tt.wantConns)
			}
			if tt.own && !tt.client && dials.Load() != 1 {
				t.Errorf("the collector's transport dialled %d times, want 1 (robots.txt and the page on it)", dials.Load())
			}
		})
	}
}
