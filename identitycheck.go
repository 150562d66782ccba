package robotsext

// This file checks that a site can tell which crawler is calling and how
// to reach its operator: the User-Agent names a crawler of its own and
// carries a contact. Apply and Attach warn once per Extension;
// WithStrictIdentity refuses to crawl until the User-Agent passes.

import (
	"errors"
	"strings"
	"sync/atomic"

	"github.com/gocolly/colly/v2"
)

// ErrIdentity: the crawler cannot say who it is. CheckIdentity's
// *IdentityError wraps it, and so does the Err of every ReasonIdentity
// Verdict.
var ErrIdentity = errors.New("robotsext: the crawler cannot be identified")

// recommendedUA is the form of User-Agent the checks recommend: a
// "compatible;" element naming the crawler, its version, and a URL where
// site owners learn who runs it and how to reach them.
const recommendedUA = "Mozilla/5.0 (compatible; FooBot/1.0; +https://example.com/bot)"

// defaultTokens are product tokens that name a framework, not a crawler:
// Colly's default User-Agent ("colly - https://github.com/gocolly/colly"),
// Go's net/http default, and the token the Extension falls back to when
// the User-Agent is empty.
var defaultTokens = [...]string{"colly", "Go-http-client", "robotsext"}

// IdentityError says what a User-Agent lacks for a site to identify the
// crawler sending it; it wraps ErrIdentity. CheckIdentity returns it.
type IdentityError struct {
	UserAgent string // the User-Agent checked
	Token     string // its product token (see ProductToken); "" when it names no crawler
	// NoToken: the User-Agent names no crawler (a browser's, or empty),
	// so robots.txt's groups for the crawler cannot apply.
	NoToken bool
	// DefaultToken: the token is a framework's default ("colly",
	// "Go-http-client", "robotsext"), shared by every crawler built
	// on it.
	DefaultToken bool
	// NoContact: the User-Agent carries no http(s) URL and no e-mail
	// address where the operator can be reached.
	NoContact bool
}

func (e *IdentityError) Error() string {
	var what []string
	if e.NoToken {
		what = append(what, "names no crawler")
	}
	if e.DefaultToken {
		d := "its product token " + quote(e.Token) + " is a framework's default, not the crawler's own name"
		if strings.EqualFold(e.Token, "colly") {
			d += " (Colly's default User-Agent carries Colly's URL, not the operator's)"
		}
		what = append(what, d)
	}
	if e.NoContact {
		what = append(what, "carries no contact (no http(s) URL and no e-mail address)")
	}
	return "robotsext: User-Agent " + quote(e.UserAgent) + " " + strings.Join(what, " and ") +
		"; write it as " + quote(recommendedUA) + ", with your crawler's name and a page about it"
}

// Unwrap returns ErrIdentity.
func (e *IdentityError) Unwrap() error { return ErrIdentity }

func quote(s string) string { return `"` + s + `"` }

// CheckIdentity returns nil when userAgent lets a site identify the
// crawler and reach its operator, as in
// "Mozilla/5.0 (compatible; FooBot/1.0; +https://example.com/bot)": it
// names a crawler (ProductToken finds a token) that is not a framework's
// default ("colly", "Go-http-client", "robotsext"), and carries a contact,
// an http or https URL or an e-mail address. Otherwise it returns an
// *IdentityError saying what is missing. The checks are those Apply and
// Attach warn about, and that WithStrictIdentity enforces.
func CheckIdentity(userAgent string) error {
	e := &IdentityError{UserAgent: userAgent}
	e.Token, _ = ProductToken(userAgent)
	e.NoToken = e.Token == ""
	for _, d := range defaultTokens {
		e.DefaultToken = e.DefaultToken || strings.EqualFold(e.Token, d)
	}
	e.NoContact = !hasContactAddress(userAgent)
	if e.NoToken || e.DefaultToken || e.NoContact {
		return e
	}
	return nil
}

