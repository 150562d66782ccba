// Package webbotauth makes a crawler's requests verifiable by the sites it
// visits, with Web Bot Auth (draft-ietf-webbotauth-httpsig-protocol-01,
// 29 October 2026): every request carries an HTTP Message Signature
// (RFC 9421) made with the operator's Ed25519 key, and a Signature-Agent
// field naming the URL of the operator's key directory, where a site
// fetches the public key that checks it.
//
// A Signer signs requests; robotsext.WithWebBotAuth installs one on a
// Colly collector. A Directory serves the operator's keys at
// DirectoryPath. Thumbprint names a key as the keyid parameter and the
// directory's kid do.
//
// What a signature says, as the draft -01 requires: the label "sig1"; the
// covered components "@method", "@authority", "@path" and
// "signature-agent";key="sig1" (the draft requires @authority and the
// Signature-Agent member, and recommends @method and @path to narrow a
// signature to one request); the parameters created, keyid (the RFC 7638
// JWK SHA-256 thumbprint of the public key), alg="ed25519", expires
// (created plus Validity), a nonce of 256 random bits, and
// tag="web-bot-auth". Signature-Agent is sent in the Dictionary form the
// draft requires of signers: sig1="https://…". The body is not covered
// (the draft covers it only through Content-Digest, which crawlers'
// GET requests do not need).
package webbotauth

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/dunglas/httpsfv"
	"github.com/robotsext/robotsext/internal/httpsig"
)

const (
	// Tag is the tag parameter of every Web Bot Auth signature.
	Tag = "web-bot-auth"
	// Label is the label of the signature in Signature-Input and
	// Signature, and the key of its member in Signature-Agent.
	Label = "sig1"
	// Validity is how long a signature is valid: its expires parameter is
	// its created parameter plus Validity. A request is signed as it goes
	// on the wire, so five minutes leave room for a slow connection and
	// for clock skew between the crawler and the site, while a signature
	// copied from one request cannot be replayed for long. The draft
	// recommends at most 24 hours.
	Validity = 5 * time.Minute
)

// Errors, for errors.Is. No error of this package shows a private key.
var (
	// ErrKey: the signing key cannot be used: nil, not an Ed25519 key, or
	// a crypto.Signer whose signatures its own public key does not verify.
	ErrKey = errors.New("webbotauth: unusable signing key")
	// ErrSignatureAgent: the Signature-Agent URL is not an absolute https
	// URL (without credentials or fragment) that a header can carry.
	ErrSignatureAgent = errors.New("webbotauth: Signature-Agent must be an absolute https URL")
	// ErrSign: a request could not be signed, and must not be sent.
	ErrSign = errors.New("webbotauth: request not signed")
)

// covered are the components every signature covers, in order.
var covered = []httpsig.Component{
	{Name: "@method"},
	{Name: "@authority"},
	{Name: "@path"},
	{Name: "signature-agent", Key: Label},
}

// Signer signs requests for one key and one key directory. It is
// immutable and safe for concurrent use. Printing it (with any verb)
// shows its keyid and Signature-Agent, never the key.
type Signer struct {
	sign  signFunc // the key's Sign method
	keyID string   // Thumbprint of the public key
	agent string   // the Signature-Agent URL
	// member is the Signature-Agent field value: sig1="<agent>".
	member string
	now    func() time.Time
}

// signFunc is a private key's Sign method. Keys are held only as such
// method values: fmt prints a func as an address, so even a struct that
// holds a Signer or a Directory, printed field by field with any verb,
// shows no key bytes.
type signFunc func(rand io.Reader, digest []byte, opts crypto.SignerOpts) ([]byte, error)

// NewSigner returns a Signer for key, an Ed25519 private key
// (ed25519.PrivateKey) or a crypto.Signer holding one (a hardware or
// cloud key), whose key directory is at signatureAgent: an absolute https
// URL, usually https://your.domain/.well-known/http-message-signatures-directory
// (see Directory). It signs a probe message and checks it against the
// key's public key, so that a key which cannot sign fails here, with an
// error wrapping ErrKey, and not on the first request. A bad URL gives an
// error wrapping ErrSignatureAgent.
func NewSigner(key crypto.Signer, signatureAgent string) (*Signer, error) {
	pub, err := publicKey(key)
	if err != nil {
		return nil, err
	}
	probe := []byte("webbotauth key probe")
	sig, err := key.Sign(rand.Reader, probe, crypto.Hash(0))
	if err != nil {
		return nil, fmt.Errorf("%w: it could not sign: %v", ErrKey, err)
	}
	if !ed25519.Verify(pub, probe, sig) {
		return nil, fmt.Errorf("%w: its signatures do not verify with its public key", ErrKey)
	}
	agent, member, err := agentMember(signatureAgent)
	if err != nil {
		return nil, err
	}
	kid, _ := Thumbprint(pub)
	return &Signer{sign: key.Sign, keyID: kid, agent: agent, member: member, now: time.Now}, nil
}

// publicKey returns key's Ed25519 public key, or an error wrapping
// ErrKey. A malformed ed25519.PrivateKey panics in Public; that is an
// unusable key too.
func publicKey(key crypto.Signer) (pub ed25519.PublicKey, err error) {
	if key == nil {
		return nil, fmt.Errorf("%w: no key given", ErrKey)
	}
	if k, ok := key.(ed25519.PrivateKey); ok && len(k) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("%w: an ed25519.PrivateKey of %d bytes, want %d", ErrKey, len(k), ed25519.PrivateKeySize)
	}
	defer func() {
		if recover() != nil {
			pub, err = nil, fmt.Errorf("%w: its Public method failed", ErrKey)
		}
	}()
	p, ok := key.Public().(ed25519.PublicKey)
	if !ok || len(p) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("%w: a %T, not an Ed25519 key", ErrKey, key.Public())
	}
	return p, nil
}

