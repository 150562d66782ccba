package robotsext

import (
	"bytes"
	"math"
	"strconv"
	"strings"
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
	// maxPolicySize is how much of a robots.txt body ParsePolicy reads at
	// most: 32 times the 500 KiB RFC 9309 §2.5 asks for (and Google's
	// crawler reads; the reference library itself reads any length). It
	// keeps a rule within eight bytes (see rule).
	maxPolicySize = 16 << 20
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
	// The fields a check reads come first, to share few cache lines.

	// agentBits has every token of agents added, so that most tokens a
	// file does not name skip the search.
	agentBits agentFilter
	global    groupSel // the "*" groups
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
	agentsByToken atomic.Pointer[map[string]groupSel]

	mu sync.Mutex // serialises building indexes and agentsByToken

	sitemaps []textRef // in text; see sitemap.go

	// Crawl delays, keyed by lower-cased token. They have their own,
	// narrower scoping than rules (see builder.scopeEnd).
	delays      map[string]time.Duration
	globalDelay time.Duration // 0: none

	// wildRules counts the rules whose pattern holds '*' or ends in '$',
	// and the directory rules of index.html Allows, for memSize.
	wildRules int

	// usageLines are the Content-Usage and Content-Signal lines as
	// written, in file order; usage.go reads them into usageRules the
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

// directive is what the line parser reports for one line it understood.
type directive struct {
	line  int32
	key   keyKind
	value []byte // trimmed, not yet percent-encoded; a slice of the input
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
	keyContentUsage  // draft-ietf-aipref-attach; see usage.go
	keyContentSignal // contentsignals.org; see usage.go
)

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
	if len(robotsTxt) > maxPolicySize {
		robotsTxt = robotsTxt[:maxPolicySize]
	}
	// The count of LF line ends sizes the array of rules and user-agent
	// records (see builder); files with CR-only line ends make it grow.
	lines := bytes.Count(robotsTxt, []byte{'\n'}) + 1
	b := builder{p: new(Policy), in: robotsTxt[:len(robotsTxt):len(robotsTxt)], buf: make([]rule, lines)}
	b.tail, b.scopeEnd = lines, lines
	eachDirective(b.in, b.add)
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

// builder compiles a Policy in one pass over the directives, noting where
// each pattern, token and sitemap sits in the input; finish then copies them
// into one exactly sized text.
//
// Every rule and every user-agent line takes a line of the file, so one
// array as long as the file has lines holds both: rules from the front,
// user-agent records (see agentRecord) from the back. The rules keep the
// array; the records are read once by finish.
type builder struct {
	p  *Policy
	in []byte // the input; every directive value is a slice of it

	buf    []rule // len(buf) == cap(buf): rules are buf[:nRules], records buf[tail:], newest first
	nRules int
	tail   int

	nGroups  int32
	sawRule  bool // a rule line followed the open group's user-agent lines
	textSize int  // bytes of text: patterns once encoded, tokens, sitemaps

	// escapes counts the rules not placed yet whose value percent-encoding
	// may change; once it is 0, place copies values as they are.
	escapes int

	// The records buf[tail:scopeEnd] are the agents a Crawl-delay or
	// Request-rate line applies to: the run of user-agent lines just
	// before it. Unlike rule groups, any other directive ends the run, so
	// that
	//
	//	User-agent: *
	//	Crawl-delay: 5
	//	User-agent: FooBot
	//	Crawl-delay: 1
	//
	// gives FooBot 1 s, as crawlers that honour Crawl-delay read it.
	scopeEnd  int
	lastWasUA bool
}

// globalLen, as the length of a user-agent record, marks "*".
const globalLen = 1<<rawLenBits - 1

// agentRecord packs a user-agent line as rawRule packs a rule: where its
// token sits in the input (globalLen for "*"), its line, and, in the Allow
// bit, whether it opens a group.
func agentRecord(opens bool, tokOff, tokLen int, line int32) rule {
	return rawRule(opens, tokOff, tokLen, line)
}

// sitemapRecord packs a kept Sitemap line among the user-agent records:
// where its URL sits in the input, and line 0, which no user-agent line has.
func sitemapRecord(off, n int) rule { return rawRule(false, off, n, 0) }

// offset returns where value, a slice of the input, starts in it.
func (b *builder) offset(value []byte) int { return cap(b.in) - cap(value) }

// room makes room for one more rule or record. The array is sized to the
// line count, so this copies only for files whose CR and LF line ends are
// mixed.
func (b *builder) room() {
	if b.nRules < b.tail {
		return
	}
	grown := make([]rule, 2*len(b.buf)+8)
	copy(grown, b.buf[:b.nRules])
	moved := len(grown) - len(b.buf)
	copy(grown[b.tail+moved:], b.buf[b.tail:])
	b.buf, b.tail, b.scopeEnd = grown, b.tail+moved, b.scopeEnd+moved
}

// add takes one directive. Group formation follows RFC 9309 §2.2.1: a
// user-agent line that follows a rule starts a new group; other records
// never close a group; rules before the first user-agent line belong to no
// group and are ignored.
func (b *builder) add(d directive) {
	wasUA := b.lastWasUA
	b.lastWasUA = d.key == keyUserAgent
	switch d.key {
	case keyUserAgent:
		opens := b.nGroups == 0 || b.sawRule
		if opens {
			b.nGroups++
			b.sawRule = false
		}
		if !wasUA {
			b.scopeEnd = b.tail
		}
		token, global := agentToken(d.value)
		n := globalLen
		if !global {
			n = len(token)
			b.p.agentBits.add(token)
			b.textSize += n
		}
		b.room()
		b.tail--
		b.buf[b.tail] = agentRecord(opens, b.offset(token), n, d.line)
	case keyAllow, keyDisallow:
		if b.nGroups == 0 {
			return
		}
		b.sawRule = true
		b.room()
		allow := d.key == keyAllow
		b.buf[b.nRules] = rawRule(allow, b.offset(d.value), len(d.value), d.line)
		b.noteTraits(allow, d.value)
		b.nRules++
	case keyContentUsage, keyContentSignal:
		// Neither line is a rule to RFC 9309: sawRule stays as it is, so
		// that group boundaries are those of a file without them. A
		// Content-Usage line outside any group is ignored, as Allow and
		// Disallow are; a Content-Signal line there (seen in the wild
		// above the first User-agent line) is kept for every crawler.
		signal := d.key == keyContentSignal
		if b.nGroups == 0 && !signal {
			return
		}
		b.p.usageLines = append(b.p.usageLines, usageLine{group: b.nGroups - 1, line: d.line, signal: signal, value: string(d.value)})
	case keySitemap:
		if isSitemapURL(d.value) {
			b.room()
			b.tail--
			b.buf[b.tail] = sitemapRecord(b.offset(d.value), len(d.value))
			b.textSize += len(d.value)
		}
	case keyCrawlDelay, keyRequestRate:
		if b.nGroups == 0 {
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

// noteTraits looks once at the value of the rule being added: how long its
// pattern will be, whether place must percent-encode it, and how many
// wildcard rules it brings (its own, if it holds '*' or ends in '$', and the
// directory rule of an index.html Allow). Percent-encoding adds no '*', '$'
// or '/', so the value as written answers for the pattern.
func (b *builder) noteTraits(allow bool, value []byte) {
	escape, star := valueTraits(value)
	n := len(value)
	if escape {
		n = escapedLen(value)
		b.escapes++
	}
	b.textSize += n
	if star || n > 0 && value[len(value)-1] == '$' {
		b.p.wildRules++
	}
	if allow && indexHTMLPrefix(bytesString(value)) >= 0 {
		b.p.wildRules++
	}
}

// addDelay records the slowest delay for every agent of the delay scope.
func (b *builder) addDelay(d time.Duration) {
	for _, r := range b.buf[b.tail:b.scopeEnd] {
		off, n := r.raw()
		if r.line() == 0 {
			continue // a sitemap
		}
		if n == globalLen {
			b.p.globalDelay = max(b.p.globalDelay, d)
			continue
		}
		if b.p.delays == nil {
			b.p.delays = make(map[string]time.Duration)
		}
		var buf [64]byte
		low := append(buf[:0], b.in[off:off+n]...)
		for i, c := range low {
			low[i] = lower(c)
		}
		if d > b.p.delays[string(low)] {
			b.p.delays[string(low)] = d
		}
	}
}

// groupRecords forms the groups, agents and sitemaps from the records, in
// file order, and gives each group the rules between its first line and
// the next group's. It returns the groups naming "*".
func (b *builder) groupRecords() (globals []int32) {
	p, recs := b.p, b.buf[b.tail:]
	agents, sitemaps := 0, 0
	for _, r := range recs {
		switch _, n := r.raw(); {
		case r.line() == 0:
			sitemaps++
		case n != globalLen:
			agents++
		}
	}
	p.groups = make([]group, 0, b.nGroups)
	p.agents = make([]agentSel, 0, agents)
	if sitemaps > 0 {
		p.sitemaps = make([]textRef, 0, sitemaps)
	}
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		if r.line() == 0 {
			off, n := r.raw()
			p.sitemaps = append(p.sitemaps, textRef{uint32(off), uint32(n)})
			continue
		}
		if r.isAllow() {
			p.groups = append(p.groups, group{line: r.line()})
		}
		g := int32(len(p.groups)) - 1
		off, n := r.raw()
		switch {
		case n != globalLen:
			p.agents = append(p.agents, agentSel{textRef{uint32(off), uint32(n)}, groupSel{first: g, n: 1}})
		case len(globals) == 0 || globals[len(globals)-1] != g:
			globals = append(globals, g)
		}
	}
	rules := b.buf[:b.nRules]
	next := 0
	for g := range p.groups {
		for next < len(rules) && rules[next].line() < p.groups[g].line {
			next++
		}
		p.groups[g].start = int32(next)
		if g > 0 {
			p.groups[g-1].end = int32(next)
		}
	}
	if n := len(p.groups); n > 0 {
		p.groups[n-1].end = int32(len(rules))
	}
	p.rules = rules
	return globals
}

func cutPrefixFold(s []byte, prefix string) ([]byte, bool) {
	if len(s) < len(prefix) || !equalFold(s[:len(prefix)], prefix) {
		return s, false
	}
	return s[len(prefix):], true
}

// finish copies the patterns, tokens and sitemaps into the text, in that
// order, and resolves the agents.
func (b *builder) finish() *Policy {
	p := b.p
	globals := b.groupRecords()
	var text strings.Builder
	text.Grow(b.textSize - b.markRepeats())
	for g, gr := range p.groups {
		for i := gr.start; i < gr.end; i++ {
			b.place(&text, g, i)
		}
	}
	for i, a := range p.agents {
		start := text.Len()
		for _, c := range b.in[a.tok.off : a.tok.off+a.tok.n] {
			text.WriteByte(lower(c))
		}
		p.agents[i].tok.off = uint32(start)
	}
	for i, s := range p.sitemaps {
		start := text.Len()
		text.Write(b.in[s.off : s.off+s.n])
		p.sitemaps[i].off = uint32(start)
	}
	p.text = text.String()
	p.sitemaps = dedupeSitemaps(p.text, p.sitemaps)
	p.resolveAgents(globals)
	p.index = make([]atomic.Pointer[groupIndex], len(p.groups))
	return p
}

// markRepeats finds the rules whose value is that of the rule at the same
// place in the group before (files often repeat one block of rules for
// several crawlers), so that place stores such a pattern once. It marks them
// with a length of globalLen and returns the bytes saved. Values that
// percent-encoding changes are left alone: their line keeps its own
// Policy.raws entry.
func (b *builder) markRepeats() (saved int) {
	gs, rs := b.p.groups, b.p.rules
	for g := len(gs) - 1; g > 0; g-- { // downwards: the group before is not marked yet
		prev, cur := gs[g-1], gs[g]
		for k := range min(prev.end-prev.start, cur.end-cur.start) {
			pOff, pn := rs[prev.start+k].raw()
			off, n := rs[cur.start+k].raw()
			value := b.in[off : off+n]
			if pn != n || string(b.in[pOff:pOff+pn]) != string(value) {
				continue
			}
			if escape, _ := valueTraits(value); escape {
				continue
			}
			rs[cur.start+k] = rawRule(rs[cur.start+k].isAllow(), off, globalLen, rs[cur.start+k].line())
			saved += n
		}
	}
	return saved
}

// place copies the pattern of rule i, of group g, into the text.
func (b *builder) place(text *strings.Builder, g int, i int32) {
	p := b.p
	r := p.rules[i]
	off, n := r.raw()
	if n == globalLen {
		// A repeat of the rule at the same place in the group before,
		// which is placed already.
		src := p.rules[p.groups[g-1].start+i-p.groups[g].start]
		p.rules[i] = r.placed(int(src.off()), int(src.n()))
		return
	}
	value := b.in[off : off+n]
	start := text.Len()
	if escape := b.escapes > 0 && escapes(value); escape {
		b.escapes--
		writeEscaped(text, value)
		n = text.Len() - start
		if text.String()[start:] != string(value) {
			if p.raws == nil {
				p.raws = make(map[int32]string)
			}
			p.raws[r.line()] = string(value)
		}
	} else {
		text.Write(value)
	}
	p.rules[i] = r.placed(start, n)
	if n >= longLen {
		if p.long == nil {
			p.long = make(map[uint32]uint32)
		}
		p.long[uint32(start)] = uint32(n)
	}
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
	if _, specific := p.findAgent(userAgent); specific {
		d, ok := lookupAgent(p.delays, userAgent)
		return d, ok
	}
	return p.globalDelay, p.globalDelay > 0
}

// Empty reports whether the file held no group (no user-agent line) and
// no Sitemap line: nothing in it applies to any crawler, so it allows
// everything. An HTML page, a binary file or an empty body served as
// robots.txt parses as empty; tools use it to warn that a file may not be
// a robots.txt at all. A nil Policy is empty.
func (p *Policy) Empty() bool {
	return p == nil || (len(p.groups) == 0 && len(p.sitemaps) == 0)
}
