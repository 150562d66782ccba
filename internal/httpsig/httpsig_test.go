package httpsig

import (
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/robotsext/robotsext/internal/sigtest"
)

// testKey is RFC 9421's test-key-ed25519 (Appendix B.1.4).
var testKey = sigtest.RFCKey

// testRequest is RFC 9421's test-request (Appendix B.2).
func testRequest() *Message {
	return &Message{
		Method: "POST", Scheme: "https", Authority: "example.com", Path: "/foo", Query: "param=Value&Pet=dog",
		Header: http.Header{
			"Host":           {"example.com"},
			"Date":           {"Tue, 20 Apr 2021 02:07:55 GMT"},
			"Content-Type":   {"application/json"},
			"Content-Digest": {"sha-512=:WZDPaVn/7XgHaAy8pmojAkGWoRx2UFChF41A2svX+TaPm+AbwAgBWnrIiYllu7BNNyealdVLvRwEmTHWXvJwew==:"},
			"Content-Length": {"18"},
		},
	}
}

// TestRFC9421B26 reproduces RFC 9421 Appendix B.2.6: the signature base
// of test-request under test-key-ed25519, and its signature, byte for byte
// (Ed25519 is deterministic).
func TestRFC9421B26(t *testing.T) {
	t.Parallel()
	cs := []Component{{Name: "date"}, {Name: "@method"}, {Name: "@path"}, {Name: "@authority"}, {Name: "content-type"}, {Name: "content-length"}}
	ps := Params{{"created", int64(1618884473)}, {"keyid", "test-key-ed25519"}}
	base, params, err := Base(testRequest(), cs, ps)
	if err != nil {
		t.Fatal(err)
	}
	wantBase := `"date": Tue, 20 Apr 2021 02:07:55 GMT
"@method": POST
"@path": /foo
"@authority": example.com
"content-type": application/json
"content-length": 18
"@signature-params": ("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"`
	if string(base) != wantBase {
		t.Errorf("base:\n%s\nwant:\n%s", base, wantBase)
	}
	wantInput := `sig-b26=("date" "@method" "@path" "@authority" "content-type" "content-length");created=1618884473;keyid="test-key-ed25519"`
	if got := InputMember("sig-b26", params); got != wantInput {
		t.Errorf("Signature-Input: %s\nwant %s", got, wantInput)
	}
	sig := ed25519.Sign(testKey(t), base)
	want := "sig-b26=:wqcAqbmYJ2ji2glfAMaRy4gruYYnx2nEFN2HN6jrnDnQCK1u02Gb04v9EDgwUPiu4A0w6vuQv5lIp5WPpBKRCw==:"
	if got := SignatureMember("sig-b26", sig); got != want {
		t.Errorf("Signature: %s\nwant %s", got, want)
	}
}

// TestWebBotAuthVector reproduces the Ed25519 test vector of
// draft-ietf-webbotauth-httpsig-protocol-01 (Appendix E.2.1): @authority
// and the Dictionary member of Signature-Agent keyed "agent2".
func TestWebBotAuthVector(t *testing.T) {
	t.Parallel()
	m := &Message{Method: "GET", Scheme: "https", Authority: "example.com", Path: "/",
		Header: http.Header{"Signature-Agent": {`agent2="https://signature-agent.test"`}}}
	cs := []Component{{Name: "@authority"}, {Name: "signature-agent", Key: "agent2"}}
	ps := Params{
		{"created", int64(1735689600)},
		{"keyid", "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"},
		{"alg", "ed25519"},
		{"expires", int64(4889289600)},
		{"nonce", "n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA=="},
		{"tag", "web-bot-auth"},
	}
	base, _, err := Base(m, cs, ps)
	if err != nil {
		t.Fatal(err)
	}
	wantBase := `"@authority": example.com
"signature-agent";key="agent2": "https://signature-agent.test"
"@signature-params": ("@authority" "signature-agent";key="agent2");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=4889289600;nonce="n9p433xm+NJ3ph3upfBIGmsuwHw387YV7Q/F+6BSpGCVjYCqQw6rznNA8PVVLySrAWsv0hQtFioQb6E1YsauiA==";tag="web-bot-auth"`
	if string(base) != wantBase {
		t.Errorf("base:\n%s\nwant:\n%s", base, wantBase)
	}
	want := "sig2=:RdNFx5Bj6au3YgAMQL/RzmUlZE8QZLIaXGRpw985hWnwPfMxT228NMk6ehRS1PSl4e8PhbNZACSanGdhEwYCCg==:"
	if got := SignatureMember("sig2", ed25519.Sign(testKey(t), base)); got != want {
		t.Errorf("Signature: %s\nwant %s", got, want)
	}
}

