package robotsext

// This file checks that a site can tell which crawler is calling and how
// to reach its operator: the User-Agent names a crawler of its own and
// carries a contact. The checks judge the User-Agent requests carry, at
// the wire (page requests and robots.txt requests), and warn once per
// distinct User-Agent; WithStrictIdentity refuses to crawl until the
// User-Agent passes.

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/useragent"
)

// ErrIdentity: the crawler cannot say who it is. CheckIdentity's
// *IdentityError wraps it, and so does the Err of every ReasonIdentity
// Verdict.
var ErrIdentity = errors.New("robotsext: the crawler cannot be identified")

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
	subject := "the User-Agent " + quote(e.UserAgent)
	if e.UserAgent == "" {
		subject = "an empty User-Agent"
	}
	return "robotsext: " + subject + " does not identify the crawler: " + useragent.Lacks(e.Token, e.NoToken, e.DefaultToken, e.NoContact) +
		"; write it as " + quote(useragent.Recommend(e.UserAgent, e.Token)) + ", with your crawler's name and the URL of a page about it"
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
	e.DefaultToken = useragent.IsDefault(e.Token)
	e.NoContact = !useragent.HasContact(userAgent)
	if e.NoToken || e.DefaultToken || e.NoContact {
		return e
	}
	return nil
}

// WithStrictIdentity refuses to crawl while the crawler cannot be
// identified, as Heritrix refuses to start without an operator contact: a
// request whose User-Agent fails CheckIdentity (no crawler name, a
// framework's default name, no contact) is not sent. It reaches OnBlocked
// with ReasonIdentity and an *IdentityError in Verdict.Err, and is
// counted in Stats.Blocked; robots.txt is not fetched for it. In shadow
// mode such requests are reported and sent. Without this option the same
// problems are only logged, once for each User-Agent requests carry.
func WithStrictIdentity() Option {
	return func(c *config) { c.strictIdentity = true }
}

// identityState is what the identity checks of one Extension remember.
type identityState struct {
	judged useragent.Judged // the User-Agents requests carried, each judged once

	last atomic.Pointer[identityResult] // WithStrictIdentity's latest check
}

// identityResult is CheckIdentity's answer for one User-Agent.
type identityResult struct {
	ua  string
	err error
}

// attachIdentity installs c's identity gate when requests may have to be
// refused for who the crawler is. It runs before any other hook of the
// Extension is registered, so the gate runs first. The warnings come
// from what requests carry (judgeSent), not from c's settings at Attach,
// which the user may change at any time.
func (e *Extension) attachIdentity(c *colly.Collector) {
	if e.cfg.strictIdentity || e.cfg.signErr != nil {
		c.OnRequest(func(r *colly.Request) { e.identityGate(c, r) })
	}
}

// goUserAgent is what net/http sends for a request whose header has no
// User-Agent key.
const goUserAgent = "Go-http-client/1.1"

// sentUserAgent is the User-Agent a request with header h carries on the
// wire: "" when it is set empty (none is sent), net/http's default when
// the key is absent.
func sentUserAgent(h *http.Header) string {
	if h == nil {
		return goUserAgent
	}
	v, ok := (*h)["User-Agent"]
	switch {
	case !ok:
		return goUserAgent
	case len(v) == 0:
		return ""
	}
	return v[0]
}

// judgeSent judges ua, the User-Agent a request is sent with, the first
// time it is seen, up to useragent.MaxJudged distinct ones: a request
// carrying the User-Agent judged last costs an atomic load and a compare.
func (e *Extension) judgeSent(ua string) {
	judge, full := e.ident.judged.See(ua)
	if full {
		e.cfg.logger.Warn("robotsext: requests carry more than "+strconv.Itoa(useragent.MaxJudged)+" distinct User-Agents; the others are not checked for a crawler name and a contact",
			"user_agent", ua)
	}
	if judge {
		e.warnIdentity(ua)
	}
}

// warnIdentity logs, at Warn, what ua lacks for a site to tell which
// crawler sends it and how to reach its operator.
func (e *Extension) warnIdentity(ua string) {
	ie, ok := CheckIdentity(ua).(*IdentityError)
	if !ok {
		return
	}
	token := ie.Token
	if e.cfg.tokenSet && e.cfg.token != "" && (token == "" || useragent.IsDefault(token)) {
		token = e.cfg.token // WithUserAgent says what the crawler is called
	}
	rec := useragent.Recommend(ua, token)
	subject := "requests carry the User-Agent " + quote(ua) + ", which"
	if ua == "" {
		subject = "requests carry an empty User-Agent, which"
	}
	if ie.NoContact {
		e.cfg.logger.Warn("robotsext: "+subject+" carries no contact (no http(s) URL and no e-mail address), so site owners cannot tell who runs the crawler nor reach its operator; write it as "+
			quote(rec)+", with the URL of a page about your crawler", "user_agent", ua, "recommended", rec)
	}
	if ie.DefaultToken {
		msg := "robotsext: " + subject + " names the crawler by a framework's default product token, " + quote(ie.Token) +
			", so sites and robots.txt cannot tell your crawler from any other built on it"
		if strings.EqualFold(ie.Token, "colly") {
			msg += " (Colly's default User-Agent carries Colly's URL, not yours)"
		}
		msg += "; name your crawler, as in " + quote(rec)
		e.cfg.logger.Warn(msg, "user_agent", ua, "token", ie.Token, "recommended", rec)
	}
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
