package robotstxt

// This file packs one Allow or Disallow line into eight bytes, so that a
// parsed Policy keeps little more than its patterns (see Policy.rules).

// rule is one Allow or Disallow line of a group, packed into 64 bits:
//
//	bits  0–25  off: where its percent-encoded pattern starts in Policy.text
//	bits 26–38  n: the pattern's length, or longLen for patterns of longLen
//	            octets or more, whose length Policy.long holds
//	bits 39–62  line: the 1-based line of robots.txt it came from
//	bit  63     allow: an Allow rule (else a Disallow rule)
//
// While Parse reads the input, bits 0–38 hold instead where the value
// as written sits in the input (24 bits) and its length (15 bits); finish
// replaces them once the patterns are copied. maxPolicySize keeps every
// field in range: input offsets below 2^24, a line's value below 2^15
// octets, patterns (at most three octets per input octet) below 2^26 and
// the line of any rule below 2^24.
type rule uint64

const (
	ruleOffBits  = 26
	ruleLenBits  = 13
	ruleLineBits = 24

	ruleLenShift  = ruleOffBits
	ruleLineShift = ruleOffBits + ruleLenBits
	ruleAllowBit  = 1 << 63

	// longLen in the n field means the pattern is at least this long and
	// Policy.long holds its length.
	longLen = 1<<ruleLenBits - 1

	rawOffBits = 24 // input offset while parsing
	rawLenBits = 15 // value length while parsing
)

// The constant conversions below fail to compile if the fields stop fitting.
const (
	_ uint16 = 1<<rawLenBits - 1 - maxLineLen                    // a line's value fits
	_ uint32 = 1<<rawOffBits - maxPolicySize                     // input offsets fit
	_ uint32 = 1<<ruleOffBits - 3*maxPolicySize                  // pattern offsets fit
	_ uint32 = 1<<ruleLineBits - maxPolicySize                   // lines fit
	_ uint8  = 64 - ruleOffBits - ruleLenBits - ruleLineBits - 1 // and all fields fit
)

// rawRule packs a rule as the parser first records it.
func rawRule(allow bool, inOff, inLen int, line int32) rule {
	r := rule(inOff) | rule(inLen)<<rawOffBits | rule(line)<<ruleLineShift
	if allow {
		r |= ruleAllowBit
	}
	return r
}

// raw returns where the value sits in the input while parsing.
func (r rule) raw() (off, n int) {
	return int(r & (1<<rawOffBits - 1)), int(r >> rawOffBits & (1<<rawLenBits - 1))
}

// placed returns r with its pattern at text[off:off+n].
func (r rule) placed(off, n int) rule {
	r &^= 1<<ruleLineShift - 1
	return r | rule(off) | rule(min(n, longLen))<<ruleLenShift
}

func (r rule) off() uint32   { return uint32(r & (1<<ruleOffBits - 1)) }
func (r rule) n() uint32     { return uint32(r >> ruleLenShift & (1<<ruleLenBits - 1)) }
func (r rule) line() int32   { return int32(r >> ruleLineShift & (1<<ruleLineBits - 1)) }
func (r rule) isAllow() bool { return r&ruleAllowBit != 0 }

// pattern returns the percent-encoded pattern of r.
func (p *Policy) pattern(r rule) string {
	off, n := r.off(), r.n()
	if n == longLen {
		n = p.long[off]
	}
	return p.text[off : off+n]
}
