package tdmrep

// This file reads an origin's tdmrep.json into a File: a JSON array of
// rules, each {"location", "tdm-reservation", "tdm-policy"}, compiled once
// and looked up for every URL of the origin.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"unsafe"
)

// WellKnownPath is where an origin serves its TDMRep file.
const WellKnownPath = "/.well-known/tdmrep.json"

// The bounds of what Parse reads, and of what a File holds.
const (
	// MaxFileSize is the largest body Parse reads, in octets (512 KiB,
	// about what RFC 9309 asks crawlers to read of a robots.txt). A
	// larger body is malformed, JSON cut short being no JSON; a caller
	// reads at most MaxFileSize+1 octets to tell.
	MaxFileSize = 512 << 10
	// MaxRules is how many rules a File keeps: the first MaxRules
	// elements of the array. Those after them are ignored, reported as
	// one Issue; the file must still be valid JSON to its end.
	MaxRules = 1024
	// MaxLocation is the longest location read, in octets as written. A
	// rule with a longer one is ignored (an Issue): cut short, it would
	// match paths its author did not name.
	MaxLocation = 2048
	// MaxPolicy is the longest tdm-policy kept, in octets, in the file,
	// a header or a meta tag. A longer one is dropped (an Issue in the
	// file); the reservation stands.
	MaxPolicy = 2048
	// MaxIssues is how many Issues a File keeps; IssueCount counts them
	// all.
	MaxIssues = 16
	// MaxDepth is how deeply arrays and objects may nest in the file,
	// the file's array being the first level and a rule the second;
	// deeper is malformed. The decoder's memory grows with the depth.
	MaxDepth = 64
)

// ErrMalformed is what every error of Parse is (errors.Is): the body is
// not a JSON array, or is larger than MaxFileSize. A malformed file states
// nothing, as a missing one does.
var ErrMalformed = errors.New("tdmrep: malformed tdmrep.json")

// ErrNotJSON is what a Parse error also is when the body does not even
// start like JSON (it is empty, or an HTML page served in its place, as
// many sites answer for a path they do not have). It lets a caller log a
// soft 404 more quietly than a broken file.
var ErrNotJSON = errors.New("tdmrep: tdmrep.json is not JSON")

// ParseError is why Parse read no File.
type ParseError struct {
	// Offset is the octet of the body where reading stopped.
	Offset int64
	// Reason says what was wrong.
	Reason string

	notJSON bool
}

// Error returns "tdmrep.json: <reason> at octet <offset>".
func (e *ParseError) Error() string {
	return "tdmrep.json: " + e.Reason + " at octet " + strconv.FormatInt(e.Offset, 10)
}

// Is reports whether e is ErrMalformed (always) or ErrNotJSON.
func (e *ParseError) Is(target error) bool {
	return target == ErrMalformed || target == ErrNotJSON && e.notJSON
}

// Issue is a rule of a file that was not read as written: ignored (its
// location cannot be matched), or read with a value dropped.
type Issue struct {
	// Index is the rule's position in the array, from 0.
	Index int
	// Reason says what was wrong, such as "location is not a string".
	Reason string
}

// String returns "rule 3: location is not a string".
func (i Issue) String() string { return "rule " + strconv.Itoa(i.Index) + ": " + i.Reason }

// Rule is one rule of a tdmrep.json as read.
type Rule struct {
	// Index is the rule's position in the array, from 0.
	Index int
	// Location is the pattern as written.
	Location string
	// Reservation is its tdm-reservation; Unset when the value was
	// missing or neither 0 nor 1 (the rule still matches, and so still
	// decides for the paths it matches).
	Reservation Reservation
	// Policy is its tdm-policy URL as written, or "".
	Policy string
}

// Declaration returns what r states, made by TechniqueFile.
func (r Rule) Declaration() Declaration {
	d := Declaration{Reservation: r.Reservation, Policy: r.Policy}
	if r.Reservation != Unset {
		d.From, d.Rule = TechniqueFile, r.Index
	}
	return d
}

