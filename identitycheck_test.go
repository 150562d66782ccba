package robotsext

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/useragent"
)

func TestCheckIdentity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		ua                            string
		token                         string
		noToken, isDefault, noContact bool
	}{
		{"Mozilla/5.0 (compatible; FooBot/1.0; +https://example.com/bot)", "FooBot", false, false, false},
		{"FooBot/1.0 (+http://foo.test/bot.html)", "FooBot", false, false, false},
		{"FooBot/1.0 (crawler-ops@foo.test)", "FooBot", false, false, false},
		{"FooBot/1.0 (mailto:Ops.Team+bot@mail.foo.test)", "FooBot", false, false, false},
		{"FooBot/1.0 (HTTPS://FOO.TEST)", "FooBot", false, false, false},
		{"FooBot/1.0", "FooBot", false, false, true},
		{"FooBot/1.0 (+www.foo.test/bot)", "FooBot", false, false, true}, // no scheme: not a URL
		{"FooBot/1.0 (https://)", "FooBot", false, false, true},
		{"FooBot/1.0 (me@localhost)", "FooBot", false, false, true},
		{"FooBot/1.0 (@foo.test)", "FooBot", false, false, true},
		{"FooBot/1.0 (a@b.c1)", "FooBot", false, false, true},
		{"colly - https://github.com/gocolly/colly", "colly", false, true, false},
		{"Go-http-client/1.1", "Go-http-client", false, true, true},
		{"robotsext", "robotsext", false, true, true},
		{"ROBOTSEXT/2 (+https://me.test)", "ROBOTSEXT", false, true, false},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36", "", true, false, true},
		{"", "", true, false, true},
	}
	for _, tt := range tests {
		err := CheckIdentity(tt.ua)
		if !tt.noToken && !tt.isDefault && !tt.noContact {
			if err != nil {
				t.Errorf("CheckIdentity(%q) = %v, want nil", tt.ua, err)
			}
			continue
		}
		var ie *IdentityError
		if !errors.As(err, &ie) || !errors.Is(err, ErrIdentity) {
			t.Errorf("CheckIdentity(%q) = %v, want an *IdentityError", tt.ua, err)
			continue
		}
		if ie.UserAgent != tt.ua || ie.Token != tt.token || ie.NoToken != tt.noToken || ie.DefaultToken != tt.isDefault || ie.NoContact != tt.noContact {
			t.Errorf("CheckIdentity(%q) = %+v", tt.ua, ie)
		}
		msg := err.Error()
		if tt.noContact && !strings.Contains(msg, "contact") || !strings.Contains(msg, useragent.Recommended) ||
			tt.isDefault && !strings.Contains(msg, "default") {
			t.Errorf("CheckIdentity(%q): %s", tt.ua, msg)
		}
	}
}

// identityLog collects the Warn records of one Extension.
type identityLog struct {
	mu   sync.Mutex
	recs []string
}

func (l *identityLog) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelWarn, ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey {
			return slog.Attr{}
		}
		return a
	}}))
}

func (l *identityLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.recs = append(l.recs, strings.TrimSpace(string(p)))
	return len(p), nil
}

func (l *identityLog) matching(sub string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, r := range l.recs {
		if strings.Contains(r, sub) {
			out = append(out, r)
		}
	}
	return out
}

// TestIdentityWarnings crawls one page with a collector of each kind of
// User-Agent, then one with a second collector and one with a clone:
// each distinct User-Agent requests carry (robots.txt's included) is
// judged once, a contact-less one gets one "contact" record showing the
// recommended form with the crawler's own name, a framework's default
// token one record naming it, a User-Agent with a token and a contact
// neither. Each record is a sentence about what requests carry.
func TestIdentityWarnings(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	tests := []struct {
		name, ua, attachedUA string
		contact, deflt       int
		recommended          []string // the recommended forms shown
	}{
		{"identifiable", "Mozilla/5.0 (compatible; FooBot/1.0; +https://example.com/bot)", "FooBot/2.0 (ops@foo.test)", 0, 0, nil},
		{"no contact", "FooBot/1.0", "FooBot/1.1", 2, 0,
			[]string{"Mozilla/5.0 (compatible; FooBot/1.0; +https://example.com/bot)", "Mozilla/5.0 (compatible; FooBot/1.1; +https://example.com/bot)"}},
		{"the crawler's own name", "AcmeBot/2.1", "AcmeBot/2.1", 1, 0, []string{"Mozilla/5.0 (compatible; AcmeBot/2.1; +https://example.com/bot)"}},
		{"colly's default", "", "", 0, 1, []string{useragent.Recommended}},
		{"Go's default, then Colly's", "Go-http-client/1.1", "", 1, 2, []string{useragent.Recommended}},
		// Pages carry no User-Agent; robots.txt is asked for as "robotsext".
		{"empty", "-", "-", 2, 1, []string{useragent.Recommended}},
		{"second collector without contact", "FooBot/1.0 (+https://foo.test/bot)", "FooBot/1.0", 1, 0,
			[]string{"Mozilla/5.0 (compatible; FooBot/1.0; +https://example.com/bot)"}},
	}
	sentence := regexp.MustCompile(`msg="robotsext: requests carry (the User-Agent \\".*\\"|an empty User-Agent), which (carries no contact|names the crawler by a framework's default product token)`)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var log identityLog
			newC := func(ua string) *colly.Collector {
				c := colly.NewCollector()
				if ua != "" {
					c.UserAgent = strings.Trim(ua, "-")
				}
				return c
			}
			c := newC(tt.ua)
			e := Apply(c, WithLogger(log.logger()), WithDefaultDelay(0)) // the identity, not the pace
			d := newC(tt.attachedUA)
			e.Attach(d)
			clone := c.Clone()
			e.Attach(clone)
			for i, col := range []*colly.Collector{c, d, clone, c} {
				_ = col.Visit(fmt.Sprintf("%s/p%d", srv.URL, i))
			}
			contact := log.matching("carries no contact")
			deflt := log.matching("framework's default")
			if len(contact) != tt.contact {
				t.Errorf("contact records %q, want %d", contact, tt.contact)
			}
			if len(deflt) != tt.deflt {
				t.Errorf("default-token records %q, want %d", deflt, tt.deflt)
			}
			all := append(contact, deflt...)
			for _, r := range all {
				if !sentence.MatchString(r) {
					t.Errorf("record %s does not read as a sentence about what requests carry", r)
				}
				t.Logf("%s", r)
			}
			for _, rec := range tt.recommended {
				if !slices.ContainsFunc(all, func(r string) bool { return strings.Contains(r, rec) }) {
					t.Errorf("no record recommends %q", rec)
				}
			}
			if tt.recommended != nil && !slices.Contains(tt.recommended, useragent.Recommended) {
				for _, r := range all {
					if strings.Contains(r, "FooBot") && !strings.Contains(tt.ua+tt.attachedUA, "FooBot") {
						t.Errorf("record %s recommends FooBot to a crawler with a name of its own", r)
					}
				}
			}
		})
	}
}

