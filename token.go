package robotsext

// This file says who the Extension is to robots.txt: the product token
// matched against user-agent lines, and the headers of the robots.txt
// request. The rules that find a token in a User-Agent live in
// internal/useragent.

import (
	"net/http"
	"sync/atomic"

	"github.com/robotsext/robotsext/internal/lifecycle"
)

// identity caches the product token derived from the collector's
// User-Agent, and remembers which token problems were already logged.
type identity struct {
	cur           atomic.Pointer[derivedToken] // the latest derivation
	warnedNone    atomic.Bool                  // a User-Agent without a crawler token was logged
	warnedMissing atomic.Bool                  // a token absent from the User-Agent sent was logged
}

// derivedToken is the token found in one User-Agent.
type derivedToken struct{ ua, token string }

// noToken stands for "no product token": it never names a group, so only
// the "*" groups apply.
const noToken = "*"

// token is the product token matched against user-agent lines: the
// WithUserAgent token, else the one found in the User-Agent the robots.txt
// request sends (WithHeaders, the collector's Headers, then its
// UserAgent). Users may change the collector's User-Agent at any time, so
// it is looked up on every call, but derived only when it changed.
func (e *Extension) token() string {
	if e.cfg.tokenSet {
		if e.cfg.token == "" {
			return noToken
		}
		return e.cfg.token
	}
	ua := e.userAgent()
	if d := e.id.cur.Load(); d != nil && d.ua == ua {
		return d.token
	}
	t, _ := ProductToken(ua)
	switch {
	case ua == "":
		t = "robotsext"
	case t == "":
		t = noToken
		if e.id.warnedNone.CompareAndSwap(false, true) {
			e.cfg.logger.Warn("robotsext: the User-Agent names no crawler, so only robots.txt's \"User-agent: *\" groups apply; set WithUserAgent to your crawler's product token",
				"user_agent", ua)
		}
	}
	e.id.cur.Store(&derivedToken{ua: ua, token: t})
	return t
}

// userAgent is the User-Agent header the robots.txt request sends, "" when
// none is configured.
func (e *Extension) userAgent() string {
	// The length tests spare the key's canonicalisation, per request,
	// when no headers are set (the common case).
	if len(e.cfg.headers) > 0 {
		if ua := e.cfg.headers.Get("User-Agent"); ua != "" {
			return ua
		}
	}
	if e.c == nil {
		return ""
	}
	if e.c.Headers != nil && len(*e.c.Headers) > 0 {
		if ua := e.c.Headers.Get("User-Agent"); ua != "" {
			return ua
		}
	}
	return e.c.UserAgent
}

// requestHeader builds the robots.txt request's header from the
// collector's Headers and User-Agent and WithHeaders, as Colly builds a
// page request's.
func (e *Extension) requestHeader() http.Header {
	h := http.Header{}
	if e.c != nil && e.c.Headers != nil {
		h = (*e.c.Headers).Clone()
	}
	for k, vs := range e.cfg.headers {
		h[k] = append([]string(nil), vs...)
	}
	h = lifecycle.RequestHeader(h)
	if h.Get("User-Agent") == "" {
		ua := e.userAgent()
		if ua == "" {
			ua = e.token()
		}
		h.Set("User-Agent", ua)
	}
	return h
}

// userAgentOf is the User-Agent of a header map, "" for nil.
func userAgentOf(h map[string][]string) string {
	return http.Header(h).Get("User-Agent")
}
