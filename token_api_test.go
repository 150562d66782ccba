package robotsext

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

// tokenMisuseRobots refuses everything to "*" and allows everything to
// MyBot: a crawler asking with anything but its bare token is refused.
const tokenMisuseRobots = "User-agent: *\nDisallow: /\nCrawl-delay: 9\n\nUser-agent: MyBot\nAllow: /\nCrawl-delay: 1\n"

// TestTokenMisuseIsLoud: Policy.Check and Robots.Verdict given a version
// or a whole User-Agent instead of the product token keep the reference
// decision for the string as given (the "*" group's refusal) but say so in
// Verdict.TokenErr, a TokenError wrapping ErrNotProductToken that names
// the token ProductToken finds; that token, passed instead, gets MyBot's
// own group. ValidToken agrees, and CrawlDelay answers "*" for the
// misused string.
func TestTokenMisuseIsLoud(t *testing.T) {
	t.Parallel()
	p := ParsePolicy([]byte(tokenMisuseRobots))
	r := &Robots{Outcome: OutcomeOK, Policy: p}
	for _, tt := range []struct {
		name, given string
		misuse      bool
		derived     string // ProductToken(given)
	}{
		{"bare token", "MyBot", false, "MyBot"},
		{"token in another case", "mybot", false, "mybot"},
		{"star", "*", false, ""},
		{"version", "MyBot/1.0", true, "MyBot"},
		{"whole User-Agent", "Mozilla/5.0 (compatible; MyBot/1.0; +https://mybot.example/)", true, "MyBot"},
		{"browser User-Agent", "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36", true, ""},
		{"padded token", " MyBot ", true, "MyBot"},
		{"empty", "", true, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The decision for the string as given: only a bare MyBot
			// (any case) names MyBot's group.
			wantAllowed := tt.given == "MyBot" || tt.given == "mybot"
			for _, v := range []Verdict{p.Check(tt.given, "/page"), r.Verdict(tt.given, "https://site.example/page", FailClosed)} {
				if v.Allowed != wantAllowed {
					t.Errorf("Allowed = %v, want %v (the reference decision for %q)", v.Allowed, wantAllowed, tt.given)
				}
				if !tt.misuse {
					if v.TokenErr != nil {
						t.Errorf("TokenErr = %v for a product token", v.TokenErr)
					}
					continue
				}
				var te TokenError
				if !errors.Is(v.TokenErr, ErrNotProductToken) || !errors.As(v.TokenErr, &te) || te.Given != tt.given || te.Token != tt.derived {
					t.Errorf("TokenErr = %#v; want a TokenError for %q naming %q", v.TokenErr, tt.given, tt.derived)
				}
			}
			if err := ValidToken(tt.given); (err != nil) != tt.misuse {
				t.Errorf("ValidToken(%q) = %v, want an error: %v", tt.given, err, tt.misuse)
			}
			if tt.given == "*" {
				return
			}
			tok, ok := ProductToken(tt.given)
			if tok != tt.derived || ok != (tt.derived != "") {
				t.Errorf("ProductToken(%q) = %q, %v; want %q", tt.given, tok, ok, tt.derived)
			}
			if tt.derived == "" {
				return
			}
			// The derived token gets the crawler's own group and delay.
			if v := p.Check(tok, "/page"); !v.Allowed || v.TokenErr != nil {
				t.Errorf("Check(%q) = %+v, want allowed by MyBot's group", tok, v)
			}
			if d, _ := p.CrawlDelay(tok); d != time.Second {
				t.Errorf("CrawlDelay(%q) = %v, want MyBot's 1s", tok, d)
			}
			if d, _ := p.CrawlDelay(tt.given); tt.misuse && d != 9*time.Second {
				t.Errorf("CrawlDelay(%q) = %v, want the \"*\" group's 9s for a string that is not a token", tt.given, d)
			}
		})
	}
}

// TestProductTokenIsTheHooks: ProductToken derives what the Extension
// derives from the collector's User-Agent when WithUserAgent is not given.
func TestProductTokenIsTheHooks(t *testing.T) {
	t.Parallel()
	for _, ua := range []string{
		"MyBot/1.0",
		"Mozilla/5.0 (compatible; MyBot/1.0; +https://mybot.example/)",
		"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/120.0.0.0 Safari/537.36",
		"colly - https://github.com/gocolly/colly/v2",
	} {
		e := Apply(nil, WithHeaders(http.Header{"User-Agent": {ua}}), quiet())
		want, _ := ProductToken(ua)
		if got := e.token(); got != want || want == "" {
			t.Errorf("User-Agent %q: the Extension matches as %q, ProductToken gives %q", ua, got, want)
		}
	}
}