// agentMember checks a Signature-Agent URL and returns it with its
// Dictionary field value.
func agentMember(raw string) (agent, member string, err error) {
	agent = strings.TrimSpace(raw)
	u, err := url.Parse(agent)
	switch {
	case err != nil:
		return "", "", fmt.Errorf("%w: %q: %v", ErrSignatureAgent, agent, err)
	case !strings.EqualFold(u.Scheme, "https") || u.Host == "" || u.Opaque != "":
		return "", "", fmt.Errorf("%w: %q", ErrSignatureAgent, agent)
	case u.User != nil:
		return "", "", fmt.Errorf("%w: %q carries credentials, which every site would read", ErrSignatureAgent, u.Redacted())
	case u.Fragment != "" || strings.Contains(agent, "#"):
		return "", "", fmt.Errorf("%w: %q has a fragment", ErrSignatureAgent, agent)
	}
	d := httpsfv.NewDictionary()
	d.Add(Label, httpsfv.NewItem(agent))
	member, err = httpsfv.Marshal(d)
	if err != nil { // non-ASCII or control characters: write the host in punycode, escape the path
		return "", "", fmt.Errorf("%w: %q cannot be sent in a header: %v", ErrSignatureAgent, agent, err)
	}
	return agent, member, nil
}

// Thumbprint returns the RFC 7638 JWK SHA-256 thumbprint of an Ed25519
// public key (RFC 8037 Appendix A.3), base64url without padding: the
// keyid of its signatures and the kid of its directory entry. It fails
// with ErrKey for a key that is not 32 bytes.
func Thumbprint(pub ed25519.PublicKey) (string, error) {
	if len(pub) != ed25519.PublicKeySize {
		return "", fmt.Errorf("%w: a public key of %d bytes, want %d", ErrKey, len(pub), ed25519.PublicKeySize)
	}
	// The required members of an OKP key, in lexicographic order, no
	// white space (RFC 7638 §3.2).
	var b bytes.Buffer
	b.WriteString(`{"crv":"Ed25519","kty":"OKP","x":"`)
	b.WriteString(base64.RawURLEncoding.EncodeToString(pub))
	b.WriteString(`"}`)
	sum := sha256.Sum256(b.Bytes())
	return base64.RawURLEncoding.EncodeToString(sum[:]), nil
}

// KeyID returns the keyid parameter of the Signer's signatures.
func (s *Signer) KeyID() string { return s.keyID }

// SignatureAgent returns the key directory URL the Signer names.
func (s *Signer) SignatureAgent() string { return s.agent }

// String describes the Signer without its key.
func (s Signer) String() string {
	return fmt.Sprintf("webbotauth.Signer{keyid=%s signature-agent=%s}", s.keyID, s.agent)
}

// Format prints String for every verb, so that no verb (%v, %+v, %#v,
// %x, …) reaches the key.
func (s Signer) Format(f fmt.State, _ rune) { fmt.Fprint(f, s.String()) }

// Sign signs req in place, as it is about to be sent: it sets its
// Signature-Agent, Signature-Input and Signature fields (replacing any,
// such as those of an earlier attempt or of the request a redirect hop
// copied them from) with a fresh created, expires and nonce. The
// signature covers req's method, authority (req.Host, else the URL's
// host, in lower case without the default port) and path, so sign each
// request and each redirect hop for itself. Signing a request that is
// then changed in those parts, or delayed past Validity, makes its
// signature fail; an error wraps ErrSign, and the request must not be
// sent.
func (s *Signer) Sign(req *http.Request) error {
	if req == nil || req.URL == nil {
		return fmt.Errorf("%w: no request", ErrSign)
	}
	if req.Header == nil {
		req.Header = http.Header{}
	}
	h := req.Header
	h.Del("Signature")
	h.Del("Signature-Input")
	h.Set("Signature-Agent", s.member)
	var nonce [32]byte
	rand.Read(nonce[:]) // never fails (crypto/rand, Go 1.24+)
	created := s.now().Unix()
	params := httpsig.Params{
		{Name: "created", Value: created},
		{Name: "keyid", Value: s.keyID},
		{Name: "alg", Value: "ed25519"},
		{Name: "expires", Value: created + int64(Validity/time.Second)},
		{Name: "nonce", Value: base64.StdEncoding.EncodeToString(nonce[:])},
		{Name: "tag", Value: Tag},
	}
	base, input, err := httpsig.Base(httpsig.FromRequest(req), covered, params)
	if err != nil {
		h.Del("Signature-Agent")
		return fmt.Errorf("%w: %v", ErrSign, err)
	}
	sig, err := s.sign(rand.Reader, base, crypto.Hash(0))
	if err != nil {
		h.Del("Signature-Agent")
		return fmt.Errorf("%w: the key could not sign: %v", ErrSign, err)
	}
	h.Set("Signature-Input", httpsig.InputMember(Label, input))
	h.Set("Signature", httpsig.SignatureMember(Label, sig))
	return nil
}

// Transport returns an http.RoundTripper that signs every request it
// sends through next (http.DefaultTransport when nil): each redirect hop
// and each retry an http.Client makes goes through it, and is signed for
// itself. It signs a copy of the request, as a RoundTripper must leave
// the request alone. A request it cannot sign is not sent: RoundTrip
// returns an error wrapping ErrSign.
func (s *Signer) Transport(next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	return &transport{s: s, next: next}
}

type transport struct {
	s    *Signer
	next http.RoundTripper
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	if err := t.s.Sign(r); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	return t.next.RoundTrip(r)
}

// CloseIdleConnections closes the idle connections of the transport it
// wraps, when it has any.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}
