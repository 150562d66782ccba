// Package tdmrep reads the TDM Reservation Protocol (TDMRep, W3C Community
// Group Final Report of 2024-05-10): an origin's /.well-known/tdmrep.json,
// the tdm-reservation and tdm-policy response headers and the HTML meta
// tags of the same names.
//
// It only reads. What a reservation means for a crawler's purposes, and
// how it combines with the other mechanisms a site may use, is decided by
// its callers. It imports neither net/http nor the robots.txt engine:
// header values and meta tags come in as strings, and paths come in the
// form the robots.txt matcher uses.
//
// The report's processing order is kept by Declaration.Over: the file is
// read first, a header supersedes it and a meta tag supersedes both; a
// technique that says nothing leaves the values before it in force.
package tdmrep

import "strings"

// Reservation is a tdm-reservation value: whether the rightsholder
// reserves text and data mining (TDM) rights on a resource. The zero value
// is Unset. Values are ordered from the least to the most restrictive.
type Reservation uint8

const (
	// Unset: nothing was said, or the value was neither 0 nor 1, which
	// the report calls a protocol error to be read as unset.
	Unset Reservation = iota
	// NotReserved: the value 0; the resource may be mined without
	// asking the rightsholder.
	NotReserved
	// Reserved: the value 1; TDM rights are reserved, the opt-out of
	// Article 4 of the EU Directive 2019/790 (CDSM).
	Reserved
)

// String returns "1", "0" or "unset".
func (r Reservation) String() string {
	switch r {
	case Reserved:
		return "1"
	case NotReserved:
		return "0"
	}
	return "unset"
}

// Technique is the way a Declaration was made, one of the report's
// techniques for the Web. The zero value is TechniqueNone.
type Technique uint8

const (
	// TechniqueNone: no technique stated a reservation.
	TechniqueNone Technique = iota
	// TechniqueFile: a rule of the origin's tdmrep.json.
	TechniqueFile
	// TechniqueHeader: the tdm-reservation response header.
	TechniqueHeader
	// TechniqueMeta: a <meta name="tdm-reservation"> tag of the page.
	TechniqueMeta
)

// String names the technique as a report line shows it.
func (t Technique) String() string {
	switch t {
	case TechniqueFile:
		return "tdmrep.json"
	case TechniqueHeader:
		return "tdm-reservation header"
	case TechniqueMeta:
		return "tdm-reservation meta"
	}
	return "none"
}

// Header and meta names of the protocol (the report uses the same words for
// both, matched without regard to ASCII case).
const (
	NameReservation = "tdm-reservation"
	NamePolicy      = "tdm-policy"
)

// Declaration is what TDMRep says about one resource: its reservation, the
// TDM policy that goes with it, and which technique set the reservation.
// The zero value says nothing.
type Declaration struct {
	// Reservation is the tdm-reservation in force.
	Reservation Reservation
	// Policy is the tdm-policy URL as written, or "". It is exposed, not
	// fetched or interpreted; the report asks agents not to process it
	// when Reservation is NotReserved.
	Policy string
	// From is the technique that set Reservation: TechniqueNone when it
	// is Unset.
	From Technique
	// Rule is the index in tdmrep.json of the rule that set Reservation
	// when From is TechniqueFile; 0 otherwise.
	Rule int
}

// Over returns d laid over earlier, as the report orders the techniques:
// the file first, then the header, then the meta tags, each superseding
// the values before it. Each of the two properties is taken from d when d
// states it and kept from earlier when d does not ("the absence of
// tdm-reservation and tdm-policy must not reset current values").
func (d Declaration) Over(earlier Declaration) Declaration {
	out := earlier
	if d.Reservation != Unset {
		out.Reservation, out.From, out.Rule = d.Reservation, d.From, d.Rule
	}
	if d.Policy != "" {
		out.Policy = d.Policy
	}
	return out
}

// FromHeader reads the tdm-reservation and tdm-policy fields of a response,
// each given as all its field lines (http.Header.Values), into a
// Declaration made by TechniqueHeader.
func FromHeader(reservation, policy []string) Declaration {
	d := Declaration{Reservation: ParseReservation(reservation...), Policy: ParsePolicy(policy...)}
	if d.Reservation != Unset {
		d.From = TechniqueHeader
	}
	return d
}

// ParseReservation reads tdm-reservation values: header field lines or
// meta contents. Each may be a comma-separated list (several field lines
// arrive so). An element that is 0 or 1, spaces and tabs around it
// trimmed, states that value; any other element is a protocol error and
// states nothing. When elements disagree the most restrictive wins, so a 1
// anywhere reserves.
func ParseReservation(values ...string) Reservation {
	r := Unset
	for _, v := range values {
		for v != "" {
			var el string
			el, v, _ = strings.Cut(v, ",")
			r = max(r, reservationOf(trimOWS(el)))
		}
	}
	return r
}

// reservationOf reads one tdm-reservation element.
func reservationOf(s string) Reservation {
	switch s {
	case "1":
		return Reserved
	case "0":
		return NotReserved
	}
	return Unset
}

// ParsePolicy reads tdm-policy values: the first that is not empty once
// spaces and tabs around it are trimmed, unless it is longer than
// MaxPolicy octets or holds a control character, when it is dropped. A URL
// may hold commas, so a value is not split. The result is a string of its
// own, never sharing a value's memory.
func ParsePolicy(values ...string) string {
	for _, v := range values {
		if v = trimOWS(v); v != "" {
			if !policyOK(v) {
				return ""
			}
			return strings.Clone(v)
		}
	}
	return ""
}

// policyOK reports whether a tdm-policy value is kept: at most MaxPolicy
// octets and no ASCII control character.
func policyOK(v string) bool {
	if len(v) > MaxPolicy {
		return false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] == 0x7f {
			return false
		}
	}
	return true
}

// AddMeta reads one meta tag of a page's head, given by its name and
// content attributes (as a head scanner finds them; the strings may share
// the page's memory, nothing of them is kept), into d. It reports whether
// name is one of TDMRep's. Several tdm-reservation tags combine as
// ParseReservation's elements do; the first tdm-policy tag with a value
// is kept.
func (d *Declaration) AddMeta(name, content string) bool {
	switch {
	case strings.EqualFold(name, NameReservation):
		if r := max(d.Reservation, ParseReservation(content)); r != d.Reservation {
			d.Reservation, d.From, d.Rule = r, TechniqueMeta, 0
		}
	case strings.EqualFold(name, NamePolicy):
		if d.Policy == "" {
			d.Policy = ParsePolicy(content)
		}
	default:
		return false
	}
	return true
}

// trimOWS trims ASCII spaces and tabs, the optional white space of an HTTP
// field value.
func trimOWS(s string) string {
	for s != "" && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
