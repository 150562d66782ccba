package webbotauth

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotsext/robotsext/internal/sigtest"

	"github.com/robotsext/robotsext/internal/httpsig"
)

// testKey is RFC 9421's test-key-ed25519 (Appendix B.1.4).
var testKey = sigtest.RFCKey

const agent = "https://bot.test/.well-known/http-message-signatures-directory"

func TestThumbprint(t *testing.T) {
	t.Parallel()
	// The keyid of the draft's Ed25519 vectors, for the RFC's test key.
	got, err := Thumbprint(testKey(t).Public().(ed25519.PublicKey))
	if want := "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U"; got != want || err != nil {
		t.Errorf("Thumbprint = %s, %v; want %s", got, err, want)
	}
	if _, err := Thumbprint(make([]byte, 31)); !errors.Is(err, ErrKey) {
		t.Errorf("31-byte key: %v", err)
	}
}

// otherSigner is a crypto.Signer whose Public and Sign disagree, or whose
// Sign fails.
type otherSigner struct {
	pub  crypto.PublicKey
	sign ed25519.PrivateKey
	err  error
}

func (o otherSigner) Public() crypto.PublicKey { return o.pub }
func (o otherSigner) Sign(_ io.Reader, msg []byte, _ crypto.SignerOpts) ([]byte, error) {
	if o.err != nil {
		return nil, o.err
	}
	return ed25519.Sign(o.sign, msg), nil
}

func TestNewSignerRefuses(t *testing.T) {
	t.Parallel()
	key := testKey(t)
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	ec, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	var nilKey *ed25519.PrivateKey
	tests := []struct {
		name  string
		key   crypto.Signer
		agent string
		err   error
	}{
		{"nil", nil, agent, ErrKey},
		{"empty ed25519 key", ed25519.PrivateKey{}, agent, ErrKey},
		{"short ed25519 key", key[:32], agent, ErrKey},
		{"nil pointer", nilKey, agent, ErrKey},
		{"ECDSA", ec, agent, ErrKey},
		{"halves of two keys", append(append(ed25519.PrivateKey{}, other[:32]...), key[32:]...), agent, ErrKey},
		{"signer of another key", otherSigner{pub: key.Public(), sign: other}, agent, ErrKey},
		{"signer that fails", otherSigner{pub: key.Public(), err: errors.New("HSM offline")}, agent, ErrKey},
		{"http", key, "http://bot.test/x", ErrSignatureAgent},
		{"relative", key, "/.well-known/http-message-signatures-directory", ErrSignatureAgent},
		{"no host", key, "https:///x", ErrSignatureAgent},
		{"empty", key, "", ErrSignatureAgent},
		{"credentials", key, "https://user:pw@bot.test/x", ErrSignatureAgent},
		{"fragment", key, "https://bot.test/x#k", ErrSignatureAgent},
		{"non-ASCII", key, "https://bücher.test/x", ErrSignatureAgent},
		{"opaque", key, "https:bot.test", ErrSignatureAgent},
	}
	for _, tt := range tests {
		s, err := NewSigner(tt.key, tt.agent)
		if !errors.Is(err, tt.err) || s != nil {
			t.Errorf("%s: %v, %v; want %v", tt.name, s, err, tt.err)
		}
		if err != nil && strings.Contains(err.Error(), "pw") {
			t.Errorf("%s: the error shows the URL's password: %v", tt.name, err)
		}
	}
	// A pointer to a good key is a crypto.Signer too.
	if _, err := NewSigner(&key, agent); err != nil {
		t.Errorf("*ed25519.PrivateKey: %v", err)
	}
}

// signed signs a request for rawURL with s and parses its signature back.
func signed(t *testing.T, s *Signer, method, rawURL string) (*http.Request, httpsig.Signature) {
	t.Helper()
	req := httptest.NewRequest(method, rawURL, nil)
	req.RequestURI = ""
	if err := s.Sign(req); err != nil {
		t.Fatal(err)
	}
	sigs, err := httpsig.Parse(req.Header)
	if err != nil || len(sigs) != 1 {
		t.Fatalf("parse: %v, %v", sigs, err)
	}
	return req, sigs[0]
}