// TestDirectoryResponseVector reproduces the draft's signed directory
// response (Appendix E.2.3): "@authority";req and content-digest of a
// response.
func TestDirectoryResponseVector(t *testing.T) {
	t.Parallel()
	req := &Message{Method: "GET", Scheme: "https", Authority: "signature-agent.test", Path: "/.well-known/http-message-signatures-directory"}
	resp := &Message{Status: 200, Request: req,
		Header: http.Header{"Content-Digest": {"sha-256=:CADMT2aBdV/rqQr/NIru64ERQkCobVvllA4V0fLFDu0=:"}}}
	cs := []Component{{Name: "@authority", Req: true}, {Name: "content-digest"}}
	ps := Params{
		{"created", int64(1735689600)},
		{"expires", int64(4889289600)},
		{"keyid", "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"},
		{"tag", "http-message-signatures-directory"},
	}
	base, _, err := Base(resp, cs, ps)
	if err != nil {
		t.Fatal(err)
	}
	wantBase := `"@authority";req: signature-agent.test
"content-digest": sha-256=:CADMT2aBdV/rqQr/NIru64ERQkCobVvllA4V0fLFDu0=:
"@signature-params": ("@authority";req "content-digest");created=1735689600;expires=4889289600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";tag="http-message-signatures-directory"`
	if string(base) != wantBase {
		t.Errorf("base:\n%s\nwant:\n%s", base, wantBase)
	}
	want := "binding=:l6P8R67tm3kujAxbHWio7ll01qrEZ0dKD/WWlGhNYEmTnFZM8Wt0VQ9zqGfvo7T/UMkBxsigzChM1Gpz7gOVBg==:"
	if got := SignatureMember("binding", ed25519.Sign(testKey(t), base)); got != want {
		t.Errorf("Signature: %s\nwant %s", got, want)
	}
}

