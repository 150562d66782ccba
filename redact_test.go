package robotsext

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/redact"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a slog
// handler used by several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestNoCredentialInLogsOrErrors crawls a loopback site through Colly
// with every log level captured (issue 31, item 2): URLs with user:password
// userinfo (blocked pages, a redirect into a disallowed path, a robots.txt
// redirect loop through such URLs, invalid URLs given to Forget and
// Check) and WithHeaders credentials (Authorization, Cookie,
// Proxy-Authorization) sent to a robots.txt that fails. No password or
// header value appears in any log line or error text; the URLs do, with
// xxxxx for their userinfo.
func TestNoCredentialInLogsOrErrors(t *testing.T) {
	t.Parallel()
	secrets := []string{"PASSWORD1", "PASSWORD2", "PASSWORD3", "PASSWORD4", "TOKEN5", "COOKIE6", "PROXY7", "PASSWORD8"}
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.Host == "loop.test" && r.URL.Path == "/robots.txt":
			http.Redirect(w, r, strings.Replace(srv.URL, "http://", "http://u:PASSWORD8@", 1)+"/loop/robots.txt", http.StatusFound)
		case r.URL.Path == "/loop/robots.txt":
			http.Redirect(w, r, strings.Replace(srv.URL, "http://", "http://u:PASSWORD8@", 1)+"/loop/robots.txt", http.StatusFound)
		case r.Host == "down.test":
			http.Error(w, "down", http.StatusServiceUnavailable)
		case r.URL.Path == "/robots.txt":
			w.Write([]byte("User-agent: *\nDisallow: /private\n"))
		case r.URL.Path == "/go":
			http.Redirect(w, r, strings.Replace(srv.URL, "http://", "http://user:PASSWORD2@", 1)+"/private/x", http.StatusFound)
		default:
			w.Write([]byte("<html>page</html>"))
		}
	}))
	t.Cleanup(srv.Close)

	var logs syncBuffer
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c := colly.NewCollector(colly.UserAgent("AcmeBot/1.0"))
	c.WithTransport(&http.Transport{Proxy: func(*http.Request) (*url.URL, error) { return nil, nil }})
	hdr := http.Header{}
	hdr.Set("Authorization", "Bearer TOKEN5")
	hdr.Set("Cookie", "session=COOKIE6")
	hdr.Set("Proxy-Authorization", "Basic PROXY7")
	ext := Apply(c, WithLogger(logger), WithHeaders(hdr), WithDefaultDelay(0)) // the subject is redaction, not the pace
	var errs []string
	// Colly's OnError gets net/http's *url.Error around the Extension's
	// error, with the raw Location net/http puts there: only the
	// Extension's own error is checked.
	c.OnError(func(_ *colly.Response, err error) {
		var b *BlockedError
		if errors.As(err, &b) {
			errs = append(errs, b.Error())
		}
	})

	withUser := func(user string) string { return strings.Replace(srv.URL, "http://", "http://"+user+"@", 1) }
	_ = c.Visit(withUser("user:PASSWORD1") + "/private/a") // blocked
	_ = c.Visit(srv.URL + "/go")                           // redirect into /private with userinfo
	c.Wait()
	ctx := context.Background()
	if err := ext.Forget(ctx, "http://user:PASSWORD3@[::1/x"); err != nil {
		errs = append(errs, err.Error())
	}
	if _, err := ext.Check("http://user:PASSWORD4@host:99999999/x"); err != nil {
		errs = append(errs, err.Error())
	}
	// robots.txt fetches carrying the WithHeaders credentials, through
	// the site's listener under other host names.
	cl := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, srv.Listener.Addr().String())
	}}}
	ext2 := Apply(nil, WithLogger(logger), WithHeaders(hdr), WithHTTPClient(cl), WithUserAgent("AcmeBot"), WithDefaultDelay(0))
	for _, u := range []string{"http://down.test/p", "http://loop.test/p"} {
		v, err := ext2.Check(u)
		if err != nil {
			errs = append(errs, err.Error())
		}
		if v.Err != nil {
			errs = append(errs, v.Err.Error())
		}
	}

	all := logs.String() + "\n" + strings.Join(errs, "\n")
	for _, s := range secrets {
		if strings.Contains(all, s) {
			t.Errorf("%s printed:\n%s", s, all)
		}
	}
	for _, want := range []string{"robotsext: blocked", "xxxxx@", "invalid URL", "unreachable"} {
		if !strings.Contains(all, want) {
			t.Errorf("%q not printed (the case did not run?):\n%s", want, all)
		}
	}
}

// FuzzRedactRawURL checks, for any text, that whatever net/url or the
// WHATWG parser Colly uses reads as the userinfo of redact.RawURL's result
// is xxxxx at most, and that text without an @ comes back unchanged.
func FuzzRedactRawURL(f *testing.F) {
	for _, s := range []string{"http://user:secret@host/p", "https://t@h:1/?a=@#@", "http:\\\\u:p@h\\x", "http:u:p@h", "mailto:a@b", "//u:p@h/", "http://[::1]:80/", "x"} {
		f.Add(s)
	}
	ext := Apply(nil)
	f.Fuzz(func(t *testing.T, s string) {
		r := redact.RawURL(s)
		if !strings.Contains(s, "@") && r != s {
			t.Fatalf("%q without @ became %q", s, r)
		}
		if u, err := url.Parse(r); err == nil && u.User != nil && u.User.String() != redact.Mask {
			t.Fatalf("%q redacted to %q, whose userinfo for net/url is %q", s, r, u.User.String())
		}
		if u, err := ext.parseAsColly(r); err == nil && u.User != nil && u.User.String() != redact.Mask {
			t.Fatalf("%q redacted to %q, whose userinfo for Colly's parser is %q", s, r, u.User.String())
		}
	})
}
