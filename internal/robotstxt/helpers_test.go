package robotstxt

import "fmt"

// parsePolicy compiles robots into a new Policy, as the root package's
// ParsePolicy does.
func parsePolicy(robots []byte) *Policy {
	p := new(Policy)
	p.Parse(robots)
	return p
}

// reason names what decided a check, as the root package's Reason does,
// so that tests state decisions as a reader of robots.txt would.
type reason string

const (
	noMatch      reason = "no rule matched"
	allowRule    reason = "allowed by rule"
	disallowRule reason = "disallowed by rule"
	emptyRule    reason = "empty rule matched"
	robotsTxt    reason = "/robots.txt"
)

// verdict is a Match as the tests read it: what the root package's Verdict
// holds of it. It is comparable, so that two decisions compare with ==.
type verdict struct {
	Allowed bool
	Reason  reason
	Line    int
	Rule    string // as written
}

func (v verdict) String() string {
	return fmt.Sprintf("{%v %s line %d rule %q}", v.Allowed, v.Reason, v.Line, v.Rule)
}

// verdictOf reads m, a Match of p.
func verdictOf(p *Policy, m Match) verdict {
	v := verdict{Allowed: m.Allowed(), Line: m.Line()}
	switch {
	case m.RobotsTxt():
		v.Reason = robotsTxt
	case m.None():
		v.Reason = noMatch
	case m.Empty():
		v.Reason = emptyRule
	case m.Allow():
		v.Reason, v.Rule = allowRule, p.Written(m)
	default:
		v.Reason, v.Rule = disallowRule, p.Written(m)
	}
	return v
}

// check decides rawURL for token as the root package's Policy.Check does
// (the path in two steps, built in a stack buffer when it must be), read
// as a verdict.
func check(p *Policy, token, rawURL string) verdict {
	path, ready := PathSpan(rawURL)
	if !ready {
		var buf [PathBufSize]byte
		path = bytesString(FinishPath(buf[:0], path))
	}
	return verdictOf(p, p.Decide(p.Select(token), path))
}

// decide is p.Decide read as a verdict.
func decide(p *Policy, sel Selection, path string) verdict {
	return verdictOf(p, p.Decide(sel, path))
}
