// Package httpsig builds and reads the signature base of RFC 9421 HTTP
// Message Signatures: the covered components of a message, the signature
// parameters, and the Signature-Input and Signature fields that carry
// them. It neither signs nor verifies, and does no I/O: callers hand the
// base to a signature algorithm (Ed25519 for Web Bot Auth).
//
// Only what Web Bot Auth needs is supported: the derived components of
// RFC 9421 §2.2 except @query-param, header fields whole or one member of
// a Dictionary field (the "key" parameter), and the "req" parameter of a
// response. Other component parameters ("sf", "bs", "tr", "name") are
// refused with ErrUnsupported.
//
// It is written here rather than taken from a library because the one
// evaluated, github.com/remitly-oss/httpsig-go v1.2.0, does not fit Web
// Bot Auth: it ignores the "key" parameter (so "signature-agent";key="sig1"
// would cover the whole field), takes @authority from Request.Host (empty
// on a client's request, and not normalized) and @path from the decoded
// path, and builds @target-uri without its '?'.
package httpsig

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/dunglas/httpsfv"
)

// Errors, for errors.Is.
var (
	// ErrMissing: a covered component is absent from the message: a
	// header field it lacks, a Dictionary member not in its field, a
	// response component of a request.
	ErrMissing = errors.New("httpsig: covered component absent from the message")
	// ErrMalformed: a field or component cannot be read or written as
	// RFC 9421 requires (a Signature-Input that is not a Dictionary of
	// Inner Lists, a value with a line break, a duplicate component, …).
	ErrMalformed = errors.New("httpsig: malformed signature field or component")
	// ErrUnsupported: a component or parameter this package does not
	// implement.
	ErrUnsupported = errors.New("httpsig: unsupported component")
)

// Component identifies one covered component (RFC 9421 §2).
type Component struct {
	// Name is a derived component ("@method", "@target-uri",
	// "@authority", "@scheme", "@request-target", "@path", "@query",
	// "@status") or a field name, in lower case.
	Name string
	// Key names one member of a Dictionary field (the "key" parameter,
	// §2.1.2): the component's value is that member, serialized. "" takes
	// the whole field.
	Key string
	// Req takes a response's component from the request that led to it
	// (the "req" parameter, §2.4).
	Req bool
}

// item is c as a component identifier: an sf-string with its parameters.
func (c Component) item() httpsfv.Item {
	it := httpsfv.NewItem(c.Name)
	if c.Key != "" {
		it.Params.Add("key", c.Key)
	}
	if c.Req {
		it.Params.Add("req", true)
	}
	return it
}

// String returns the component identifier as it appears in a signature
// base, such as "@authority" or "signature-agent";key="sig1" (quotes
// included).
func (c Component) String() string {
	s, err := httpsfv.Marshal(c.item())
	if err != nil {
		return fmt.Sprintf("%q", c.Name)
	}
	return s
}

// Param is one signature parameter (RFC 9421 §2.3): created and expires
// are int64, keyid, alg, nonce and tag strings.
type Param struct {
	Name  string
	Value any // int64 or string
}

// Params are a signature's parameters, in the order they are serialized:
// the order is part of the signature base.
type Params []Param

// Int returns the integer parameter name.
func (ps Params) Int(name string) (int64, bool) {
	for _, p := range ps {
		if p.Name == name {
			v, ok := p.Value.(int64)
			return v, ok
		}
	}
	return 0, false
}

// String returns the string parameter name.
func (ps Params) String(name string) (string, bool) {
	for _, p := range ps {
		if p.Name == name {
			v, ok := p.Value.(string)
			return v, ok
		}
	}
	return "", false
}

// Message is what the components of a request or a response are read
// from.
type Message struct {
	// Method, Scheme, Authority, Path and Query describe a request's
	// target: Authority as Authority returns it, Path as sent (percent-
	// encoded; "" means "/"), Query without its '?'.
	Method, Scheme, Authority, Path, Query string
	// Header holds the message's fields.
	Header http.Header
	// Status is a response's status code; 0 for a request.
	Status int
	// Request is the request a response answers, for components with
	// Req set; nil for a request.
	Request *Message
}

// FromRequest describes r, on either side of the wire: a client's
// request (Scheme from its URL, Authority from Host or the URL's host)
// or a server's (Scheme from the connection, Authority from Host).
func FromRequest(r *http.Request) *Message {
	scheme := r.URL.Scheme
	if scheme == "" {
		scheme = "http"
		if r.TLS != nil {
			scheme = "https"
		}
	}
	host := r.Host
	if host == "" {
		host = r.URL.Host
	}
	return &Message{
		Method:    r.Method,
		Scheme:    strings.ToLower(scheme),
		Authority: Authority(scheme, host),
		Path:      r.URL.EscapedPath(),
		Query:     r.URL.RawQuery,
		Header:    r.Header,
	}
}

