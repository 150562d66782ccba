// Package sigtest holds the signing keys that the tests of internal/httpsig,
// webbotauth and the root package share: RFC 9421's Ed25519 test key, and a
// signer that fails when told to, as a hardware key that goes away. It is
// for tests only.
package sigtest

import (
	"crypto"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"sync"
	"testing"
)

// rfcKey is test-key-ed25519 of RFC 9421 Appendix B.1.4, the key of its
// B.2.6 example and of the Web Bot Auth draft's Ed25519 test vectors.
const rfcKey = `-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIJ+DYvh6SEqVTm50DFtMDoQikTmiCqirVv9mWG9qfSnF
-----END PRIVATE KEY-----`

// RFCKey returns RFC 9421's test-key-ed25519 (Appendix B.1.4).
func RFCKey(t testing.TB) ed25519.PrivateKey {
	t.Helper()
	b, _ := pem.Decode([]byte(rfcKey))
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return k.(ed25519.PrivateKey)
}

// ErrGone is the error of a FailingSigner told to fail.
var ErrGone = errors.New("sigtest: the key is gone")

// FailingSigner signs with Key until Fail is called, then fails every
// signature with ErrGone. It is safe for concurrent use.
type FailingSigner struct {
	Key ed25519.PrivateKey

	mu   sync.Mutex
	fail bool
}

// Fail makes every later signature fail.
func (f *FailingSigner) Fail() {
	f.mu.Lock()
	f.fail = true
	f.mu.Unlock()
}

// Public returns the key's public half.
func (f *FailingSigner) Public() crypto.PublicKey { return f.Key.Public() }

// Sign signs msg with the key, or fails once Fail was called.
func (f *FailingSigner) Sign(r io.Reader, msg []byte, o crypto.SignerOpts) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fail {
		return nil, ErrGone
	}
	return f.Key.Sign(r, msg, o)
}
