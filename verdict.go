package robotsext

import "time"

// Reason says why a Verdict came out the way it did. The first group of
// reasons comes from the robots.txt rules themselves (Policy.Check); the rest
// come from fetching robots.txt and from the Extension's options.
type Reason uint8

const (
	// ReasonNoMatch: no Allow or Disallow rule of the applicable group
	// matched the URL (or no group applies to the user agent), so it is
	// allowed.
	ReasonNoMatch Reason = iota
	// ReasonAllowRule: the most specific matching rule is an Allow rule.
	ReasonAllowRule
	// ReasonDisallowRule: the most specific matching rule is a Disallow
	// rule.
	ReasonDisallowRule
	// ReasonEmptyRule: only an empty "Disallow:" or "Allow:" matched. An
	// empty rule forbids nothing, so the URL is allowed; Line points at it.
	ReasonEmptyRule
	// ReasonRobotsTxt: the URL is /robots.txt itself, which RFC 9309 §2.2.2
	// always allows.
	ReasonRobotsTxt
	// ReasonUnavailable: robots.txt answered 4xx, redirected more than
	// MaxRedirects times or to a non-http URL, which RFC 9309 §2.3.1.3
	// treats as "no rules": everything is allowed.
	ReasonUnavailable
	// ReasonUnreachable: robots.txt could not be fetched (5xx, 429, network
	// error, timeout). With FailClosed the URL is disallowed (RFC 9309
	// §2.3.1.4); with FailOpen it is allowed.
	ReasonUnreachable
	// ReasonUnauthorized: robots.txt answered 401 or 403 and the extension
	// was configured to treat that as "disallow all".
	ReasonUnauthorized
	// ReasonOverride: the host is listed in WithOverride, so its Allow and
	// Disallow rules are not applied.
	ReasonOverride
	// ReasonNotApplicable: robots.txt does not govern this URL (not http or
	// https), so it is allowed.
	ReasonNotApplicable
	// ReasonLocalError: robots.txt could not be fetched because of a
	// problem on this machine, not at the site (no file descriptors or
	// buffers left, the fetch slot wait or the context ended). Nothing is
	// cached against the origin; the request is dropped undecided and
	// Verdict.Err says why. The next request to the origin fetches again.
	ReasonLocalError
)

var reasonText = [...]string{
	ReasonNoMatch:       "no rule matched",
	ReasonAllowRule:     "allowed by rule",
	ReasonDisallowRule:  "disallowed by rule",
	ReasonEmptyRule:     "empty rule matched (allows everything)",
	ReasonRobotsTxt:     "/robots.txt is always allowed",
	ReasonUnavailable:   "robots.txt unavailable (4xx or redirect limit): allow all",
	ReasonUnreachable:   "robots.txt unreachable",
	ReasonUnauthorized:  "robots.txt answered 401/403: disallow all",
	ReasonOverride:      "host overridden: rules not applied",
	ReasonNotApplicable: "not an http(s) URL: robots.txt does not apply",
	ReasonLocalError:    "robots.txt not fetched (local error): request dropped",
}

// String returns a short human-readable description of r.
func (r Reason) String() string {
	if int(r) < len(reasonText) {
		return reasonText[r]
	}
	return "unknown reason"
}

// Verdict is the decision for one URL, with enough detail to explain it:
// which rule, on which line of robots.txt, decided.
type Verdict struct {
	// Allowed reports whether the URL may be fetched.
	Allowed bool
	// Reason says why.
	Reason Reason
	// Line is the 1-based line of the deciding rule in robots.txt, or 0
	// when no rule decided. It is the line Google's reference matcher
	// reports, also when an Allow rule or an empty rule decided.
	Line int
	// Rule is the deciding rule's pattern as written in robots.txt (before
	// percent-encoding), or "" when no rule decided.
	Rule string
	// Err says why robots.txt could not be had: for ReasonUnreachable an
	// error wrapping ErrUnreachable (and the network error, or a
	// *StatusError for 5xx and 429), for ReasonLocalError one wrapping
	// ErrLocal; nil otherwise. Print it from OnBlocked to see why a
	// site is blocked.
	Err error
	// RetryAt is, for ReasonUnreachable, when the origin's next
	// robots.txt attempt is due (its backoff or Retry-After), and for
	// ReasonLocalError the time of the refusal (the next request fetches
	// again at once); zero for every other reason. A crawler with a queue
	// of its own re-queues a URL refused for these reasons to be tried at
	// RetryAt rather than losing it (see also WithDeferUnreachable).
	RetryAt time.Time
}
