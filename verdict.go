package robotsext

import (
	"strconv"
	"time"
)

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
	// ReasonUsage: the site's AI usage preferences say "n" for every
	// purpose the crawler declared with WithPurpose. Rule names the
	// statement that decided, where it was read: a Content-Usage or
	// Content-Signal line of robots.txt (Line is its line, Rule its
	// value), a rule of the origin's tdmrep.json ("tdmrep.json rule 0:
	// /archive/ tdm-reservation 1"), a response header
	// ("Content-Signal: ai-train=no", "tdm-reservation: 1",
	// "X-Robots-Tag: noai") or a meta tag ("meta tdm-reservation: 1",
	// "meta robots: noai"); Line is 0 for all but robots.txt. When Page
	// is set the request is refused for that page's sake: a link of a
	// page whose own preferences refuse the crawl, or an image of a page
	// that said noimageai. Allow and Disallow rules allowed the URL.
	ReasonUsage
	// ReasonBackoff: the request's host asked for less (429, 503 or a run
	// of 5xx) and is paused, and the request would have waited longer
	// than WithBackoffWait for it; it was not sent. Verdict.RetryAt says
	// when the host may be asked again.
	ReasonBackoff
	// ReasonNofollow: the request is a link of a page whose X-Robots-Tag
	// or robots meta tags say nofollow (or none) to the crawler (see
	// WithNofollow). Verdict.Page is the page and Verdict.Rule the rule,
	// such as "X-Robots-Tag: demobot: nofollow" or "meta robots: none".
	ReasonNofollow
	// ReasonRelNofollow: the request is a link its page marks only with
	// rel="nofollow" (WithRelNofollow). Verdict.Page is the page.
	ReasonRelNofollow
	// ReasonIdentity: the crawler cannot say who it is. Its User-Agent
	// fails CheckIdentity under WithStrictIdentity, or the
	// WithWebBotAuth key cannot sign; Verdict.Err says which, and wraps
	// ErrIdentity.
	ReasonIdentity
	// ReasonClosed: the Extension was closed (Extension.Close) before the
	// request was sent; Verdict.Err is ErrClosed. Do not re-queue it.
	ReasonClosed
)

// reasons describes each Reason once: its prose for String, and its
// metric label and whether it can let a request through or refuse one,
// for Label, CanAllow and CanBlock. A new Reason gets its row here and
// nowhere else: the metrics adapters read this table.
var reasons = [...]struct {
	text   string
	label  string
	allows bool
	blocks bool
}{
	ReasonNoMatch:       {"no rule matched", "no_match", true, false},
	ReasonAllowRule:     {"allowed by rule", "allow_rule", true, false},
	ReasonDisallowRule:  {"disallowed by rule", "disallow_rule", false, true},
	ReasonEmptyRule:     {"empty rule matched (allows everything)", "empty_rule", true, false},
	ReasonRobotsTxt:     {"/robots.txt is always allowed", "robots_txt", true, false},
	ReasonUnavailable:   {"robots.txt unavailable (4xx or redirect limit): allow all", "unavailable", true, false},
	ReasonUnreachable:   {"robots.txt unreachable", "unreachable", true, true}, // FailOpen allows, FailClosed blocks
	ReasonUnauthorized:  {"robots.txt answered 401/403: disallow all", "unauthorized", false, true},
	ReasonOverride:      {"host overridden: rules not applied", "override", true, false},
	ReasonNotApplicable: {"not an http(s) URL: robots.txt does not apply", "not_applicable", true, false},
	ReasonLocalError:    {"robots.txt not fetched (local error): request dropped", "local_error", false, true},
	ReasonUsage:         {"usage preferences refuse every declared purpose", "usage", false, true},
	ReasonBackoff:       {"host paused (it asked for less): request refused", "backoff", false, true},
	ReasonNofollow:      {"link of a nofollow page", "nofollow", false, true},
	ReasonRelNofollow:   {"link marked rel=\"nofollow\"", "rel_nofollow", false, true},
	ReasonIdentity:      {"the crawler's identity is not usable: request refused", "identity", false, true},
	ReasonClosed:        {"the Extension is closed: request refused", "closed", false, true},
}