// rule is a Rule with its location compiled.
type rule struct {
	Rule
	pat pattern
}

// File is an origin's tdmrep.json, read and compiled. It is immutable and
// safe for concurrent use. A nil *File states nothing, as a missing,
// unreachable or malformed file does.
type File struct {
	rules  []rule
	issues []Issue // the first MaxIssues
	nIssue int
	size   int
}

// Parse reads a tdmrep.json body: a JSON array of objects, each with a
// location (a string starting with '/' or '*'), a tdm-reservation and an
// optional tdm-policy. It is lenient with a rule and strict with the file:
//
//   - A body that is not one JSON array (an object, a bare rule, trailing
//     data, a syntax error anywhere), or is larger than MaxFileSize, is a
//     *ParseError, ErrMalformed. A leading UTF-8 byte order mark is
//     skipped.
//   - An element that is not an object, or whose location is missing, not
//     a string, empty, longer than MaxLocation or not starting with '/' or
//     '*', is ignored and reported in Issues.
//   - tdm-reservation is read from the number 0 or 1 (also written 1.0),
//     the string "0" or "1", or false or true (the report calls the
//     property a boolean); any other value, or none, leaves the rule's
//     reservation Unset, reported in Issues.
//   - tdm-policy is kept when it is a string (of at most MaxPolicy octets,
//     without control characters); otherwise dropped, reported in Issues.
//   - Property names are matched without regard to ASCII case; a property
//     written twice takes its last value, as JSON.parse and encoding/json
//     do. Other properties are ignored.
//
// An empty array is a valid file that states nothing.
func Parse(body []byte) (*File, error) {
	if len(body) > MaxFileSize {
		return nil, &ParseError{Offset: MaxFileSize, Reason: "larger than " + strconv.Itoa(MaxFileSize>>10) + " KiB"}
	}
	skip := 0
	if bytes.HasPrefix(body, []byte("\xEF\xBB\xBF")) {
		skip = 3
	}
	start := skip
	for start < len(body) && isJSONSpace(body[start]) {
		start++
	}
	switch {
	case start == len(body):
		return nil, &ParseError{Offset: int64(start), Reason: "empty", notJSON: true}
	case !startsJSON(body[start]):
		return nil, &ParseError{Offset: int64(start), Reason: "not JSON", notJSON: true}
	case body[start] != '[':
		return nil, &ParseError{Offset: int64(start), Reason: "not a JSON array"}
	}
	p := parser{dec: json.NewDecoder(bytes.NewReader(body[skip:])), base: int64(skip), f: &File{}}
	p.dec.UseNumber()
	if err := p.file(); err != nil {
		return nil, err
	}
	return p.f, nil
}

// isJSONSpace reports the white space JSON allows between tokens.
func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// startsJSON reports whether c may start a JSON value.
func startsJSON(c byte) bool {
	return c == '[' || c == '{' || c == '"' || c == '-' || '0' <= c && c <= '9' || c == 't' || c == 'f' || c == 'n'
}

// parser reads one body, token by token, so that nothing is built for the
// values it skips and their nesting is bounded by MaxDepth (the decoder's
// token API has no bound of its own).
type parser struct {
	dec  *json.Decoder
	base int64 // octets skipped before the decoder's input (a BOM)
	f    *File
}

// fail returns the ParseError for err, met while reading. The offset is
// where the decoder stood: a json.SyntaxError's own offset counts from
// the decoder's buffer, not from the body.
func (p *parser) fail(err error) error {
	off := p.base + p.dec.InputOffset()
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return &ParseError{Offset: off, Reason: "unexpected end"}
	}
	return &ParseError{Offset: off, Reason: err.Error()}
}

