package robotsotel

import (
	"strconv"

	"github.com/robotsext/robotsext"
)

// reasonInfo returns the robotsext.reason attribute value of r, short,
// snake_case and stable, unlike Reason.String's prose, which may be
// reworded (the same values as robotsprom's reason label); and whether r
// can let a request through (allows) or refuse one (blocks), so that
// robotsext.allowed and robotsext.blocked start with a zero data point
// for each reason they can count, and none for a reason they never will.
// A Reason this package does not know yet (the root module added one)
// gets "reason_N" and a data point once it has been counted.
func reasonInfo(r robotsext.Reason) (label string, allows, blocks bool) {
	switch r {
	case robotsext.ReasonNoMatch:
		return "no_match", true, false
	case robotsext.ReasonAllowRule:
		return "allow_rule", true, false
	case robotsext.ReasonDisallowRule:
		return "disallow_rule", false, true
	case robotsext.ReasonEmptyRule:
		return "empty_rule", true, false
	case robotsext.ReasonRobotsTxt:
		return "robots_txt", true, false
	case robotsext.ReasonUnavailable:
		return "unavailable", true, false
	case robotsext.ReasonUnreachable: // FailOpen allows, FailClosed blocks
		return "unreachable", true, true
	case robotsext.ReasonUnauthorized:
		return "unauthorized", false, true
	case robotsext.ReasonOverride:
		return "override", true, false
	case robotsext.ReasonNotApplicable:
		return "not_applicable", true, false
	case robotsext.ReasonLocalError:
		return "local_error", false, true
	}
	return "reason_" + strconv.Itoa(int(r)), false, false
}

// knownReasons returns how many Reason values the root module defines:
// they are numbered from 0 and String describes each but the first one
// past the end as "unknown reason".
func knownReasons() int {
	n := 0
	for n < 256 && robotsext.Reason(n).String() != "unknown reason" {
		n++
	}
	return n
}

// outcomeLabels returns the robotsext.outcome attribute value of each
// Outcome the root module defines, indexed by Outcome: its String, which
// the root documents as "ok", "unavailable", "unreachable" or
// "unauthorized" and so is already a stable value.
func outcomeLabels() []string {
	var labels []string
	for o := 0; o < 256; o++ {
		s := robotsext.Outcome(o).String()
		if s == "unknown outcome" {
			break
		}
		labels = append(labels, s)
	}
	return labels
}