func TestSign(t *testing.T) {
	t.Parallel()
	key := testKey(t)
	s, err := NewSigner(key, agent)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1735689600, 0)
	s.now = func() time.Time { return now }
	req, sig := signed(t, s, "GET", "https://Example.COM:443/a%2Fb?q=1")
	if got := req.Header.Get("Signature-Agent"); got != `sig1="`+agent+`"` {
		t.Errorf("Signature-Agent: %s", got)
	}
	wantInput := `sig1=("@method" "@authority" "@path" "signature-agent";key="sig1");created=1735689600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";alg="ed25519";expires=1735689900;nonce="`
	if got := req.Header.Get("Signature-Input"); !strings.HasPrefix(got, wantInput) || !strings.HasSuffix(got, `";tag="web-bot-auth"`) {
		t.Errorf("Signature-Input: %s\nwant %s…;tag=\"web-bot-auth\"", got, wantInput)
	}
	base, err := sig.Base(httpsig.FromRequest(req))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(base, []byte("\"@method\": GET\n\"@authority\": example.com\n\"@path\": /a%2Fb\n\"signature-agent\";key=\"sig1\": \""+agent+"\"\n")) {
		t.Errorf("base:\n%s", base)
	}
	if !ed25519.Verify(key.Public().(ed25519.PublicKey), base, sig.Value) {
		t.Error("signature does not verify")
	}
	nonce, _ := sig.Params.String("nonce")
	if b, err := base64.StdEncoding.DecodeString(nonce); err != nil || len(b) != 32 {
		t.Errorf("nonce %q: %d bytes, %v", nonce, len(b), err)
	}
	if s.KeyID() != "poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U" || s.SignatureAgent() != agent {
		t.Errorf("KeyID %s, SignatureAgent %s", s.KeyID(), s.SignatureAgent())
	}
}

// TestSignReplaces signs a request twice, as a retry or a redirect hop
// that copied the first request's fields does: one signature, fresh.
func TestSignReplaces(t *testing.T) {
	t.Parallel()
	s, _ := NewSigner(testKey(t), agent)
	req := httptest.NewRequest("GET", "https://a.test/", nil)
	req.Header.Add("Signature", "old=:AAAA:")
	req.Header.Add("Signature-Input", `old=("@method");created=1`)
	req.Header.Add("Signature-Agent", `old="https://old.test/"`)
	if err := s.Sign(req); err != nil {
		t.Fatal(err)
	}
	first := req.Header.Get("Signature-Input")
	req.Host = "b.test"
	if err := s.Sign(req); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"Signature", "Signature-Input", "Signature-Agent"} {
		if n := len(req.Header.Values(f)); n != 1 {
			t.Errorf("%s has %d lines", f, n)
		}
	}
	if req.Header.Get("Signature-Input") == first {
		t.Error("the second signature reuses the first's parameters")
	}
	sigs, _ := httpsig.Parse(req.Header)
	base, _ := sigs[0].Base(httpsig.FromRequest(req))
	if !bytes.Contains(base, []byte(`"@authority": b.test`)) {
		t.Errorf("the signature covers another authority:\n%s", base)
	}
}

// TestNoncesUnique signs many requests at once: no nonce repeats.
func TestNoncesUnique(t *testing.T) {
	t.Parallel()
	s, _ := NewSigner(testKey(t), agent)
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 250; i++ {
				req := httptest.NewRequest("GET", "https://a.test/", nil)
				if err := s.Sign(req); err != nil {
					t.Error(err)
					return
				}
				sigs, _ := httpsig.Parse(req.Header)
				n, _ := sigs[0].Params.String("nonce")
				mu.Lock()
				if seen[n] {
					t.Errorf("nonce %s repeated", n)
				}
				seen[n] = true
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

func TestSignFails(t *testing.T) {
	t.Parallel()
	key := testKey(t)
	s, _ := NewSigner(key, agent)
	if err := s.Sign(nil); !errors.Is(err, ErrSign) {
		t.Errorf("nil request: %v", err)
	}
	// A key that signed the probe and then fails (an HSM gone offline).
	flaky := &sigtest.FailingSigner{Key: key}
	s, err := NewSigner(flaky, agent)
	if err != nil {
		t.Fatal(err)
	}
	flaky.Fail()
	req := httptest.NewRequest("GET", "https://a.test/", nil)
	if err := s.Sign(req); !errors.Is(err, ErrSign) {
		t.Errorf("failing key: %v", err)
	}
	for _, f := range []string{"Signature", "Signature-Input", "Signature-Agent"} {
		if req.Header.Get(f) != "" {
			t.Errorf("an unsigned request keeps %s", f)
		}
	}
	// Through a Transport, the request does not go out.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Error("an unsigned request reached the server")
	}))
	defer srv.Close()
	cl := &http.Client{Transport: s.Transport(nil)}
	if _, err := cl.Get(srv.URL); !errors.Is(err, ErrSign) {
		t.Errorf("transport: %v", err)
	}
}