// file reads the array and checks that nothing follows it.
func (p *parser) file() error {
	if _, err := p.dec.Token(); err != nil { // '[', checked by Parse
		return p.fail(err)
	}
	n := 0
	for p.dec.More() {
		if n < MaxRules {
			if err := p.element(n); err != nil {
				return err
			}
		} else if err := p.skipValue(); err != nil {
			return err
		}
		n++
	}
	if _, err := p.dec.Token(); err != nil { // ']'
		return p.fail(err)
	}
	if _, err := p.dec.Token(); err != io.EOF {
		off := p.base + p.dec.InputOffset()
		if err != nil {
			return p.fail(err)
		}
		return &ParseError{Offset: off, Reason: "data after the array"}
	}
	if n > MaxRules {
		p.issue(MaxRules, strconv.Itoa(n-MaxRules)+" rules after the first "+strconv.Itoa(MaxRules)+" ignored")
	}
	p.f.size += len(p.f.rules) * int(unsafe.Sizeof(rule{}))
	return nil
}

// skipValue reads one element of the array and drops it.
func (p *parser) skipValue() error {
	_, err := p.value(2)
	return err
}

// nested stands for an array or object value, which no property of a rule
// may be.
type nested struct{}

// value reads one value at nesting level level (the array's elements are
// at level 2): a scalar token (string, json.Number, bool or nil), or
// nested{} for an array or object, which it skips whole.
func (p *parser) value(level int) (json.Token, error) {
	tok, err := p.dec.Token()
	if err != nil {
		return nil, p.fail(err)
	}
	if d, ok := tok.(json.Delim); ok && (d == '[' || d == '{') {
		return nested{}, p.skipFrom(level + 1)
	}
	return tok, nil
}

// skipFrom reads and drops tokens up to the end of the array or object
// whose opening was just read, its contents being at level level: an
// array or object opened at a level above MaxDepth is malformed.
func (p *parser) skipFrom(level int) error {
	for end := level; level >= end; {
		tok, err := p.dec.Token()
		if err != nil {
			return p.fail(err)
		}
		switch tok {
		case json.Delim('['), json.Delim('{'):
			if level > MaxDepth {
				return &ParseError{Offset: p.base + p.dec.InputOffset(), Reason: "nested deeper than " + strconv.Itoa(MaxDepth) + " levels"}
			}
			level++
		case json.Delim(']'), json.Delim('}'):
			level--
		}
	}
	return nil
}

// element reads the rule at index i of the array.
func (p *parser) element(i int) error {
	tok, err := p.dec.Token()
	if err != nil {
		return p.fail(err)
	}
	switch tok {
	case json.Delim('{'):
	case json.Delim('['):
		if err := p.skipFrom(3); err != nil {
			return err
		}
		p.issue(i, "not an object")
		return nil
	default:
		p.issue(i, "not an object")
		return nil
	}
	var loc, res, pol property
	for p.dec.More() {
		kt, err := p.dec.Token()
		if err != nil {
			return p.fail(err)
		}
		key, _ := kt.(string) // the decoder reads only strings as names
		v, err := p.value(3)
		if err != nil {
			return err
		}
		switch {
		case strings.EqualFold(key, "location"):
			loc = property{v, true}
		case strings.EqualFold(key, NameReservation):
			res = property{v, true}
		case strings.EqualFold(key, NamePolicy):
			pol = property{v, true}
		}
	}
	if _, err := p.dec.Token(); err != nil { // '}'
		return p.fail(err)
	}
	p.rule(i, loc, res, pol)
	return nil
}

// property is a property of a rule as read: set is false when the rule
// has none (tok is nil for JSON's null too).
type property struct {
	tok json.Token
	set bool
}