// Authority normalizes a request's host and port as @authority requires
// (RFC 9421 §2.2.3, RFC 9110 §4.2.3): in lower case, without the
// scheme's default port (80 for http, 443 for https).
func Authority(scheme, hostport string) string {
	a := strings.ToLower(hostport)
	switch strings.ToLower(scheme) {
	case "http":
		a = strings.TrimSuffix(a, ":80")
	case "https":
		a = strings.TrimSuffix(a, ":443")
	}
	return a
}

// Base returns the signature base of m for the components cs and the
// parameters ps (RFC 9421 §2.5), and the serialized signature parameters:
// the value of "@signature-params", which is also the message's
// Signature-Input member (see InputMember).
func Base(m *Message, cs []Component, ps Params) (base []byte, params string, err error) {
	params, err = serializeParams(cs, ps)
	if err != nil {
		return nil, "", err
	}
	var b strings.Builder
	seen := make(map[string]bool, len(cs))
	for _, c := range cs {
		id := c.String()
		if seen[id] {
			return nil, "", fmt.Errorf("%w: %s covered twice", ErrMalformed, id)
		}
		seen[id] = true
		v, err := value(m, c)
		if err != nil {
			return nil, "", err
		}
		if strings.ContainsAny(v, "\r\n") {
			return nil, "", fmt.Errorf("%w: the value of %s has a line break", ErrMalformed, id)
		}
		b.WriteString(id)
		b.WriteString(": ")
		b.WriteString(v)
		b.WriteByte('\n')
	}
	b.WriteString(`"@signature-params": `)
	b.WriteString(params)
	return []byte(b.String()), params, nil
}

// serializeParams writes the covered components and the parameters as an
// Inner List.
func serializeParams(cs []Component, ps Params) (string, error) {
	il := httpsfv.InnerList{Items: make([]httpsfv.Item, len(cs)), Params: httpsfv.NewParams()}
	for i, c := range cs {
		il.Items[i] = c.item()
	}
	for _, p := range ps {
		switch p.Value.(type) {
		case int64, string:
		default:
			return "", fmt.Errorf("%w: parameter %s is %T, want int64 or string", ErrMalformed, p.Name, p.Value)
		}
		il.Params.Add(p.Name, p.Value)
	}
	s, err := httpsfv.Marshal(il)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return s, nil
}

// value returns the component value of c in m (RFC 9421 §2.1, §2.2).
func value(m *Message, c Component) (string, error) {
	if c.Req {
		if m.Request == nil {
			return "", fmt.Errorf("%w: %s asks for the request of a request", ErrMissing, c)
		}
		m, c.Req = m.Request, false
	}
	if !strings.HasPrefix(c.Name, "@") {
		return fieldValue(m.Header, c)
	}
	if c.Key != "" {
		return "", fmt.Errorf("%w: %s: a derived component takes no key", ErrUnsupported, c)
	}
	if c.Name == "@status" {
		if m.Status == 0 {
			return "", fmt.Errorf("%w: @status of a request", ErrMissing)
		}
		return fmt.Sprintf("%03d", m.Status), nil
	}
	if m.Status != 0 {
		return "", fmt.Errorf("%w: %s of a response (use req)", ErrMissing, c)
	}
	path := m.Path
	if path == "" {
		path = "/"
	}
	switch c.Name {
	case "@method":
		return m.Method, nil
	case "@authority":
		return m.Authority, nil
	case "@scheme":
		return strings.ToLower(m.Scheme), nil
	case "@path":
		return path, nil
	case "@query":
		return "?" + m.Query, nil
	case "@request-target":
		if m.Query != "" {
			return path + "?" + m.Query, nil
		}
		return path, nil
	case "@target-uri":
		t := strings.ToLower(m.Scheme) + "://" + m.Authority + path
		if m.Query != "" {
			t += "?" + m.Query
		}
		return t, nil
	}
	return "", fmt.Errorf("%w: %s", ErrUnsupported, c)
}