// String returns a short human-readable description of r, as the
// Extension's log lines give it in their reason field.
func (r Reason) String() string {
	if int(r) < len(reasons) {
		return reasons[r].text
	}
	return "unknown reason"
}

// Label returns r's name for metric labels and your own log fields:
// short, snake_case and stable across versions, unlike String's prose, which may
// be reworded. A Reason this version does not define gets "reason_N".
func (r Reason) Label() string {
	if int(r) < len(reasons) {
		return reasons[r].label
	}
	return "reason_" + strconv.Itoa(int(r))
}

// CanAllow reports whether a Verdict with reason r can let a request
// through, and CanBlock whether it can refuse one (ReasonUnreachable does
// both, by FailMode). Metrics adapters use them to start a counter with a
// zero series for each reason it can count, and none for the others.
func (r Reason) CanAllow() bool { return int(r) < len(reasons) && reasons[r].allows }

// CanBlock reports whether a Verdict with reason r can refuse a request;
// see CanAllow.
func (r Reason) CanBlock() bool { return int(r) < len(reasons) && reasons[r].blocks }

// Reasons returns every Reason this version defines, in order, from
// ReasonNoMatch on.
func Reasons() []Reason {
	rs := make([]Reason, len(reasons))
	for i := range rs {
		rs[i] = Reason(i)
	}
	return rs
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
	// percent-encoding), or "" when no rule decided. For ReasonNofollow it
	// is the page directive that decided ("X-Robots-Tag: nofollow",
	// "X-Robots-Tag: demobot: none", "meta robots: nofollow"), for
	// ReasonRelNofollow `rel="nofollow"`.
	Rule string
	// Err says why robots.txt could not be had: for ReasonUnreachable an
	// error wrapping ErrUnreachable (and the network error, or a
	// *StatusError for 5xx and 429), for ReasonLocalError one wrapping
	// ErrLocal, for ReasonClosed ErrClosed; nil otherwise.
	// Print it from OnBlocked to see why a site is blocked.
	Err error
	// RetryAt is, for ReasonUnreachable, when the origin's next
	// robots.txt attempt is due (its backoff or Retry-After), and for
	// ReasonLocalError the time of the refusal (the next request fetches
	// again at once), for ReasonBackoff when the paused host may be asked
	// again; zero for every other reason. A crawler with a queue
	// of its own re-queues a URL refused for these reasons to be tried at
	// RetryAt rather than losing it (see also WithDeferUnreachable).
	RetryAt time.Time
	// Usage is the AI usage preferences stated for the URL: robots.txt's
	// (Content-Usage and Content-Signal lines; see Policy.Usage) and, with
	// WithPurpose, the origin's tdmrep.json; for ReasonUsage refusals at
	// the headers, with the page's headers too. Each mechanism's
	// statement is kept (Usage.All). Extension.Check fills it for
	// allowed URLs; the request hook only with WithPurpose; Policy.Check
	// never.
	Usage Usage
	// TokenErr is non-nil when Policy.Check or Robots.Verdict was given a
	// string that is not a robots.txt product token, such as "MyBot/1.0"
	// or a whole User-Agent: a TokenError wrapping ErrNotProductToken,
	// naming the token ProductToken finds in it. The decision above is
	// still the one for the string as given, as Google's reference
	// matcher makes it; no user-agent line names such a string, so it is
	// the "*" groups' decision, which may refuse what the crawler's own
	// group allows. The Extension's own checks always pass a token.
	TokenErr error
	// Page is, for ReasonNofollow and ReasonRelNofollow, the URL of the
	// page whose link the request is, and for ReasonUsage that of the
	// page for whose sake the request was refused (see ReasonUsage); ""
	// otherwise. Such a URL stays reachable: found on another page, or
	// visited, it is fetched (see WithNofollow).
	Page string
}