// TestTransportRedirect follows a redirect to another host through the
// Transport: each hop carries a signature of its own authority, and the
// caller's request is left alone.
func TestTransportRedirect(t *testing.T) {
	t.Parallel()
	key := testKey(t)
	s, _ := NewSigner(key, agent)
	var mu sync.Mutex
	var seen []string
	check := func(w http.ResponseWriter, r *http.Request) bool {
		sigs, err := httpsig.Parse(r.Header)
		if err != nil || len(sigs) != 1 {
			t.Errorf("%s: %v %v", r.Host, sigs, err)
			return false
		}
		base, err := sigs[0].Base(httpsig.FromRequest(r))
		ok := err == nil && ed25519.Verify(key.Public().(ed25519.PublicKey), base, sigs[0].Value)
		mu.Lock()
		seen = append(seen, fmt.Sprintf("%s%s %v", r.Host, r.URL.Path, ok))
		mu.Unlock()
		return ok
	}
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { check(w, r) }))
	defer b.Close()
	a := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		check(w, r)
		http.Redirect(w, r, b.URL+"/there", http.StatusFound)
	}))
	defer a.Close()
	req, _ := http.NewRequest("GET", a.URL+"/here", nil)
	resp, err := (&http.Client{Transport: s.Transport(nil)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := []string{strings.TrimPrefix(a.URL, "http://") + "/here true", strings.TrimPrefix(b.URL, "http://") + "/there true"}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("hops %v, want %v", seen, want)
	}
	if len(req.Header) != 0 {
		t.Errorf("the caller's request was changed: %v", req.Header)
	}
}

// TestNoKeyInOutput formats Signers, Directories and every error this
// package returns with every verb: no form of the private key appears.
func TestNoKeyInOutput(t *testing.T) {
	t.Parallel()
	key := testKey(t)
	s, _ := NewSigner(key, agent)
	d, _ := NewDirectory(Key{Signer: key})
	type holder struct {
		s  Signer
		d  Directory
		ps *Signer
		fn signFunc
	}
	values := []any{s, *s, d, *d, holder{*s, *d, s, s.sign}, &holder{*s, *d, s, s.sign}}
	_, err1 := NewSigner(otherSigner{pub: key.Public(), sign: key, err: errors.New("x")}, agent)
	_, err2 := NewSigner(key[:32], agent)
	_, err3 := NewDirectory(Key{Public: make([]byte, 32), Signer: key})
	values = append(values, err1, err2, err3)
	forms := []string{
		string(key), string(key.Seed()),
		hex.EncodeToString(key.Seed()), base64.StdEncoding.EncodeToString(key.Seed()),
		base64.RawURLEncoding.EncodeToString(key.Seed()), fmt.Sprint([]byte(key.Seed())),
		fmt.Sprintf("%x", key.Seed()), fmt.Sprintf("%X", key.Seed()), fmt.Sprintf("%#v", key.Seed()[:8]),
		fmt.Sprint([]byte(key.Seed())[:8]),
	}
	for _, v := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%X", "%q", "%d"} {
			out := fmt.Sprintf(verb, v)
			for _, f := range forms {
				if strings.Contains(out, strings.Trim(f, "[]")) {
					t.Fatalf("%s of %T shows the key: %s", verb, v, out)
				}
			}
		}
	}
}