// TestIdentityJudgedBound: a crawl rotating User-Agents is judged for the
// first useragent.MaxJudged of them, then says once that the others are not.
func TestIdentityJudgedBound(t *testing.T) {
	t.Parallel()
	var log identityLog
	e := Apply(nil, WithLogger(log.logger()))
	for i := range useragent.MaxJudged + 10 {
		ua := fmt.Sprintf("Bot%c%c/1.0", 'a'+i/26, 'a'+i%26)
		e.judgeSent(ua)
		e.judgeSent(ua)
	}
	if n := len(log.matching("carries no contact")); n != useragent.MaxJudged {
		t.Errorf("%d contact records, want %d", n, useragent.MaxJudged)
	}
	if n := len(log.matching("distinct User-Agents")); n != 1 {
		t.Errorf("%d records of the bound, want 1", n)
	}
	if n := e.ident.judged.Len(); n != useragent.MaxJudged {
		t.Errorf("%d User-Agents remembered, want %d", n, useragent.MaxJudged)
	}
}

// strictSite is a site that counts what reaches it.
type strictSite struct {
	*httptest.Server
	mu   sync.Mutex
	hits []string
}

func newStrictSite(t *testing.T) *strictSite {
	s := &strictSite{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits = append(s.hits, r.URL.Path+" "+r.UserAgent())
		s.mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
		}
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *strictSite) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.hits...)
}

// TestStrictIdentity crawls under WithStrictIdentity: while the
// User-Agent is Colly's default nothing reaches the site, robots.txt
// included, and each request reaches OnBlocked with ReasonIdentity and
// the IdentityError; once the User-Agent is fixed the crawl goes out. In
// shadow mode the same requests are reported and sent.
func TestStrictIdentity(t *testing.T) {
	t.Parallel()
	for _, shadow := range []bool{false, true} {
		t.Run(fmt.Sprint("shadow=", shadow), func(t *testing.T) {
			t.Parallel()
			s := newStrictSite(t)
			c := colly.NewCollector()
			opts := []Option{WithStrictIdentity(), WithLogger(slog.New(slog.DiscardHandler)), WithDefaultDelay(0)} // the identity, not the pace
			if shadow {
				opts = append(opts, WithShadowMode())
			}
			e := Apply(c, opts...)
			var mu sync.Mutex
			var refused []Verdict
			e.OnBlocked(func(r *colly.Request, v Verdict) {
				mu.Lock()
				refused = append(refused, v)
				mu.Unlock()
			})
			c.Visit(s.URL + "/a")
			c.Visit(s.URL + "/b")
			if got := s.seen(); !shadow && len(got) != 0 || shadow && len(got) != 3 {
				t.Errorf("the site saw %q", got)
			}
			if len(refused) != 2 || refused[0].Reason != ReasonIdentity || !errors.Is(refused[0].Err, ErrIdentity) {
				t.Fatalf("OnBlocked saw %+v", refused)
			}
			var ie *IdentityError
			if !errors.As(refused[0].Err, &ie) || ie.Token != "colly" || !ie.DefaultToken {
				t.Errorf("Err %v", refused[0].Err)
			}
			if n := e.Stats().Blocked[ReasonIdentity]; n != 2 {
				t.Errorf("Stats.Blocked[identity] = %d", n)
			}
			c.UserAgent = "Mozilla/5.0 (compatible; FooBot/1.0; +https://foo.test/bot)"
			c.Visit(s.URL + "/c")
			got := s.seen()
			if len(got) == 0 || !strings.HasPrefix(got[len(got)-1], "/c Mozilla/5.0 (compatible; FooBot") || len(refused) != 2 {
				t.Errorf("after the fix the site saw %q; OnBlocked %d", got, len(refused))
			}
		})
	}
}

// BenchmarkJudgeSent is what the OnRequestHeaders hook pays per request
// for the identity checks once the User-Agent sent has been judged: a
// map lookup of the header, an atomic load and a compare.
func BenchmarkJudgeSent(b *testing.B) {
	e := Apply(nil, WithLogger(slog.New(slog.DiscardHandler)))
	h := http.Header{"User-Agent": {"Mozilla/5.0 (compatible; FooBot/1.0; +https://example.com/bot)"}, "Accept": {"*/*"}}
	e.judgeSent(sentUserAgent(&h))
	b.ReportAllocs()
	for b.Loop() {
		e.judgeSent(sentUserAgent(&h))
	}
}
