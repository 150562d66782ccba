package webbotauth

// This file serves an operator's key directory: the JWK Set a site
// fetches from the Signature-Agent URL to verify signatures
// (draft-ietf-webbotauth-httpsig-protocol-01 §5.5), with the possession
// proof its Appendix B recommends.

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/robotsext/robotsext/internal/httpsig"
)

const (
	// DirectoryPath is the well-known path of a key directory (the
	// draft's "http-message-signatures-directory" well-known URI).
	DirectoryPath = "/.well-known/http-message-signatures-directory"
	// DirectoryMediaType is the media type a directory is served with.
	DirectoryMediaType = "application/http-message-signatures-directory+json"
	// DirectoryTag is the tag parameter of a directory response's
	// signatures.
	DirectoryTag = "http-message-signatures-directory"
)

// Defaults of a Directory.
const (
	// DefaultMaxAge is how long sites may cache a directory: a key
	// removed from it keeps verifying for at most that long.
	DefaultMaxAge = time.Hour
	// DefaultProofValidity is how long a directory response's signatures
	// are valid.
	DefaultProofValidity = 24 * time.Hour
)

// Key is one key of a directory.
type Key struct {
	// Public is the Ed25519 public key. It may be left nil when Signer is
	// set: it is then Signer's.
	Public ed25519.PublicKey
	// Signer, when set, is the private key, and the directory signs its
	// responses with it: the proof of possession that binds the key set
	// to the directory's authority (the draft's Appendix B, RECOMMENDED).
	// Leave it nil to serve a key whose private half lives elsewhere.
	Signer crypto.Signer
	// NotBefore and NotAfter bound the key's use ("nbf" and "exp"); zero
	// values are left out. A key is published from the start, so that
	// sites learn it before it signs, and dropped from the directory
	// once NotAfter has passed.
	NotBefore, NotAfter time.Time
}

// Directory is an http.Handler serving an operator's key directory: the
// JSON Web Key Set of its Ed25519 keys, as
// application/http-message-signatures-directory+json, with
// Cache-Control, an ETag and, for each key with a Signer, a signature of
// the response. Mount it at DirectoryPath of the host the Signature-Agent
// URL names, over https:
//
//	mux.Handle(webbotauth.DirectoryPath, dir)
//
// Rotate keys by listing the new one with its NotBefore before it signs
// anything, and the old one with its NotAfter: the directory serves both
// while the old one is valid, then only the new one. It is safe for
// concurrent use.
type Directory struct {
	keys []directoryKey
	// MaxAge is the Cache-Control max-age of responses; zero means
	// DefaultMaxAge.
	MaxAge time.Duration
	// ProofValidity is how long a response's signatures are valid; zero
	// means DefaultProofValidity.
	ProofValidity time.Duration
	// Now is the directory's clock; nil means time.Now.
	Now func() time.Time
}

// directoryKey is a Key with its thumbprint; its private key is held
// only as its Sign method (see signFunc).
type directoryKey struct {
	pub                 ed25519.PublicKey
	sign                signFunc // nil: responses carry no signature for this key
	notBefore, notAfter time.Time
	kid                 string
}

// NewDirectory returns a Directory of keys. It fails with an error
// wrapping ErrKey when there is no key, a key is not Ed25519, a Signer
// does not hold the Public key, a key is listed twice, or NotAfter is not
// after NotBefore.
func NewDirectory(keys ...Key) (*Directory, error) {
	if len(keys) == 0 {
		return nil, fmt.Errorf("%w: a directory needs a key", ErrKey)
	}
	d := &Directory{}
	seen := map[string]bool{}
	for i, k := range keys {
		if k.Signer != nil {
			pub, err := publicKey(k.Signer)
			if err != nil {
				return nil, fmt.Errorf("key %d: %w", i, err)
			}
			if k.Public == nil {
				k.Public = pub
			} else if !pub.Equal(k.Public) {
				return nil, fmt.Errorf("key %d: %w: its Signer holds another key", i, ErrKey)
			}
		}
		kid, err := Thumbprint(k.Public)
		if err != nil {
			return nil, fmt.Errorf("key %d: %w", i, err)
		}
		if seen[kid] {
			return nil, fmt.Errorf("key %d: %w: %s listed twice", i, ErrKey, kid)
		}
		seen[kid] = true
		if !k.NotBefore.IsZero() && !k.NotAfter.IsZero() && !k.NotAfter.After(k.NotBefore) {
			return nil, fmt.Errorf("key %d (%s): %w: NotAfter %v is not after NotBefore %v", i, kid, ErrKey, k.NotAfter, k.NotBefore)
		}
		dk := directoryKey{pub: append(ed25519.PublicKey(nil), k.Public...), notBefore: k.NotBefore, notAfter: k.NotAfter, kid: kid}
		if k.Signer != nil {
			dk.sign = k.Signer.Sign
		}
		d.keys = append(d.keys, dk)
	}
	return d, nil
}

