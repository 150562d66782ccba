package webbotauth_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/robotsext/robotsext/webbotauth"
)

// An operator makes a key once, keeps the private half with the crawler
// and publishes the public half in its directory.
func ExampleNewSigner() {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	pkcs8, _ := x509.MarshalPKCS8PrivateKey(key) // store it as a secret
	_ = pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})

	s, err := webbotauth.NewSigner(key, "https://bot.example/.well-known/http-message-signatures-directory")
	if err != nil {
		log.Fatal(err)
	}
	req, _ := http.NewRequest("GET", "https://shop.example/products", nil)
	if err := s.Sign(req); err != nil {
		log.Fatal(err)
	}
	fmt.Println("Signature-Agent:", req.Header.Get("Signature-Agent"))
	input := req.Header.Get("Signature-Input")
	fmt.Println("covers:", input[:strings.Index(input, ")")+1])
	fmt.Println("keyid is the key's thumbprint:", strings.Contains(input, `keyid="`+s.KeyID()+`"`))
	fmt.Println("tagged:", strings.HasSuffix(input, `;tag="web-bot-auth"`))
	// Output:
	// Signature-Agent: sig1="https://bot.example/.well-known/http-message-signatures-directory"
	// covers: sig1=("@method" "@authority" "@path" "signature-agent";key="sig1")
	// keyid is the key's thumbprint: true
	// tagged: true
}

// A plain http.Client signs every request, each redirect hop for its own
// host, through the Signer's Transport.
func ExampleSigner_Transport() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println(r.URL.Path, "signed:", r.Header.Get("Signature") != "")
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusMovedPermanently)
		}
	}))
	defer site.Close()

	_, key, _ := ed25519.GenerateKey(rand.Reader)
	s, err := webbotauth.NewSigner(key, "https://bot.example/.well-known/http-message-signatures-directory")
	if err != nil {
		log.Fatal(err)
	}
	client := &http.Client{Transport: s.Transport(nil)}
	resp, err := client.Get(site.URL + "/old")
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	// Output:
	// /old signed: true
	// /new signed: true
}

// The operator serves its keys where the Signature-Agent URL points.
// Rotating: the new key is published a week before it signs, the old one
// until its last day.
func ExampleNewDirectory() {
	_, current, _ := ed25519.GenerateKey(rand.Reader)
	_, next, _ := ed25519.GenerateKey(rand.Reader)
	switchover := time.Now().Add(7 * 24 * time.Hour)
	dir, err := webbotauth.NewDirectory(
		webbotauth.Key{Signer: current, NotAfter: switchover.Add(24 * time.Hour)},
		webbotauth.Key{Signer: next, NotBefore: switchover},
	)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(webbotauth.DirectoryPath, dir)
	srv := httptest.NewTLSServer(mux)
	defer srv.Close()

	resp, err := srv.Client().Get(srv.URL + webbotauth.DirectoryPath)
	if err != nil {
		log.Fatal(err)
	}
	resp.Body.Close()
	fmt.Println(resp.Header.Get("Content-Type"))
	fmt.Println(resp.Header.Get("Cache-Control"))
	fmt.Println("signatures:", len(resp.Header.Values("Signature")))
	// Output:
	// application/http-message-signatures-directory+json
	// max-age=3600
	// signatures: 2
}

// The keyid of a signature is the thumbprint of its public key; here the
// Ed25519 test key of RFC 9421 Appendix B.1.4 (never sign with it in
// production: sites reject it).
func ExampleThumbprint() {
	block, _ := pem.Decode([]byte(`-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=
-----END PUBLIC KEY-----`))
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		log.Fatal(err)
	}
	kid, err := webbotauth.Thumbprint(pub.(ed25519.PublicKey))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(kid)
	// Output:
	// poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U
}

// A directory can also be published as a static file: JWKS is the body
// the handler serves (without the response's signatures). Here the public
// half of the RFC 9421 test key, listed until the end of 2027.
func ExampleDirectory_JWKS() {
	block, _ := pem.Decode([]byte(`-----BEGIN PUBLIC KEY-----
MCowBQYDK2VwAyEAJrQLj5P/89iXES9+vFgrIy29clF9CC/oPPsw3c5D0bs=
-----END PUBLIC KEY-----`))
	pub, err := x509.ParsePKIXPublicKey(block.Bytes)
	if err != nil {
		log.Fatal(err)
	}
	dir, err := webbotauth.NewDirectory(webbotauth.Key{
		Public:   pub.(ed25519.PublicKey),
		NotAfter: time.Date(2028, 1, 1, 0, 0, 0, 0, time.UTC),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(dir.JWKS(time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC))))
	fmt.Println(string(dir.JWKS(time.Date(2028, 6, 1, 0, 0, 0, 0, time.UTC))))
	// Output:
	// {"keys":[{"kty":"OKP","crv":"Ed25519","kid":"poqkLGiymh_W0uP6PZFw-dvez3QJT5SolqXBCW38r0U","x":"JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs","use":"sig","exp":1830297600}]}
	// {"keys":[]}
}
