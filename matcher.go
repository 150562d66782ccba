package robotsext

// This file is the public face of matching: Policy.Check, and the Verdict
// built from the engine's Match (internal/robotstxt finds the deciding
// rule; see its matcher.go for precedence).

import (
	"unsafe"

	"github.com/robotsext/robotsext/internal/robotstxt"
)

// Check decides whether the crawler whose product token is token (such as
// "FooBot", not "FooBot/1.0" nor a whole User-Agent: see ProductToken) may
// fetch rawURL, an absolute URL or a path with an optional ?query. Only the
// path and query are compared; the fragment is ignored. The URL is not
// decoded; octets outside US-ASCII are percent-encoded first. A token that
// is not a product token is still matched as given (it names no group, so
// the "*" groups decide) and the Verdict's TokenErr says so.
//
// Check does not allocate for URLs of up to 512 bytes after encoding and a
// valid token. The first question that needs a group builds the group's
// index.
func (p *Policy) Check(token, rawURL string) (v Verdict) {
	// robotstxt.RequestPath in two steps, the path built in a stack buffer
	// only when it must be; the engine decides; v is filled once.
	path, ready := robotstxt.PathSpan(rawURL)
	if !ready {
		var buf [robotstxt.PathBufSize]byte
		path = bytesString(robotstxt.FinishPath(buf[:0], path))
	}
	e := p.engine()
	sel, bare := e.SelectBare(token) // no scan or search for the token of the checks before
	if !bare && token != "*" {
		v.TokenErr = ValidToken(token)
	}
	setVerdict(&v, e, e.Decide(sel, path))
	return v
}

// checkPath decides for path, already in the form robotstxt.RequestPath
// returns. It does not keep path, which may be backed by the caller's
// stack buffer.
func (p *Policy) checkPath(token, path string) (v Verdict) {
	e := p.engine()
	setVerdict(&v, e, e.Decide(e.Select(token), path))
	return v
}

// setVerdict sets the zero Verdict v from m, a Match of p: the Reason, and
// the line and rule as written of the rule that decided. It fills v field
// by field rather than returning a Verdict, which the compiler would copy
// through memory at every level; the request hook's cached decision calls
// it directly (see Extension.decideInto).
func setVerdict(v *Verdict, p *robotstxt.Policy, m robotstxt.Match) {
	v.Allowed = true
	switch {
	case m.RobotsTxt():
		v.Reason = ReasonRobotsTxt
	case m.None():
		v.Reason = ReasonNoMatch
	case m.Empty():
		v.Reason, v.Line = ReasonEmptyRule, m.Line()
	default:
		v.Reason, v.Line, v.Rule = ReasonAllowRule, m.Line(), p.Written(m)
		if !m.Allow() {
			v.Allowed, v.Reason = false, ReasonDisallowRule
		}
	}
}

// bytesString views b as a string without copying. The string is valid only
// while b is neither modified nor out of scope: it is for passing bytes of
// a buffer to a callee that does not keep them (the request hook passes a
// path built in a stack array).
func bytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
