package robotsext

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"
)

// Limits the parser applies to hostile input. Both mirror or exceed what the
// reference parser and RFC 9309 §2.5 require.
const (
	// maxLineLen is the number of bytes of one line the parser keeps; the
	// rest of an overlong line is ignored, as in the reference parser.
	maxLineLen = 2083*8 - 1
	// maxPolicySize is how much of a robots.txt body ParsePolicy reads at
	// most (RFC 9309 §2.5 asks for at least 500 KiB). It keeps every offset
	// within 32 bits.
	maxPolicySize = 1 << 30
)

// Policy is a compiled robots.txt file: its groups with their rules (each
// with the line it came from), its sitemaps and its crawl delays. Build one
// with ParsePolicy and ask it many questions with Check; it is immutable and
// safe for concurrent use. The zero value and a nil *Policy allow everything.
type Policy struct {
	text   string           // every stored pattern, back to back (see matcher.go)
	rules  []rule           // literal rules of all groups, then wildcard rules
	masks  []uint64         // masks[i-wildBase]: octets rule i needs (matcher.go)
	raws   map[int32]string // line → value as written, where it differs from the stored pattern
	groups []group

	wildBase int // index of the first wildcard rule in rules

	// agents maps a lower-cased product token taken from a user-agent line
	// to the groups naming it, in file order. global selects the "*"
	// groups. Selections of more than one group list them in lists.
	agents map[string]groupSel
	global groupSel
	lists  []int32
	// agentBits has agentBit(key) set for every key of agents, so that
	// most tokens a file does not name skip the map lookup.
	agentBits uint64

	sitemaps []textRef // in text; see sitemap.go

	// Crawl delays, keyed like agents. They have their own, narrower
	// scoping than rules (see builder.delayScope).
	delays      map[string]time.Duration
	globalDelay time.Duration // 0: none
}

// group is one record of robots.txt: one or more user-agent lines followed by
// rules. Its rules live in Policy.rules, in four spans (see ruleKind).
type group struct {
	line int32 // line of the group's first user-agent line
	// spans says where each kind of rule lives in Policy.rules. While the
	// builder places rules, see builder.place for what they hold.
	spans [numKinds]span
}

// span is the half-open range [start, end) of Policy.rules.
type span struct{ start, end int32 }

// directive is what the line parser reports for one line it understood.
type directive struct {
	line  int32
	key   keyKind
	value []byte // trimmed, not yet percent-encoded
}

// keyKind is the kind of a robots.txt line, decided by its key.
type keyKind uint8

const (
	keyUnknown keyKind = iota
	keyUserAgent
	keyAllow
	keyDisallow
	keySitemap
	keyCrawlDelay
	keyRequestRate
)

// ParsePolicy compiles robots.txt. It never fails: every line that parses is
// used and every other line is ignored (RFC 9309 §2.3.1.5), as Google's
// reference parser does. That includes its leniencies: a UTF-8 byte order
// mark, CR, LF or CRLF line ends, "#" comments, keys that only start with
// the right word ("User-agents:"), a missing colon ("Disallow /x"), and common
// misspellings ("Dissallow", "Useragent", "Site-map"). Bytes of a line past
// 16,663 are ignored, as is anything after a NUL byte on a line, and anything
// after the first GiB of input.
//
// ParsePolicy copies what it keeps; robotsTxt may be reused afterwards.
func ParsePolicy(robotsTxt []byte) *Policy {
	if len(robotsTxt) > maxPolicySize {
		robotsTxt = robotsTxt[:maxPolicySize]
	}
	var b builder
	eachDirective(robotsTxt, b.count)
	b.layout()
	eachDirective(robotsTxt, b.place)
	return b.finish()
}

var utf8BOM = [3]byte{0xEF, 0xBB, 0xBF}

// isSpace reports ASCII white space as C's isspace does.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

