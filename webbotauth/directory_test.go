package webbotauth

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/robotsext/robotsext/internal/httpsig"
)

// TestDirectoryVector serves the RFC test key as the draft -01 does in its
// signed directory response (Appendix E.2.3): the same body byte for
// byte, the same Content-Digest, and the same signature.
func TestDirectoryVector(t *testing.T) {
	t.Parallel()
	d, err := NewDirectory(Key{Signer: testKey(t)})
	if err != nil {
		t.Fatal(err)
	}
	created := time.Unix(1735689600, 0)
	d.Now = func() time.Time { return created }
	d.ProofValidity = time.Unix(4889289600, 0).Sub(created)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "https://signature-agent.test"+DirectoryPath, nil)
	req.Header.Set("Accept", DirectoryMediaType)
	d.ServeHTTP(rec, req)
	wantBody := `{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs","use":"sig"}]}`
	h := rec.Result().Header
	for name, want := range map[string]string{
		"Content-Type":    DirectoryMediaType,
		"Content-Digest":  "sha-256=:CADMT2aBdV/rqQr/NIru64ERQkCobVvllA4V0fLFDu0=:",
		"Signature-Input": `binding=("@authority";req "content-digest");created=1735689600;expires=4889289600;keyid="poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U";tag="http-message-signatures-directory"`,
		"Signature":       "binding=:l6P8R67tm3kujAxbHWio7ll01qrEZ0dKD/WWlGhNYEmTnFZM8Wt0VQ9zqGfvo7T/UMkBxsigzChM1Gpz7gOVBg==:",
		"Cache-Control":   "max-age=3600",
	} {
		if got := h.Get(name); got != want {
			t.Errorf("%s: %s\nwant %s", name, got, want)
		}
	}
	if rec.Code != 200 || rec.Body.String() != wantBody {
		t.Errorf("%d %s\nwant %s", rec.Code, rec.Body, wantBody)
	}
}

// TestDirectoryRotation publishes an old key until its NotAfter and a new
// one from before its NotBefore: both while the old one is valid, then
// only the new one; each key with a Signer signs the response.
func TestDirectoryRotation(t *testing.T) {
	t.Parallel()
	oldPub, oldKey, _ := ed25519.GenerateKey(rand.Reader)
	newPub, newKey, _ := ed25519.GenerateKey(rand.Reader)
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	d, err := NewDirectory(
		Key{Signer: oldKey, NotAfter: t0.Add(30 * 24 * time.Hour)},
		Key{Signer: newKey, NotBefore: t0.Add(7 * 24 * time.Hour)},
	)
	if err != nil {
		t.Fatal(err)
	}
	oldID, _ := Thumbprint(oldPub)
	newID, _ := Thumbprint(newPub)
	for _, tt := range []struct {
		at   time.Time
		kids []string
	}{
		{t0, []string{oldID, newID}},
		{t0.Add(29 * 24 * time.Hour), []string{oldID, newID}},
		{t0.Add(30 * 24 * time.Hour), []string{newID}},
	} {
		now := tt.at
		d.Now = func() time.Time { return now }
		srv := httptest.NewTLSServer(d)
		resp, err := srv.Client().Get(srv.URL + DirectoryPath)
		if err != nil {
			t.Fatal(err)
		}
		var set struct {
			Keys []struct {
				Kty, Crv, Kid, X, Use string
				Nbf, Exp              int64
			}
		}
		if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		srv.Close()
		var kids []string
		for _, k := range set.Keys {
			kids = append(kids, k.Kid)
			x, _ := base64.RawURLEncoding.DecodeString(k.X)
			if got, _ := Thumbprint(x); got != k.Kid || k.Kty != "OKP" || k.Crv != "Ed25519" || k.Use != "sig" {
				t.Errorf("%v: entry %+v", now, k)
			}
			if k.Kid == oldID && k.Exp != t0.Add(30*24*time.Hour).Unix() || k.Kid == newID && k.Nbf != t0.Add(7*24*time.Hour).Unix() {
				t.Errorf("%v: validity of %+v", now, k)
			}
		}
		if strings.Join(kids, " ") != strings.Join(tt.kids, " ") {
			t.Errorf("at %v: keys %v, want %v", now, kids, tt.kids)
		}
		// Each served key signs the response over the request's authority
		// and the body's digest.
		sigs, err := httpsig.Parse(resp.Header)
		if err != nil || len(sigs) != len(tt.kids) {
			t.Fatalf("at %v: %d signatures, %v", now, len(sigs), err)
		}
		req := &httpsig.Message{Method: "GET", Scheme: "https", Authority: strings.TrimPrefix(srv.URL, "https://"), Path: DirectoryPath}
		for i, s := range sigs {
			base, err := s.Base(&httpsig.Message{Status: 200, Header: resp.Header, Request: req})
			pub := map[string]ed25519.PublicKey{oldID: oldPub, newID: newPub}[tt.kids[i]]
			if kid, _ := s.Params.String("keyid"); err != nil || kid != tt.kids[i] || !ed25519.Verify(pub, base, s.Value) {
				t.Errorf("at %v: signature %s (%s) does not verify: %v", now, s.Label, kid, err)
			}
		}
	}
}

func TestDirectoryHTTP(t *testing.T) {
	t.Parallel()
	pub, _, _ := ed25519.GenerateKey(rand.Reader)
	d, _ := NewDirectory(Key{Public: pub})
	d.MaxAge = 10 * time.Minute
	srv := httptest.NewServer(d)
	defer srv.Close()
	resp, err := http.Get(srv.URL + DirectoryPath)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	etag := resp.Header.Get("ETag")
	if resp.Header.Get("Cache-Control") != "max-age=600" || etag == "" || resp.Header.Get("Signature") != "" ||
		resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("headers %v", resp.Header)
	}
	sum := sha256.Sum256(d.JWKS(time.Now()))
	if want := "sha-256=:" + base64.StdEncoding.EncodeToString(sum[:]) + ":"; resp.Header.Get("Content-Digest") != want {
		t.Errorf("Content-Digest %s, want %s", resp.Header.Get("Content-Digest"), want)
	}
	for _, tt := range []struct {
		method, inm string
		code        int
	}{
		{"HEAD", "", 200},
		{"GET", etag, 304},
		{"GET", `W/` + etag + `, "x"`, 304},
		{"GET", `"other"`, 200},
		{"POST", "", 405},
	} {
		req, _ := http.NewRequest(tt.method, srv.URL, nil)
		if tt.inm != "" {
			req.Header.Set("If-None-Match", tt.inm)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tt.code {
			t.Errorf("%s If-None-Match %s: %d, want %d", tt.method, tt.inm, resp.StatusCode, tt.code)
		}
	}
}

func TestNewDirectoryRefuses(t *testing.T) {
	t.Parallel()
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	other, _, _ := ed25519.GenerateKey(rand.Reader)
	t0 := time.Now()
	for _, tt := range []struct {
		name string
		keys []Key
	}{
		{"none", nil},
		{"no public key", []Key{{}}},
		{"short public key", []Key{{Public: pub[:16]}}},
		{"signer of another key", []Key{{Public: other, Signer: priv}}},
		{"twice", []Key{{Public: pub}, {Signer: priv}}},
		{"empty validity", []Key{{Public: pub, NotBefore: t0, NotAfter: t0}}},
		{"bad signer", []Key{{Signer: ed25519.PrivateKey{1}}}},
	} {
		if d, err := NewDirectory(tt.keys...); !errors.Is(err, ErrKey) || d != nil {
			t.Errorf("%s: %v, %v", tt.name, d, err)
		}
	}
}