// rule compiles the rule at index i from its three properties and adds it
// to the file, or reports why it cannot.
func (p *parser) rule(i int, loc, res, pol property) {
	s, ok := loc.tok.(string)
	switch {
	case !loc.set:
		p.issue(i, "no location")
		return
	case !ok:
		p.issue(i, "location is not a string")
		return
	case s == "":
		p.issue(i, "empty location")
		return
	case len(s) > MaxLocation:
		p.issue(i, "location longer than "+strconv.Itoa(MaxLocation)+" octets")
		return
	case s[0] != '/' && s[0] != '*':
		p.issue(i, "location does not start with / or *")
		return
	}
	r := rule{Rule: Rule{Index: i, Location: s}, pat: compile(s)}
	var okRes bool
	if r.Reservation, okRes = jsonReservation(res.tok); !okRes {
		if !res.set {
			p.issue(i, "no tdm-reservation")
		} else {
			p.issue(i, "tdm-reservation is neither 0 nor 1")
		}
	}
	switch v := pol.tok.(type) {
	case nil:
		if pol.set {
			p.issue(i, "tdm-policy dropped: not a string")
		}
	case string:
		if v != "" && !policyOK(v) {
			p.issue(i, "tdm-policy dropped: longer than "+strconv.Itoa(MaxPolicy)+" octets or holds a control character")
		} else {
			r.Policy = v
		}
	default:
		p.issue(i, "tdm-policy dropped: not a string")
	}
	p.f.rules = append(p.f.rules, r)
	p.f.size += len(s) + len(r.Policy)
	if r.pat.text != s && r.pat.text != s[:len(s)-1] {
		p.f.size += len(r.pat.text) // normalised into a string of its own
	}
}

// jsonReservation reads a tdm-reservation property: the number 0 or 1,
// the string "0" or "1", false or true. ok is false for anything else.
func jsonReservation(v json.Token) (r Reservation, ok bool) {
	switch v := v.(type) {
	case json.Number:
		switch f, err := v.Float64(); {
		case err != nil:
		case f == 1:
			return Reserved, true
		case f == 0:
			return NotReserved, true
		}
	case string:
		if r := reservationOf(trimOWS(v)); r != Unset {
			return r, true
		}
	case bool:
		if v {
			return Reserved, true
		}
		return NotReserved, true
	}
	return Unset, false
}

// issue records an Issue of rule i.
func (p *parser) issue(i int, reason string) {
	if p.f.nIssue < MaxIssues {
		p.f.issues = append(p.f.issues, Issue{Index: i, Reason: reason})
	}
	p.f.nIssue++
}

// Lookup returns the rule that decides for path: the first rule of the
// file whose location matches it. The report: "The most specific match
// found MUST be used. The most specific match is the first in sequence."
// So the order of the array decides, not the length of the location. ok
// is false when no rule matches, or f is nil: the reservation is then
// unset.
//
// path is what robots.txt rules are matched against: it starts with '/',
// holds the path and query as sent (no fragment), its octets outside
// US-ASCII percent-encoded and its escapes not decoded. Lookup does not
// allocate.
func (f *File) Lookup(path string) (r Rule, ok bool) {
	if f == nil {
		return Rule{}, false
	}
	for i := range f.rules {
		if f.rules[i].pat.match(path) {
			return f.rules[i].Rule, true
		}
	}
	return Rule{}, false
}

// Declaration returns what the file states for path: the Declaration of
// the rule Lookup finds, or the zero Declaration.
func (f *File) Declaration(path string) Declaration {
	r, ok := f.Lookup(path)
	if !ok {
		return Declaration{}
	}
	return r.Declaration()
}

// Len returns the number of rules kept.
func (f *File) Len() int {
	if f == nil {
		return 0
	}
	return len(f.rules)
}

// Rules returns the rules kept, in the file's order.
func (f *File) Rules() []Rule {
	if f == nil {
		return nil
	}
	out := make([]Rule, len(f.rules))
	for i := range f.rules {
		out[i] = f.rules[i].Rule
	}
	return out
}

// Issues returns the first MaxIssues issues met while reading the file, in
// its order.
func (f *File) Issues() []Issue {
	if f == nil {
		return nil
	}
	return append([]Issue(nil), f.issues...)
}

// IssueCount returns how many issues were met, including those Issues
// does not keep.
func (f *File) IssueCount() int {
	if f == nil {
		return 0
	}
	return f.nIssue
}

// Size estimates the memory f holds, in octets, for a cache that bounds
// its memory.
func (f *File) Size() int {
	if f == nil {
		return 0
	}
	return int(unsafe.Sizeof(File{})) + f.size + len(f.issues)*int(unsafe.Sizeof(Issue{}))
}
