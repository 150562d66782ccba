package robotsext

// This file is the public face of the crawler's product token, the name
// robots.txt user-agent lines are matched against (RFC 9309 §2.2.1): its
// error, ValidToken and ProductToken. The rules that find a token in a
// User-Agent are internal/useragent's.

import (
	"errors"
	"fmt"

	"github.com/robotsext/robotsext/internal/useragent"
)

// ErrNotProductToken: a string given where robots.txt matching needs a
// product token (RFC 9309 §2.2.1: letters, '-' and '_', such as "MyBot",
// or "*") is something else, typically a version ("MyBot/1.0") or a whole
// User-Agent. robots.txt never names such a string, so only its "*"
// groups apply: a crawler whose own group allows more is refused by the
// "*" rules. Derive the token from a User-Agent with ProductToken.
var ErrNotProductToken = errors.New("robotsext: not a robots.txt product token")

// TokenError is the error ValidToken returns and Verdict.TokenErr holds
// for a string that is not a product token; it wraps ErrNotProductToken.
// It is a comparable value, so two Verdicts for the same question compare
// equal; get it with errors.As into a TokenError.
type TokenError struct {
	Given string // the string as given
	Token string // the token ProductToken finds in it; "" when it names no crawler
}

func (e TokenError) Error() string {
	if e.Token == "" {
		return fmt.Sprintf("robotsext: %q is not a robots.txt product token and names no crawler; only \"User-agent: *\" groups apply to it", e.Given)
	}
	return fmt.Sprintf("robotsext: %q is not a robots.txt product token (only \"User-agent: *\" groups apply to it); the token it names is %q (see ProductToken)", e.Given, e.Token)
}

// Unwrap returns ErrNotProductToken.
func (e TokenError) Unwrap() error { return ErrNotProductToken }

// ValidToken returns nil when token is a robots.txt product token as RFC
// 9309 §2.2.1 defines it: one or more letters, '-' and '_' ("MyBot",
// "Googlebot-Image"), or "*". Anything else ("MyBot/1.0", "MyBot 1.0", a
// whole User-Agent, "") gets a TokenError wrapping ErrNotProductToken
// that names the token ProductToken finds in it. Policy.Check and
// Robots.Verdict report the same error in Verdict.TokenErr; call
// ValidToken before Policy.CrawlDelay or Policy.Groups when the token
// comes from configuration.
func ValidToken(token string) error {
	if token == "*" || useragent.IsToken(token) {
		return nil
	}
	t, _ := ProductToken(token)
	return TokenError{Given: token, Token: t}
}

// ProductToken returns the product token a crawler sending the User-Agent
// header userAgent is known by in robots.txt, by the rules the Extension
// itself uses when WithUserAgent is not given (see WithUserAgent), and
// false when userAgent names no crawler (a browser's User-Agent, "" or
// junk): then only "*" groups apply to it. Pass the token, never the
// whole User-Agent, to Policy.Check, Policy.CrawlDelay, Policy.Groups and
// Robots.Verdict.
func ProductToken(userAgent string) (token string, ok bool) {
	t := useragent.Token(userAgent)
	return t, t != ""
}
