package metrics

// This file builds the rows of the table: the scalar kinds, and the
// labels of the measures reported per value.

import "github.com/robotsext/robotsext"

// counter is a Counter row read from one field of Stats.
func counter(prom, otel, unit, help string, value func(*robotsext.Stats) uint64) Metric {
	return Metric{Prom: prom, OTel: otel, Kind: Counter, Unit: unit, Help: help,
		Value: func(s *robotsext.Stats) int64 { return int64(value(s)) }}
}

// upDown is an UpDown row read from one field of Stats.
func upDown(prom, otel, unit, help string, value func(*robotsext.Stats) int64) Metric {
	return Metric{Prom: prom, OTel: otel, Kind: UpDown, Unit: unit, Help: help, Value: value}
}

// one is 1 for true, 0 for false.
func one(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// sum adds up the counts of a map.
func sum[K comparable](m map[K]uint64) (n uint64) {
	for _, v := range m {
		n += v
	}
	return n
}

// outcomes is the label of the robots.txt fetches: every Outcome, each
// from the start.
func outcomes() *Label {
	return &Label{Prom: "outcome", OTel: "robotsext.outcome", Values: names(robotsext.Outcomes()),
		Points: func(s *robotsext.Stats, point func(string, uint64)) {
			for _, o := range robotsext.Outcomes() {
				point(o.String(), s.Fetches[o])
			}
		}}
}

// reasons is the label of the decisions by Reason: each reason counted,
// and each other one the measure can count (can) at 0, by its Label.
func reasons(counts func(*robotsext.Stats) map[robotsext.Reason]uint64, can func(robotsext.Reason) bool) *Label {
	all := robotsext.Reasons()
	values := make([]string, len(all))
	for i, r := range all {
		values[i] = r.Label()
	}
	return &Label{Prom: "reason", OTel: "robotsext.reason", Values: values,
		Points: func(s *robotsext.Stats, point func(string, uint64)) {
			m := counts(s)
			for _, r := range all {
				if n, counted := m[r]; counted || can(r) {
					point(r.Label(), n)
				}
			}
			for r, n := range m { // Reasons robotsext.Reasons() does not list: none in this version.
				if int(r) >= len(all) {
					point(r.Label(), n)
				}
			}
		}}
}

// heldEnded is the label of how held requests ended.
func heldEnded() *Label {
	return &Label{Prom: "result", OTel: "robotsext.hold.result", Values: []string{"released", "gave_up"},
		Points: func(s *robotsext.Stats, point func(string, uint64)) {
			point("released", s.Released)
			point("gave_up", s.GaveUp)
		}}
}

// pauseCauses is the label of the back-off's pauses: every PauseCause.
func pauseCauses() *Label {
	return &Label{Prom: "cause", OTel: "robotsext.backoff.cause", Values: names(robotsext.PauseCauses()),
		Points: func(s *robotsext.Stats, point func(string, uint64)) {
			for _, c := range robotsext.PauseCauses() {
				point(c.String(), s.Pauses[c])
			}
		}}
}

// statusClasses is the label of the page responses: every StatusClass.
func statusClasses() *Label {
	return &Label{Prom: "class", OTel: "robotsext.status_class", Values: names(robotsext.StatusClasses()),
		Points: func(s *robotsext.Stats, point func(string, uint64)) {
			for _, c := range robotsext.StatusClasses() {
				point(c.String(), s.Responses[c])
			}
		}}
}

// names returns the String of each value.
func names[T interface{ String() string }](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return out
}
