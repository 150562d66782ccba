package robotstxt

// This file compiles a Policy in one pass over the directives the splitter
// reports (split.go), and copies what it keeps into one exactly sized text.

import (
	"strings"
	"sync/atomic"
	"time"
)

// agentToken returns the part of a user-agent line's value that is compared
// with the crawler's token, and whether the line names the "*" group. As in
// the reference library, "*" may be followed by white space and anything;
// any other value is cut at the first octet outside [A-Za-z_-].
func agentToken(value []byte) (token []byte, global bool) {
	if len(value) > 0 && value[0] == '*' && (len(value) == 1 || isSpace(value[1])) {
		return nil, true
	}
	n := 0
	for n < len(value) && IsTokenChar(value[n]) {
		n++
	}
	return value[:n], false
}

// IsTokenChar reports whether c may appear in a product token: the
// letters, '-' and '_' (RFC 9309 §2.2.1). A user-agent line's value is cut
// at the first octet that may not.
func IsTokenChar(c byte) bool {
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
func (b *builder) add(d Directive) {
	wasUA := b.lastWasUA
	b.lastWasUA = d.Key == KeyUserAgent
	switch d.Key {
	case KeyUserAgent:
		opens := b.nGroups == 0 || b.sawRule
		if opens {
			b.nGroups++
			b.sawRule = false
		}
		if !wasUA {
			b.scopeEnd = b.tail
		}
		token, global := agentToken(d.Value)
		n := globalLen
		if !global {
			n = len(token)
			b.p.agentBits.add(token)
			b.textSize += n
		}
		b.room()
		b.tail--
		b.buf[b.tail] = agentRecord(opens, b.offset(token), n, d.Line)
	case KeyAllow, KeyDisallow:
		if b.nGroups == 0 {
			return
		}
		b.sawRule = true
		b.room()
		allow := d.Key == KeyAllow
		b.buf[b.nRules] = rawRule(allow, b.offset(d.Value), len(d.Value), d.Line)
		b.noteTraits(allow, d.Value)
		b.nRules++
	case KeyContentUsage, KeyContentSignal:
		// Neither line is a rule to RFC 9309: sawRule stays as it is, so
		// that group boundaries are those of a file without them. A
		// Content-Usage line outside any group is ignored, as Allow and
		// Disallow are; a Content-Signal line there (seen in the wild
		// above the first User-agent line) is kept for every crawler.
		signal := d.Key == KeyContentSignal
		if b.nGroups == 0 && !signal {
			return
		}
		b.p.usageLines = append(b.p.usageLines, usageLine{group: b.nGroups - 1, line: d.Line, signal: signal, value: string(d.Value)})
	case KeySitemap:
		if isSitemapURL(d.Value) {
			b.room()
			b.tail--
			b.buf[b.tail] = sitemapRecord(b.offset(d.Value), len(d.Value))
			b.textSize += len(d.Value)
		}
	case KeyCrawlDelay, KeyRequestRate:
		if b.nGroups == 0 {
			return
		}
		var d0 time.Duration
		var ok bool
		if d.Key == KeyCrawlDelay {
			d0, ok = parseCrawlDelay(d.Value)
		} else {
			d0, ok = parseRequestRate(d.Value)
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
			b.p.globalStated = true
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
		if old, ok := b.p.delays[string(low)]; !ok || d > old {
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
			p.agents = append(p.agents, agentSel{textRef{uint32(off), uint32(n)}, Selection{first: g, n: 1}})
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

// finish copies the patterns, tokens and sitemaps into the text, in that
// order, and resolves the agents.
func (b *builder) finish() {
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
