package robotstxt

// This file holds the compiled form of a robots.txt file, Policy, and the
// questions about the whole file that need no path: crawl delays and
// whether it holds anything at all.

import (
	"bytes"
	"sync"
	"sync/atomic"
	"time"
)

// Limits the parser applies to hostile input. Both mirror or exceed what the
// reference parser and RFC 9309 §2.5 require.
const (
	// maxLineLen is the number of bytes of one line the parser keeps; the
	// rest of an overlong line is ignored, as in the reference parser.
	maxLineLen = 2083*8 - 1
	// maxPolicySize is how much of a robots.txt body Parse reads at most:
	// 32 times the 500 KiB RFC 9309 §2.5 asks for (and Google's crawler
	// reads; the reference library itself reads any length). It keeps a
	// rule within eight bytes (see rule).
	maxPolicySize = 16 << 20
)

// Policy is a compiled robots.txt file: its groups with their rules (each
// with the line it came from), its sitemaps, its crawl delays and its usage
// lines. Parse fills one; it then answers many questions without parsing
// again, is safe for concurrent use and answers every question the same
// way. The zero value and a nil *Policy allow everything.
//
// Parse keeps each rule as written, in file order; a group's index is built
// the first time a question needs that group, so that the groups of other
// crawlers cost nothing but their patterns. A Policy must not be copied
// once used.
type Policy struct {
	// The fields a check reads come first, to share few cache lines.

	// agentBits has every token of agents added, so that most tokens a
	// file does not name skip the search.
	agentBits agentFilter
	global    Selection // the "*" groups
	// asked remembers the product token checks are asked with (token.go).
	asked tokenMemo
	// text holds every pattern, percent-encoded, in file order, then the
	// lower-cased agent tokens and the sitemap URLs.
	text  string
	rules []rule // every group's rules, in its span (see group)
	// index[g] is group g's index once a check has needed it (compile.go).
	index  []atomic.Pointer[groupIndex]
	groups []group
	raws   map[int32]string  // line → value as written, where it differs from the stored pattern
	long   map[uint32]uint32 // off → length of patterns of longLen octets or more

	// agents lists the lower-cased product tokens named by user-agent
	// lines, sorted, with the groups naming each. Selections of more than
	// one group list them in lists.
	agents []agentSel
	lists  []int32
	// agentsByToken maps the tokens of agents to their groups, for files
	// of manyAgents or more, once a search has needed it.
	agentsByToken atomic.Pointer[map[string]Selection]

	mu sync.Mutex // serialises building indexes and agentsByToken

	sitemaps []textRef // in text; see sitemap.go

	// Crawl delays, keyed by lower-cased token. They have their own,
	// narrower scoping than rules (see builder.scopeEnd). A stated
	// "Crawl-delay: 0" is kept: an entry of 0, or globalStated with a
	// globalDelay of 0.
	delays       map[string]time.Duration
	globalDelay  time.Duration // the slowest "*" delay
	globalStated bool          // a "*" delay was stated, 0 included

	// wildRules counts the rules whose pattern holds '*' or ends in '$',
	// and the directory rules of index.html Allows, for MemSize.
	wildRules int

	// usageLines are the Content-Usage and Content-Signal lines as
	// written, in file order; usagerules.go reads them into usageRules the
	// first time a question about usage preferences needs them.
	usageLines []usageLine
	usageOnce  sync.Once
	usageRules []usageRule // built by usageOnce; read-only afterwards
}

// usageLine is one Content-Usage or Content-Signal line as the parser saw
// it. To RFC 9309 these are "other records": they belong to the group open
// when they appear and change no group boundary and no Allow or Disallow
// decision.
type usageLine struct {
	group  int32 // index in Policy.groups, or -1: a Content-Signal line before any group
	line   int32
	signal bool   // Content-Signal (else Content-Usage)
	value  string // the value, trimmed, as written
}

// group is one record of robots.txt: one or more user-agent lines followed by
// rules, which are Policy.rules[start:end] in file order until the group's
// index is built.
type group struct {
	line       int32 // line of the group's first user-agent line
	start, end int32
}

// Parse compiles robotsTxt into p, which must be a new, zero Policy. It
// never fails: every line that parses is used and every other line is
// ignored (RFC 9309 §2.3.1.5), as Google's reference parser does. That
// includes its leniencies: a UTF-8 byte order mark, CR, LF or CRLF line
// ends, "#" comments, keys that only start with the right word
// ("User-agents:"), a missing colon ("Disallow /x"), and common
// misspellings ("Dissallow", "Useragent", "Site-map"). Bytes of a line past
// 16,663 are ignored, as is anything after a NUL byte on a line, and
// anything after the first 16 MiB of input.
//
// Parse fills p in place, rather than returning a new Policy, so that a
// caller can hold a Policy inside its own type at no extra allocation. It
// copies what it keeps; robotsTxt may be reused afterwards.
func (p *Policy) Parse(robotsTxt []byte) {
	if len(robotsTxt) > maxPolicySize {
		robotsTxt = robotsTxt[:maxPolicySize]
	}
	// The count of LF line ends sizes the array of rules and user-agent
	// records (see builder); files with CR-only line ends make it grow.
	lines := bytes.Count(robotsTxt, []byte{'\n'}) + 1
	b := builder{p: p, in: robotsTxt[:len(robotsTxt):len(robotsTxt)], buf: make([]rule, lines)}
	b.tail, b.scopeEnd = lines, lines
	EachDirective(b.in, b.add)
	b.finish()
}

// CrawlDelay returns the pause the file asks the crawler whose product
// token is token to leave between requests: the slowest of the Crawl-delay
// values and Request-rate intervals written for it, and whether there was
// any. "Crawl-delay: 0" is stated: it returns 0, true (the site asks for
// no pace), where a file without a delay returns 0, false. A Crawl-delay line applies to the user-agent lines directly above
// it. An agent named anywhere in the file takes only its own delays, as it
// takes only its own rules; any other agent, and any string that is not a
// product token, takes the "*" delays.
func (p *Policy) CrawlDelay(token string) (time.Duration, bool) {
	if p == nil {
		return 0, false
	}
	if _, specific := p.findAgent(token); specific {
		d, ok := lookupAgent(p.delays, token)
		return d, ok
	}
	return p.globalDelay, p.globalStated
}

// Empty reports whether the file held no group (no user-agent line) and
// no Sitemap line: nothing in it applies to any crawler. A nil Policy is
// empty.
func (p *Policy) Empty() bool {
	return p == nil || (len(p.groups) == 0 && len(p.sitemaps) == 0)
}