// fieldValue returns a header field's component value: its lines, each
// without leading and trailing white space, joined by ", "; or, with a
// key, that member of the field read as a Dictionary, serialized.
func fieldValue(h http.Header, c Component) (string, error) {
	if c.Name != strings.ToLower(c.Name) {
		return "", fmt.Errorf("%w: field name %q is not in lower case", ErrMalformed, c.Name)
	}
	vs := h.Values(c.Name)
	if len(vs) == 0 {
		return "", fmt.Errorf("%w: field %s", ErrMissing, c.Name)
	}
	if c.Key == "" {
		trimmed := make([]string, len(vs))
		for i, v := range vs {
			trimmed[i] = strings.Trim(v, " \t")
		}
		return strings.Join(trimmed, ", "), nil
	}
	d, err := httpsfv.UnmarshalDictionary(vs)
	if err != nil {
		return "", fmt.Errorf("%w: field %s is not a Dictionary: %v", ErrMalformed, c.Name, err)
	}
	member, ok := d.Get(c.Key)
	if !ok {
		return "", fmt.Errorf("%w: field %s has no member %q", ErrMissing, c.Name, c.Key)
	}
	s, err := httpsfv.Marshal(member.(httpsfv.StructuredFieldValue))
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return s, nil
}

// InputMember returns the Signature-Input member for the signature
// labelled label, whose serialized parameters Base returned.
func InputMember(label, params string) string { return label + "=" + params }

// SignatureMember returns the Signature member carrying the signature
// value sig under label.
func SignatureMember(label string, sig []byte) string {
	return label + "=:" + base64.StdEncoding.EncodeToString(sig) + ":"
}

// Signature is one signature of a message: a member of its
// Signature-Input and the value of the same label in its Signature.
type Signature struct {
	Label      string
	Components []Component
	Params     Params
	Value      []byte
}

// Parse reads every signature of h: each member of its Signature-Input
// and the Signature member of the same label. A message without
// Signature-Input has none.
func Parse(h http.Header) ([]Signature, error) {
	inputs := h.Values("Signature-Input")
	if len(inputs) == 0 {
		return nil, nil
	}
	in, err := httpsfv.UnmarshalDictionary(inputs)
	if err != nil {
		return nil, fmt.Errorf("%w: Signature-Input: %v", ErrMalformed, err)
	}
	sigs, err := httpsfv.UnmarshalDictionary(h.Values("Signature"))
	if err != nil {
		return nil, fmt.Errorf("%w: Signature: %v", ErrMalformed, err)
	}
	var out []Signature
	for _, label := range in.Names() {
		m, _ := in.Get(label)
		s, err := parseInput(label, m)
		if err != nil {
			return nil, err
		}
		v, ok := sigs.Get(label)
		if !ok {
			return nil, fmt.Errorf("%w: Signature has no member %q", ErrMissing, label)
		}
		it, ok := v.(httpsfv.Item)
		if !ok {
			return nil, fmt.Errorf("%w: Signature member %q is not a Byte Sequence", ErrMalformed, label)
		}
		if s.Value, ok = it.Value.([]byte); !ok {
			return nil, fmt.Errorf("%w: Signature member %q is not a Byte Sequence", ErrMalformed, label)
		}
		out = append(out, s)
	}
	return out, nil
}

// parseInput reads one Signature-Input member.
func parseInput(label string, m httpsfv.Member) (Signature, error) {
	s := Signature{Label: label}
	il, ok := m.(httpsfv.InnerList)
	if !ok {
		return s, fmt.Errorf("%w: Signature-Input member %q is not an Inner List", ErrMalformed, label)
	}
	for _, it := range il.Items {
		name, ok := it.Value.(string)
		if !ok {
			return s, fmt.Errorf("%w: Signature-Input member %q covers a non-string component", ErrMalformed, label)
		}
		c := Component{Name: name}
		for _, p := range it.Params.Names() {
			v, _ := it.Params.Get(p)
			switch {
			case p == "key":
				if c.Key, ok = v.(string); !ok || c.Key == "" {
					return s, fmt.Errorf("%w: %q: key is not a non-empty string", ErrMalformed, name)
				}
			case p == "req" && v == true:
				c.Req = true
			default:
				return s, fmt.Errorf("%w: %q;%s", ErrUnsupported, name, p)
			}
		}
		s.Components = append(s.Components, c)
	}
	for _, p := range il.Params.Names() {
		v, _ := il.Params.Get(p)
		switch v.(type) {
		case int64, string:
			s.Params = append(s.Params, Param{Name: p, Value: v})
		default:
			return s, fmt.Errorf("%w: signature parameter %s is %T", ErrMalformed, p, v)
		}
	}
	return s, nil
}

// Base returns the signature base of m for s: what its signer signed
// if m is the message it signed.
func (s Signature) Base(m *Message) ([]byte, error) {
	b, _, err := Base(m, s.Components, s.Params)
	return b, err
}