// jwk is a directory entry, its members in the order the draft's
// examples show.
type jwk struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	Kid string `json:"kid"`
	X   string `json:"x"`
	Use string `json:"use"`
	Nbf int64  `json:"nbf,omitempty"`
	Exp int64  `json:"exp,omitempty"`
}

// JWKS returns the directory's body at now: a JSON Web Key Set of the
// keys whose NotAfter has not passed, in the order given. Serve it
// yourself (on a static host, say) when the Directory handler cannot run
// there; responses then carry no signature.
func (d *Directory) JWKS(now time.Time) []byte {
	set := struct {
		Keys []jwk `json:"keys"`
	}{Keys: []jwk{}}
	for _, k := range d.keys {
		if k.expired(now) {
			continue
		}
		j := jwk{Kty: "OKP", Crv: "Ed25519", Kid: k.kid, X: base64.RawURLEncoding.EncodeToString(k.pub), Use: "sig"}
		if !k.notBefore.IsZero() {
			j.Nbf = k.notBefore.Unix()
		}
		if !k.notAfter.IsZero() {
			j.Exp = k.notAfter.Unix()
		}
		set.Keys = append(set.Keys, j)
	}
	b, _ := json.Marshal(set) // strings and integers only: cannot fail
	return b
}

// ServeHTTP answers GET and HEAD with the directory; other methods get
// 405. A request whose If-None-Match names the current ETag gets 304.
func (d *Directory) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	now := time.Now()
	if d.Now != nil {
		now = d.Now()
	}
	body := d.JWKS(now)
	sum := sha256.Sum256(body)
	etag := `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`
	h := w.Header()
	h.Set("Content-Type", DirectoryMediaType)
	h.Set("Cache-Control", "max-age="+strconv.Itoa(int(d.maxAge()/time.Second)))
	h.Set("ETag", etag)
	h.Set("Access-Control-Allow-Origin", "*") // public keys; the draft's Appendix C.11
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatch(inm, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	h.Set("Content-Digest", "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":")
	if err := d.sign(h, r, now); err != nil {
		http.Error(w, "directory signature failed", http.StatusInternalServerError)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(body)
}

func (d *Directory) maxAge() time.Duration {
	if d.MaxAge > 0 {
		return d.MaxAge
	}
	return DefaultMaxAge
}

// sign adds one signature per key with a Signer, served or not yet
// valid, over the request's authority and the response's
// Content-Digest (the draft's Appendix B), labelled "binding",
// "binding2", … in key order.
func (d *Directory) sign(h http.Header, r *http.Request, now time.Time) error {
	validity := d.ProofValidity
	if validity <= 0 {
		validity = DefaultProofValidity
	}
	resp := &httpsig.Message{Status: http.StatusOK, Header: h, Request: httpsig.FromRequest(r)}
	cs := []httpsig.Component{{Name: "@authority", Req: true}, {Name: "content-digest"}}
	n := 0
	for _, k := range d.keys {
		if k.sign == nil || k.expired(now) {
			continue
		}
		n++
		label := "binding"
		if n > 1 {
			label += strconv.Itoa(n)
		}
		ps := httpsig.Params{
			{Name: "created", Value: now.Unix()},
			{Name: "expires", Value: now.Add(validity).Unix()},
			{Name: "keyid", Value: k.kid},
			{Name: "tag", Value: DirectoryTag},
		}
		base, input, err := httpsig.Base(resp, cs, ps)
		if err != nil {
			return err
		}
		sig, err := k.sign(rand.Reader, base, crypto.Hash(0))
		if err != nil {
			return err
		}
		h.Add("Signature-Input", httpsig.InputMember(label, input))
		h.Add("Signature", httpsig.SignatureMember(label, sig))
	}
	return nil
}

// expired reports whether the key's NotAfter has passed at now.
func (k *directoryKey) expired(now time.Time) bool {
	return !k.notAfter.IsZero() && !now.Before(k.notAfter)
}

// etagMatch reports whether an If-None-Match value names etag (weak
// comparison, as RFC 9110 §13.1.2 asks).
func etagMatch(inm, etag string) bool {
	for _, t := range strings.Split(inm, ",") {
		t = strings.TrimSpace(t)
		if t == "*" || strings.TrimPrefix(t, "W/") == etag {
			return true
		}
	}
	return false
}

// String describes the directory by its keys' thumbprints.
func (d Directory) String() string {
	var b bytes.Buffer
	b.WriteString("webbotauth.Directory{")
	for i, k := range d.keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k.kid)
	}
	b.WriteByte('}')
	return b.String()
}

// Format prints String for every verb, so that no verb reaches a key.
func (d Directory) Format(f fmt.State, _ rune) { fmt.Fprint(f, d.String()) }
