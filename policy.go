package robotsext

// This file is the public face of a parsed robots.txt file: Policy and the
// questions about the whole file. The engine that parses, compiles and
// matches is internal/robotstxt; Check is in matcher.go, Usage in usage.go.

import (
	"time"
	"unsafe"

	"github.com/robotsext/robotsext/internal/robotstxt"
)

// Policy is a compiled robots.txt file: its groups with their rules (each
// with the line it came from), its sitemaps and its crawl delays. Build one
// with ParsePolicy and ask it many questions with Check; it is safe for
// concurrent use and answers every question the same way. The zero value and
// a nil *Policy allow everything.
//
// ParsePolicy keeps each rule as written, in file order; a group's index for
// Check is built the first time a question needs that group, so that the
// groups of other crawlers cost nothing but their patterns.
type Policy struct {
	// e is the compiled file, held in place: one allocation for both, and
	// no pointer to follow on a check.
	e robotstxt.Policy
}

// engine returns p's compiled file, or nil for a nil p: the engine's
// methods answer for a nil *robotstxt.Policy as a nil *Policy must.
func (p *Policy) engine() *robotstxt.Policy {
	return (*robotstxt.Policy)(unsafe.Pointer(p)) // p is e (see policyOf): no branch on a check
}

// ParsePolicy compiles robots.txt. It never fails: every line that parses is
// used and every other line is ignored (RFC 9309 §2.3.1.5), as Google's
// reference parser does. That includes its leniencies: a UTF-8 byte order
// mark, CR, LF or CRLF line ends, "#" comments, keys that only start with
// the right word ("User-agents:"), a missing colon ("Disallow /x"), and common
// misspellings ("Dissallow", "Useragent", "Site-map"). Bytes of a line past
// 16,663 are ignored, as is anything after a NUL byte on a line, and anything
// after the first 16 MiB of input.
//
// ParsePolicy copies what it keeps; robotsTxt may be reused afterwards.
func ParsePolicy(robotsTxt []byte) *Policy {
	p := new(Policy)
	p.e.Parse(robotsTxt)
	return p
}

// CrawlDelay returns the pause the file asks the crawler whose product
// token is token (such as "FooBot", not "FooBot/1.0" nor a whole
// User-Agent: see ProductToken and ValidToken) to leave between requests:
// the slowest of the Crawl-delay values and Request-rate intervals written
// for it, and whether there was any. A stated "Crawl-delay: 0" returns 0,
// true: the site asks for no pace, and the Extension keeps none, where a
// file that states no delay returns 0, false and the host is paced by
// DefaultDelay (see WithDefaultDelay). A Crawl-delay line applies to the
// user-agent lines directly above it. An agent named anywhere in the file
// takes only its own delays, as it takes only its own rules; any other
// agent, and any string that is not a product token, takes the "*" delays.
func (p *Policy) CrawlDelay(token string) (time.Duration, bool) {
	return p.engine().CrawlDelay(token)
}

// Empty reports whether the file held no group (no user-agent line) and
// no Sitemap line: nothing in it applies to any crawler, so it allows
// everything. An HTML page, a binary file or an empty body served as
// robots.txt parses as empty; tools use it to warn that a file may not be
// a robots.txt at all. A nil Policy is empty.
func (p *Policy) Empty() bool { return p.engine().Empty() }

// Groups returns the lines of the user-agent records that start the groups
// applying to the product token token (see ProductToken and ValidToken),
// and whether they name it (true) or are the "*" groups used as a fallback
// (false), as they are for any string that is not a product token. No
// lines means no group applies and everything is allowed.
func (p *Policy) Groups(token string) (lines []int, specific bool) {
	return p.engine().Groups(token)
}

// Sitemaps returns the absolute http(s) URLs of the file's Sitemap lines, in
// file order, without duplicates. Sitemaps belong to the file, not to a group.
func (p *Policy) Sitemaps() []string { return p.engine().Sitemaps() }

// policyOf returns the Policy whose compiled file is e, nil for nil: the
// reverse of engine, for the policies internal/lifecycle parses. A Policy
// is its compiled file and nothing else (TestPolicyOfEngine holds it to
// that), so the two share one memory layout and a pointer to either is a
// pointer to both: no copy, no allocation.
func policyOf(e *robotstxt.Policy) *Policy {
	return (*Policy)(unsafe.Pointer(e))
}