func trimSpace(s []byte) []byte {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

// equalFold compares ASCII case-insensitively.
func equalFold(s []byte, t string) bool {
	if len(s) != len(t) {
		return false
	}
	for i := range len(s) {
		if lower(s[i]) != lower(t[i]) {
			return false
		}
	}
	return true
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// agentToken returns the part of a user-agent line's value that is compared
// with the crawler's token, and whether the line names the "*" group. As in
// the reference library, "*" may be followed by white space and anything;
// any other value is cut at the first octet outside [A-Za-z_-].
func agentToken(value []byte) (token []byte, global bool) {
	if len(value) > 0 && value[0] == '*' && (len(value) == 1 || isSpace(value[1])) {
		return nil, true
	}
	n := 0
	for n < len(value) && isTokenChar(value[n]) {
		n++
	}
	return value[:n], false
}

func isTokenChar(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '-' || c == '_'
}

// builder compiles a Policy in two passes over the directives: count sizes
// everything exactly, place fills the rules in. Both passes see the same
// directives and so form the same groups.
type builder struct {
	p Policy

	cur      int32 // index of the open group
	nGroups  int32 // groups formed so far in this pass
	sawRule  bool  // a rule line followed the open group's user-agent lines
	textSize int   // bytes of patterns, counted in the first pass
	// nLit and nWild count literal and wildcard rules in the first pass;
	// in the second they are the next free slots of each region.
	nLit, nWild int32
	text        strings.Builder
	nMaps       int32 // sitemap lines kept, counted in the first pass

	// delayScope holds the agents a Crawl-delay or Request-rate line
	// applies to: the run of user-agent lines just before it. Unlike
	// rule groups, any other directive ends the run, so that
	//
	//	User-agent: *
	//	Crawl-delay: 5
	//	User-agent: FooBot
	//	Crawl-delay: 1
	//
	// gives FooBot 1 s, as crawlers that honour Crawl-delay read it.
	delayScope  [][]byte // tokens as written, in the input
	scopeGlobal bool
	lastWasUA   bool

	// multi holds the groups of each agent named by more than one group
	// (and globals those of "*") until finish moves them to Policy.lists.
	multi   map[string][]int32
	globals []int32
}

// openGroup applies RFC 9309 §2.2.1 group formation: a user-agent line that
// follows a rule starts a new group; other records never close a group.
// It reports whether the line opened a group.
func (b *builder) openGroup() bool {
	opened := b.nGroups == 0 || b.sawRule
	if opened {
		b.nGroups++
		b.sawRule = false
	}
	b.cur = b.nGroups - 1
	return opened
}

// inGroup reports whether a rule line belongs to a group. Rules before the
// first user-agent line belong to none and are ignored.
func (b *builder) inGroup() bool { return b.nGroups > 0 }

func (b *builder) count(d directive) {
	wasUA := b.lastWasUA
	b.lastWasUA = d.key == keyUserAgent
	switch d.key {
	case keyUserAgent:
		b.openGroup()
		if !wasUA {
			b.delayScope, b.scopeGlobal = b.delayScope[:0], false
		}
		b.addAgent(d.value)
	case keyAllow, keyDisallow:
		if !b.inGroup() {
			return
		}
		b.sawRule = true
		if kindOf(d.key == keyAllow, d.value) >= allowWild {
			b.nWild++
		} else {
			b.nLit++
		}
		b.textSize += escapedLen(d.value)
		if d.key == keyAllow {
			if k := indexHTMLPrefix(d.value); k >= 0 {
				b.nWild++
				b.textSize += escapedLen(d.value[:k]) + 1
			}
		}
	case keySitemap:
		if isSitemapURL(d.value) {
			b.nMaps++
			b.textSize += len(d.value)
		}
	case keyCrawlDelay, keyRequestRate:
		if !b.inGroup() {
			return
		}
		var d0 time.Duration
		var ok bool
		if d.key == keyCrawlDelay {
			d0, ok = parseCrawlDelay(d.value)
		} else {
			d0, ok = parseRequestRate(d.value)
		}
		if ok {
			b.addDelay(d0)
		}
	}
}

// addDelay records the slowest delay for every agent of the delay scope.
func (b *builder) addDelay(d time.Duration) {
	if b.scopeGlobal && d > b.p.globalDelay {
		b.p.globalDelay = d
	}
	for _, token := range b.delayScope {
		if b.p.delays == nil {
			b.p.delays = make(map[string]time.Duration)
		}
		var buf [64]byte
		low := append(buf[:0], token...)
		for i, c := range low {
			low[i] = lower(c)
		}
		if d > b.p.delays[string(low)] {
			b.p.delays[string(low)] = d
		}
	}
}

func (b *builder) addAgent(value []byte) {
	token, global := agentToken(value)
	if global {
		b.scopeGlobal = true
		if n := len(b.globals); n == 0 || b.globals[n-1] != b.cur {
			b.globals = append(b.globals, b.cur)
		}
		return
	}
	if b.p.agents == nil {
		b.p.agents = make(map[string]groupSel)
	}
	var buf [64]byte
	low := append(buf[:0], token...)
	for i, c := range low {
		low[i] = lower(c)
	}
	b.delayScope = append(b.delayScope, token)
	b.p.agentBits |= agentBit(low)
	sel, ok := b.p.agents[string(low)] // no allocation for the lookup
	switch {
	case !ok:
		b.p.agents[string(low)] = groupSel{first: b.cur, n: 1}
	case sel.first == b.cur:
		// The open group already names the agent.
	case sel.n == 1:
		// A second group names the agent: keep the list aside.
		if b.multi == nil {
			b.multi = make(map[string][]int32)
		}
		b.multi[string(low)] = []int32{sel.first, b.cur}
		b.p.agents[string(low)] = groupSel{first: b.cur, n: 2}
	default:
		// While the list grows, first holds its last group.
		b.multi[string(low)] = append(b.multi[string(low)], b.cur)
		b.p.agents[string(low)] = groupSel{first: b.cur, n: sel.n + 1}
	}
}

func cutPrefixFold(s []byte, prefix string) ([]byte, bool) {
	if len(s) < len(prefix) || !equalFold(s[:len(prefix)], prefix) {
		return s, false
	}
	return s[len(prefix):], true
}

// layout sizes the rules exactly: all literal rules first, then all
// wildcard rules, so that the wildcard masks form one dense slice. Each
// group's rules of one class are contiguous, since groups follow one
// another in the file.
func (b *builder) layout() {
	b.p.wildBase = int(b.nLit)
	b.p.rules = make([]rule, b.nLit+b.nWild)
	b.p.masks = make([]uint64, b.nWild)
	b.p.groups = make([]group, 0, b.nGroups)
	if b.nMaps > 0 {
		b.p.sitemaps = make([]textRef, 0, b.nMaps)
	}
	b.text.Grow(b.textSize)
	// The second pass forms the groups again and fills the regions.
	b.nGroups, b.sawRule = 0, false
	b.nLit, b.nWild = 0, b.nLit
}

// place fills the rules in, in file order. While it runs, a group's
// literal rules are [spans[allowLit].start, spans[disallowLit].end), with
// spans[allowLit].end counting its Allow rules, and likewise for wildcard
// rules; rule.parent marks Allow rules. splitKinds then separates them.
func (b *builder) place(d directive) {
	switch d.key {
	case keyUserAgent:
		// Agents were recorded in the first pass.
		if b.openGroup() {
			var g group
			g.line = d.line
			g.spans[allowLit] = span{b.nLit, 0}
			g.spans[disallowLit] = span{b.nLit, b.nLit}
			g.spans[allowWild] = span{b.nWild, 0}
			g.spans[disallowWild] = span{b.nWild, b.nWild}
			b.p.groups = append(b.p.groups, g)
		}
	case keyAllow, keyDisallow:
		if !b.inGroup() {
			return
		}
		b.sawRule = true
		allow := d.key == keyAllow
		pat := b.addPattern(d.value, d.value, d.line)
		b.addRule(kindOf(allow, d.value), pat, d.line)
		if allow {
			if k := indexHTMLPrefix(d.value); k >= 0 {
				// "Allow: /d/index.html" also allows "/d/".
				pat := b.addPattern(d.value[:k], d.value, d.line)
				b.text.WriteByte('$')
				pat.n++
				b.addRule(allowWild, pat, d.line)
			}
		}
	case keySitemap:
		if isSitemapURL(d.value) {
			off := b.text.Len()
			b.text.Write(d.value)
			b.p.sitemaps = append(b.p.sitemaps, textRef{uint32(off), uint32(len(d.value))})
		}
	}
}

// addRule appends a rule of kind to the open group's region for its class.
func (b *builder) addRule(kind ruleKind, r rule, line int32) {
	r.line = line
	sp := &b.p.groups[b.cur].spans
	pos, region, allows := &b.nLit, &sp[disallowLit], &sp[allowLit]
	if kind >= allowWild {
		pos, region, allows = &b.nWild, &sp[disallowWild], &sp[allowWild]
	}
	if kind == allowLit || kind == allowWild {
		r.parent = 1
		allows.end++
	}
	b.p.rules[*pos] = r
	*pos++
	region.end = *pos
}

// splitKinds moves each group's Allow rules before its Disallow rules in
// both regions and sets the four spans.
func (b *builder) splitKinds() {
	for g := range b.p.groups {
		sp := &b.p.groups[g].spans
		for _, k := range [...]ruleKind{allowLit, allowWild} {
			start, end, allows := sp[k].start, sp[k+1].end, sp[k].end
			i := start
			for j := start; j < end; j++ {
				if b.p.rules[j].parent == 1 {
					b.p.rules[i], b.p.rules[j] = b.p.rules[j], b.p.rules[i]
					i++
				}
			}
			sp[k] = span{start, start + allows}
			sp[k+1] = span{start + allows, end}
		}
	}
}

// addPattern appends the percent-encoded pattern to the text. When the
// stored pattern differs from the value as written on the line, the written
// value is kept for Verdict.Rule.
func (b *builder) addPattern(pattern, written []byte, line int32) (r rule) {
	r.off = uint32(b.text.Len())
	writeEscaped(&b.text, pattern)
	r.n = uint32(b.text.Len()) - r.off
	if len(pattern) != len(written) || b.text.String()[r.off:] != string(written) {
		if b.p.raws == nil {
			b.p.raws = make(map[int32]string)
		}
		b.p.raws[line] = string(written)
	}
	return r
}

func (b *builder) finish() *Policy {
	b.p.text = b.text.String()
	b.splitKinds()
	b.p.sitemaps = dedupeSitemaps(b.p.text, b.p.sitemaps)
	b.p.global = b.listSel(b.globals)
	for key, gs := range b.multi {
		b.p.agents[key] = b.listSel(gs)
	}
	b.p.compile()
	// A copy, so that nothing of the builder (its maps, or the delay
	// scope that points into the input) stays reachable.
	p := new(Policy)
	*p = b.p
	return p
}

// listSel returns the selection of groups gs, moving a list of several to
// Policy.lists.
func (b *builder) listSel(gs []int32) groupSel {
	switch len(gs) {
	case 0:
		return groupSel{}
	case 1:
		return groupSel{first: gs[0], n: 1}
	}
	sel := groupSel{first: int32(len(b.p.lists)), n: int32(len(gs))}
	b.p.lists = append(b.p.lists, gs...)
	return sel
}

// parseCrawlDelay reads a Crawl-delay value: decimal seconds, greater than
// zero. Anything else is ignored. Values too large for a time.Duration
// saturate.
func parseCrawlDelay(v []byte) (time.Duration, bool) {
	f, err := strconv.ParseFloat(string(firstField(v)), 64)
	if err != nil || !(f > 0) {
		return 0, false
	}
	return seconds(f), true
}

// parseRequestRate reads "n/t" with an optional unit s, m or h on t
// (seconds when absent) and returns the interval t/n. Anything after the
// first field (such as a time window) is ignored.
func parseRequestRate(v []byte) (time.Duration, bool) {
	field := string(firstField(v))
	num, per, ok := strings.Cut(field, "/")
	if !ok {
		return 0, false
	}
	unit := 1.0
	if k := len(per); k > 0 {
		switch lower(per[k-1]) {
		case 's':
			per = per[:k-1]
		case 'm':
			unit, per = 60, per[:k-1]
		case 'h':
			unit, per = 3600, per[:k-1]
		}
	}
	n, err1 := strconv.ParseFloat(num, 64)
	t, err2 := strconv.ParseFloat(per, 64)
	if err1 != nil || err2 != nil || !(n > 0) || !(t > 0) || math.IsInf(n, 0) {
		return 0, false
	}
	return seconds(t * unit / n), true
}

func firstField(v []byte) []byte {
	if k := bytes.IndexAny(v, " \t"); k >= 0 {
		return v[:k]
	}
	return v
}

// seconds converts to a Duration, saturating instead of overflowing.
func seconds(f float64) time.Duration {
	if f*float64(time.Second) >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(f * float64(time.Second))
}

// CrawlDelay returns the pause the file asks userAgent to leave between
// requests: the slowest of the Crawl-delay values and Request-rate intervals
// written for it, and whether there was any. A Crawl-delay line applies to the
// user-agent lines directly above it. An agent named anywhere in the file
// takes only its own delays, as it takes only its own rules; any other agent
// takes the "*" delays.
func (p *Policy) CrawlDelay(userAgent string) (time.Duration, bool) {
	if p == nil {
		return 0, false
	}
	if _, specific := lookupAgent(p.agents, userAgent); specific {
		d, ok := lookupAgent(p.delays, userAgent)
		return d, ok
	}
	return p.globalDelay, p.globalDelay > 0
}

// Groups returns the lines of the user-agent records that start the groups
// applying to userAgent, and whether they name userAgent (true) or are the
// "*" groups used as a fallback (false). No lines means no group applies and
// everything is allowed.
func (p *Policy) Groups(userAgent string) (lines []int, specific bool) {
	if p == nil {
		return nil, false
	}
	sel, specific := p.groupsFor(userAgent)
	for i := range sel.n {
		lines = append(lines, int(p.groups[p.groupAt(sel, i)].line))
	}
	return lines, specific
}

// groupSel is the set of groups that apply to one product token, as
// selectGroups resolves it: the group first when n is 1, else the n groups
// Policy.lists[first:first+n]. It is a small comparable value, so that a
// caller asking one policy many questions for one token (the request hook)
// can resolve the groups once and keep the result. It is meaningful only for
// the Policy that made it. The zero value selects no group.
type groupSel struct {
	first, n int32
}

// selectGroups resolves the groups that apply to token, once, for checkSel.
// A nil *Policy selects nothing.
func (p *Policy) selectGroups(token string) groupSel {
	if p == nil {
		return groupSel{}
	}
	sel, _ := p.groupsFor(token)
	return sel
}

// groupAt returns the i-th group of sel (0 <= i < sel.n).
func (p *Policy) groupAt(sel groupSel, i int32) int32 {
	if sel.n == 1 {
		return sel.first
	}
	return p.lists[sel.first+i]
}

// groupsFor chooses the groups that apply to userAgent (RFC 9309 §2.2.1):
// every group naming it, merged; else every "*" group. A group that names
// the agent but has no rules still replaces "*". The token is compared
// case-insensitively and as given.
func (p *Policy) groupsFor(userAgent string) (sel groupSel, specific bool) {
	if p.agentBits&agentBit(userAgent) != 0 {
		if sel, ok := lookupAgent(p.agents, userAgent); ok {
			return sel, true
		}
	}
	return p.global, false
}

// agentBit is a one-bit summary of a token's length and first octet,
// ignoring ASCII case: tokens with different bits differ.
func agentBit[S string | []byte](token S) uint64 {
	var first byte
	if len(token) > 0 {
		first = lower(token[0])
	}
	return 1 << ((uint(len(token))*31 + uint(first)) & 63)
}

// lookupAgent finds userAgent in a map keyed by lower-cased tokens, without
// allocating for tokens of up to 64 bytes.
func lookupAgent[V any](m map[string]V, userAgent string) (V, bool) {
	if len(m) == 0 {
		var zero V
		return zero, false
	}
	var buf [64]byte
	key := buf[:0]
	if len(userAgent) > len(buf) {
		key = make([]byte, 0, len(userAgent)) // ASCII folding only, as for the keys
	}
	for i := range len(userAgent) {
		key = append(key, lower(userAgent[i]))
	}
	v, ok := m[string(key)] // a map index by string(bytes) does not allocate
	return v, ok
}