// hasContactAddress reports whether s carries an http or https URL (the
// scheme, "://" and a host) or an e-mail address (local@domain.tld).
func hasContactAddress(s string) bool {
	for _, scheme := range [...]string{"http://", "https://"} {
		for i := 0; i+len(scheme) < len(s); {
			j := indexFold(s[i:], scheme)
			if j < 0 {
				break
			}
			if k := i + j + len(scheme); k < len(s) && isAlnum(s[k]) {
				return true
			}
			i += j + 1
		}
	}
	for i := strings.IndexByte(s, '@'); i >= 0; {
		if isMailbox(s, i) {
			return true
		}
		j := strings.IndexByte(s[i+1:], '@')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return false
}

// isMailbox reports whether the '@' at s[at] joins a local part and a
// domain of at least two labels, the last of two letters or more.
func isMailbox(s string, at int) bool {
	l := at
	for l > 0 && (isAlnum(s[l-1]) || strings.IndexByte(".!#$%&'*+/=?^_`{|}~-", s[l-1]) >= 0) {
		l--
	}
	r := at + 1
	for r < len(s) && (isAlnum(s[r]) || s[r] == '.' || s[r] == '-') {
		r++
	}
	domain := strings.TrimRight(s[at+1:r], ".")
	dot := strings.LastIndexByte(domain, '.')
	if l == at || dot <= 0 || len(domain)-dot-1 < 2 {
		return false
	}
	for _, c := range []byte(domain[dot+1:]) {
		if !isLetter(c) {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isAlnum(c byte) bool  { return isLetter(c) || c >= '0' && c <= '9' }

// WithStrictIdentity refuses to crawl while the crawler cannot be
// identified, as Heritrix refuses to start without an operator contact: a
// request whose User-Agent fails CheckIdentity (no crawler name, a
// framework's default name, no contact) is not sent. It reaches OnBlocked
// with ReasonIdentity and an *IdentityError in Verdict.Err, and is
// counted in Stats.Blocked; robots.txt is not fetched for it. In shadow
// mode such requests are reported and sent. Without this option the same
// problems are only logged, once, at Apply and Attach.
func WithStrictIdentity() Option {
	return func(c *config) { c.strictIdentity = true }
}

// identityState is what the identity checks of one Extension remember.
type identityState struct {
	warnedContact atomic.Bool                    // the missing contact was logged
	warnedDefault atomic.Bool                    // the framework's default token was logged
	last          atomic.Pointer[identityResult] // WithStrictIdentity's latest check
}

// identityResult is CheckIdentity's answer for one User-Agent.
type identityResult struct {
	ua  string
	err error
}

// attachIdentity checks the identity c presents, logging each problem
// once per Extension, and installs c's identity gate when requests may
// have to be refused for it. It runs before any other hook of the
// Extension is registered, so the gate runs first.
func (e *Extension) attachIdentity(c *colly.Collector) {
	ua := pageUserAgent(c)
	if ua == "" { // pages go out without one; robots.txt is asked for as the token
		ua = e.token()
	}
	if err, ok := CheckIdentity(ua).(*IdentityError); ok {
		if err.NoContact && e.ident.warnedContact.CompareAndSwap(false, true) {
			e.cfg.logger.Warn("robotsext: the User-Agent carries no contact (no http(s) URL and no e-mail address): site owners cannot tell who runs the crawler nor reach them; write it in the recommended form, with a page about your crawler",
				"user_agent", ua, "recommended", recommendedUA)
		}
		if err.DefaultToken && e.ident.warnedDefault.CompareAndSwap(false, true) {
			msg := "robotsext: the User-Agent's product token is a framework's default, not your crawler's name: sites and robots.txt cannot tell your crawler from any other built on it; name it in the recommended form"
			if strings.EqualFold(err.Token, "colly") {
				msg += " (Colly's default User-Agent carries Colly's URL, not yours)"
			}
			e.cfg.logger.Warn(msg, "user_agent", ua, "token", err.Token, "recommended", recommendedUA)
		}
	}
	if e.cfg.strictIdentity || e.cfg.signErr != nil {
		c.OnRequest(func(r *colly.Request) { e.identityGate(c, r) })
	}
}

// pageUserAgent is the User-Agent c's requests carry by default: its
// Headers' User-Agent, else its UserAgent.
func pageUserAgent(c *colly.Collector) string {
	if c.Headers != nil {
		if ua := c.Headers.Get("User-Agent"); ua != "" {
			return ua
		}
	}
	return c.UserAgent
}

// identityGate refuses r when the crawler cannot say who it is: always
// while the WithWebBotAuth key is unusable (an unsigned request is never
// sent instead, not even in shadow mode), and under WithStrictIdentity
// when r's User-Agent fails CheckIdentity.
func (e *Extension) identityGate(c *colly.Collector, r *colly.Request) {
	if r.IsAbort() {
		return
	}
	err := e.cfg.signErr
	if err == nil {
		var ua string
		if r.Headers != nil {
			ua = r.Headers.Get("User-Agent")
		}
		if err = e.identityOf(ua); err == nil {
			return
		}
	}
	v := Verdict{Allowed: false, Reason: ReasonIdentity, Err: err}
	e.stats.decided(v)
	send := e.cfg.shadow && e.cfg.signErr == nil
	if !send {
		r.Abort()
	}
	e.blocked(contextOf(c), r, v)
}

// identityOf is CheckIdentity(ua), remembered for the latest ua: a crawl
// sends one User-Agent, so the check runs once.
func (e *Extension) identityOf(ua string) error {
	if last := e.ident.last.Load(); last != nil && last.ua == ua {
		return last.err
	}
	err := CheckIdentity(ua)
	e.ident.last.Store(&identityResult{ua: ua, err: err})
	return err
}