func TestDerivedComponents(t *testing.T) {
	t.Parallel()
	u, _ := url.Parse("http://WWW.Example.COM:80/a%20b/c?x=1&y=%2F")
	r := &http.Request{Method: "GET", URL: u, Header: http.Header{}}
	m := FromRequest(r)
	tests := []struct{ name, want string }{
		{"@method", "GET"},
		{"@authority", "www.example.com"},
		{"@scheme", "http"},
		{"@path", "/a%20b/c"},
		{"@query", "?x=1&y=%2F"},
		{"@request-target", "/a%20b/c?x=1&y=%2F"},
		{"@target-uri", "http://www.example.com/a%20b/c?x=1&y=%2F"},
	}
	for _, tt := range tests {
		got, err := value(m, Component{Name: tt.name})
		if err != nil || got != tt.want {
			t.Errorf("%s = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	empty := &Message{Method: "GET", Scheme: "https", Authority: "a.test"}
	for name, want := range map[string]string{"@path": "/", "@query": "?", "@target-uri": "https://a.test/"} {
		if got, _ := value(empty, Component{Name: name}); got != want {
			t.Errorf("empty target: %s = %q, want %q", name, got, want)
		}
	}
}

func TestAuthority(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ scheme, host, want string }{
		{"https", "A.Test:443", "a.test"},
		{"https", "a.test:80", "a.test:80"},
		{"http", "a.test:80", "a.test"},
		{"http", "a.test:8080", "a.test:8080"},
		{"HTTPS", "[::1]:443", "[::1]"},
		{"http", "[::1]:8443", "[::1]:8443"},
	} {
		if got := Authority(tt.scheme, tt.host); got != tt.want {
			t.Errorf("Authority(%s, %s) = %s, want %s", tt.scheme, tt.host, got, tt.want)
		}
	}
}

func TestFieldValues(t *testing.T) {
	t.Parallel()
	h := http.Header{
		"X-Multi":         {" a ", "\tb"},
		"X-Number":        {"1"},
		"Signature-Agent": {`a="https://a.test"`, `b="https://b.test";p=1`},
	}
	m := &Message{Header: h}
	tests := []struct {
		c    Component
		want string
		err  error
	}{
		{Component{Name: "x-multi"}, "a, b", nil},
		{Component{Name: "signature-agent", Key: "a"}, `"https://a.test"`, nil},
		{Component{Name: "signature-agent", Key: "b"}, `"https://b.test";p=1`, nil},
		{Component{Name: "signature-agent", Key: "c"}, "", ErrMissing},
		{Component{Name: "x-absent"}, "", ErrMissing},
		{Component{Name: "x-multi", Key: "a"}, "?1", nil}, // "a, b": a Dictionary of two Booleans
		{Component{Name: "x-number", Key: "a"}, "", ErrMalformed},
		{Component{Name: "X-Multi"}, "", ErrMalformed},
		{Component{Name: "@method", Key: "a"}, "", ErrUnsupported},
		{Component{Name: "@query-param"}, "", ErrUnsupported},
		{Component{Name: "@status"}, "", ErrMissing},
		{Component{Name: "x-multi", Req: true}, "", ErrMissing},
	}
	for _, tt := range tests {
		got, err := value(m, tt.c)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("%s = %q, %v; want %q, %v", tt.c, got, err, tt.want, tt.err)
		}
	}
}

func TestBaseRefuses(t *testing.T) {
	t.Parallel()
	m := &Message{Method: "GET", Authority: "a.test", Header: http.Header{"X-Bad": {"a\nb"}}}
	tests := []struct {
		name string
		cs   []Component
		ps   Params
		err  error
	}{
		{"duplicate", []Component{{Name: "@method"}, {Name: "@method"}}, nil, ErrMalformed},
		{"line break", []Component{{Name: "x-bad"}}, nil, ErrMalformed},
		{"float parameter", []Component{{Name: "@method"}}, Params{{"created", 1.5}}, ErrMalformed},
		{"non-ASCII string", []Component{{Name: "@method"}}, Params{{"keyid", "é"}}, ErrMalformed},
		{"bad key", []Component{{Name: "@method"}}, Params{{"Created", int64(1)}}, ErrMalformed},
	}
	for _, tt := range tests {
		if _, _, err := Base(m, tt.cs, tt.ps); !errors.Is(err, tt.err) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.err)
		}
	}
}

// TestParseRoundTrip signs with Base, parses the fields back with Parse
// and rebuilds the same base.
func TestParseRoundTrip(t *testing.T) {
	t.Parallel()
	key := testKey(t)
	m := testRequest()
	m.Header.Set("Signature-Agent", `sig1="https://bot.test/.well-known/http-message-signatures-directory"`)
	cs := []Component{{Name: "@method"}, {Name: "@authority"}, {Name: "@path"}, {Name: "signature-agent", Key: "sig1"}}
	ps := Params{{"created", int64(100)}, {"expires", int64(400)}, {"nonce", "abc+/="}, {"tag", "web-bot-auth"}}
	base, params, err := Base(m, cs, ps)
	if err != nil {
		t.Fatal(err)
	}
	h := m.Header.Clone()
	h.Add("Signature-Input", InputMember("sig1", params))
	h.Add("Signature", SignatureMember("sig1", ed25519.Sign(key, base)))
	h.Add("Signature-Input", `other=("@method");created=1`)
	h.Add("Signature", "other=:AAAA:")
	sigs, err := Parse(h)
	if err != nil {
		t.Fatal(err)
	}
	if len(sigs) != 2 || sigs[0].Label != "sig1" || sigs[1].Label != "other" {
		t.Fatalf("parsed %+v", sigs)
	}
	m.Header = h
	again, err := sigs[0].Base(m)
	if err != nil {
		t.Fatal(err)
	}
	if string(again) != string(base) {
		t.Errorf("rebuilt base:\n%s\nsigned base:\n%s", again, base)
	}
	if !ed25519.Verify(key.Public().(ed25519.PublicKey), again, sigs[0].Value) {
		t.Error("the signature does not verify over the rebuilt base")
	}
	if n, _ := sigs[0].Params.Int("expires"); n != 400 {
		t.Errorf("expires %d", n)
	}
	if s, _ := sigs[0].Params.String("tag"); s != "web-bot-auth" {
		t.Errorf("tag %q", s)
	}
}

func TestParseRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, input, sig string
		err              error
	}{
		{"not a dictionary", `(`, `a=:AA==:`, ErrMalformed},
		{"item, not inner list", `a="x"`, `a=:AA==:`, ErrMalformed},
		{"token component", `a=(x)`, `a=:AA==:`, ErrMalformed},
		{"no signature", `a=("@method")`, `b=:AA==:`, ErrMissing},
		{"signature not bytes", `a=("@method")`, `a="x"`, ErrMalformed},
		{"signature inner list", `a=("@method")`, `a=(1)`, ErrMalformed},
		{"bad signature field", `a=("@method")`, `a=:!:`, ErrMalformed},
		{"sf flag", `a=("x";sf)`, `a=:AA==:`, ErrUnsupported},
		{"empty key", `a=("x";key="")`, `a=:AA==:`, ErrMalformed},
		{"decimal parameter", `a=("@method");created=1.5`, `a=:AA==:`, ErrMalformed},
	}
	for _, tt := range tests {
		h := http.Header{"Signature-Input": {tt.input}, "Signature": {tt.sig}}
		if _, err := Parse(h); !errors.Is(err, tt.err) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.err)
		}
	}
	if sigs, err := Parse(http.Header{}); sigs != nil || err != nil {
		t.Errorf("no fields: %v, %v", sigs, err)
	}
}

// FuzzParse feeds arbitrary Signature-Input and Signature values to Parse
// and rebuilds the base of every signature it accepts: nothing panics, and
// a parsed signature serializes back to parameters Parse reads the same.
func FuzzParse(f *testing.F) {
	f.Add(`sig1=("@method" "@authority" "@path" "signature-agent";key="sig1");created=1;expires=2;keyid="k";alg="ed25519";nonce="n";tag="web-bot-auth"`,
		`sig1=:`+base64.StdEncoding.EncodeToString(make([]byte, 64))+`:`, `sig1="https://a.test/"`)
	f.Add(`a=("@authority";req "content-digest")`, `a=:AA==:`, ``)
	f.Add(`a=("x";key="k"), b=()`, `a=:AA==:, b=:AA==:`, `k=1`)
	f.Fuzz(func(t *testing.T, input, sig, agent string) {
		h := http.Header{"Signature-Input": {input}, "Signature": {sig}, "Signature-Agent": {agent}, "X": {agent}}
		sigs, err := Parse(h)
		if err != nil {
			return
		}
		m := &Message{Method: "GET", Scheme: "https", Authority: "a.test", Header: h}
		for _, s := range sigs {
			_, params, err := Base(m, s.Components, s.Params)
			if err != nil {
				continue
			}
			h2 := http.Header{"Signature-Input": {InputMember(s.Label, params)}, "Signature": {SignatureMember(s.Label, s.Value)}}
			again, err := Parse(h2)
			if err != nil || len(again) != 1 {
				t.Fatalf("re-parse of %q: %v", h2, err)
			}
			_, params2, err := Base(m, again[0].Components, again[0].Params)
			if err != nil || params2 != params || !strings.EqualFold(again[0].Label, s.Label) {
				t.Fatalf("round trip: %q became %q (%v)", params, params2, err)
			}
		}
	})
}
