// Command webbotauth shows an operator's Web Bot Auth setup end to end,
// offline on loopback: it makes Ed25519 keys and stores them as PEM, serves
// the key directory (webbotauth.Directory, over TLS), crawls two demo
// sites with robotsext.WithWebBotAuth, and lets the sites verify every
// request as a site's bot management does: fetch the directory the
// Signature-Agent URL names, check its possession proof, pick the key by
// keyid, rebuild the signature base and check the Ed25519 signature, the
// validity window and the nonce. Then it rotates keys: the new key is
// published a week before it signs, both are served for three weeks,
// and the old one is dropped, after which its signatures no longer
// verify.
//
// The demo site's robots.txt asks for a short Crawl-delay (50 ms) so
// that the example runs fast; a site that states none is paced one
// request per second (robotsext.DefaultDelay).
//
//	go run ./_examples/webbotauth
package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/dunglas/httpsfv"
	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext"
	"github.com/robotsext/robotsext/internal/httpsig"
	"github.com/robotsext/robotsext/webbotauth"
)

const userAgent = "Mozilla/5.0 (compatible; DemoBot/1.0; +https://demobot.example/about)"

func main() {
	log.SetFlags(0)

	// 1. Key generation: the operator makes a key once and keeps it as a
	// PKCS#8 PEM secret; the crawler loads it from there.
	oldPEM, newPEM := newKeyPEM(), newKeyPEM()
	oldKey, newKey := loadKey(oldPEM), loadKey(newPEM)

	// 2. The key directory, with validity dates for the rotation: the old
	// key until day 30, the new one signs from day 7 and is published
	// from the start. The directory's clock is the demo's.
	var clock demoClock
	dir, err := webbotauth.NewDirectory(
		webbotauth.Key{Signer: oldKey, NotAfter: clock.day(30)},
		webbotauth.Key{Signer: newKey, NotBefore: clock.day(7)},
	)
	if err != nil {
		log.Fatal(err)
	}
	dir.Now = clock.now
	mux := http.NewServeMux()
	mux.Handle(webbotauth.DirectoryPath, dir)
	operator := httptest.NewTLSServer(mux)
	defer operator.Close()
	directoryURL := operator.URL + webbotauth.DirectoryPath
	fmt.Printf("key directory %s\n  old key %s (until day 30)\n  new key %s (from day 7)\n\n",
		strings.Replace(directoryURL, operator.Listener.Addr().String(), "operator", 1), keyID(oldKey), keyID(newKey))

	// 3. Two sites that verify every request, trusting the operator's
	// test certificate as a real site trusts a public one.
	v := &verifier{client: operator.Client(), nonces: map[string]bool{}}
	b := httptest.NewServer(v.site("site-b", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<html>landed</html>")
	}))
	defer b.Close()
	a := httptest.NewServer(v.site("site-a", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<html><a href="/about">about</a> <a href="/moved">moved</a></html>`)
		case "/moved":
			http.Redirect(w, r, b.URL+"/landing", http.StatusFound)
		default:
			fmt.Fprint(w, "<html>about</html>")
		}
	}))
	defer a.Close()

	// 4. Crawl on day 0 with the old key, on day 8 with the new one, and on
	// day 31 with the old one again, as a crawler that missed the rotation:
	// the directory no longer lists it.
	names := map[string]string{keyID(oldKey): "old", keyID(newKey): "new"}
	for _, run := range []struct {
		day  int
		key  ed25519.PrivateKey
		name string
	}{{0, oldKey, "old"}, {8, newKey, "new"}, {31, oldKey, "old"}} {
		clock.set(run.day)
		v.forget() // the directory's max-age has passed since the last crawl
		var listed []string
		for _, kid := range v.listed(directoryURL) {
			listed = append(listed, names[kid])
		}
		fmt.Printf("day %d: the directory lists keys %s; the crawler signs with the %s key\n", run.day, strings.Join(listed, ", "), run.name)
		crawl(a.URL, run.key, directoryURL)
		fmt.Println()
	}
}

// listed returns the keyids the directory at u lists now.
func (v *verifier) listed(u string) []string {
	resp, err := v.client.Get(u)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var set struct{ Keys []struct{ Kid string } }
	if err := json.NewDecoder(resp.Body).Decode(&set); err != nil {
		log.Fatal(err)
	}
	var kids []string
	for _, k := range set.Keys {
		kids = append(kids, k.Kid)
	}
	return kids
}

// crawl visits site a with a fresh collector signing with key.
func crawl(site string, key ed25519.PrivateKey, directoryURL string) {
	c := colly.NewCollector(colly.UserAgent(userAgent))
	robotsext.Apply(c, robotsext.WithWebBotAuth(key, directoryURL), robotsext.WithLogger(slog.New(slog.DiscardHandler)))
	c.OnHTML("a[href]", func(e *colly.HTMLElement) { e.Request.Visit(e.Attr("href")) })
	if err := c.Visit(site + "/"); err != nil {
		log.Fatal(err)
	}
	c.Wait()
}

// newKeyPEM makes an Ed25519 key and returns it as a PKCS#8 PEM block.
func newKeyPEM() []byte {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		log.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		log.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// loadKey reads a PKCS#8 PEM Ed25519 key.
func loadKey(p []byte) ed25519.PrivateKey {
	block, _ := pem.Decode(p)
	if block == nil {
		log.Fatal("no PEM block")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		log.Fatal(err)
	}
	key, ok := k.(ed25519.PrivateKey)
	if !ok {
		log.Fatalf("a %T, not an Ed25519 key", k)
	}
	return key
}

func keyID(k ed25519.PrivateKey) string {
	id, _ := webbotauth.Thumbprint(k.Public().(ed25519.PublicKey))
	return id
}

// demoClock is the demo's calendar: day 0 is the start of the run.
type demoClock struct {
	mu    sync.Mutex
	start time.Time
	days  int
}

func (c *demoClock) day(n int) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.start.IsZero() {
		c.start = time.Now()
	}
	return c.start.Add(time.Duration(n) * 24 * time.Hour)
}

func (c *demoClock) set(n int) {
	c.day(0)
	c.mu.Lock()
	c.days = n
	c.mu.Unlock()
}

// now is the demo's time: the real time, moved on by the current day.
func (c *demoClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(time.Duration(c.days) * 24 * time.Hour)
}

// verifier checks requests as a site does. It is deliberately short: a
// real site leaves this to its bot management, or uses a verifier that
// also bounds directory fetches (size, time, addresses) as the draft's
// SSRF section asks.
type verifier struct {
	client *http.Client
	once   sync.Once // shows the fields of the first request

	mu     sync.Mutex
	keys   map[string]map[string]ed25519.PublicKey // by directory URL, then keyid
	nonces map[string]bool
}

// forget drops the cached directories.
func (v *verifier) forget() {
	v.mu.Lock()
	v.keys = nil
	v.mu.Unlock()
}

// site wraps a demo site's handler: robots.txt, and a line for each
// request saying whether its signature verified.
func (v *verifier) site(name string, pages http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		verdict := "NOT VERIFIED: "
		if kid, err := v.check(r); err != nil {
			verdict += err.Error()
		} else {
			verdict = "verified, keyid " + short(kid)
		}
		fmt.Printf("  %-6s %s %-12s %s\n", name, r.Method, r.URL.Path, verdict)
		v.once.Do(func() {
			for _, f := range []string{"Signature-Agent", "Signature-Input", "Signature"} {
				fmt.Printf("         %s: %s\n", f, r.Header.Get(f))
			}
		})
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nAllow: /\nCrawl-delay: 0.05\n") // a short delay keeps the demo fast
			return
		}
		pages(w, r)
	})
}

func short(kid string) string {
	if len(kid) > 12 {
		return kid[:12] + "…"
	}
	return kid
}

// check verifies r's signature labelled sig1 and returns its keyid.
func (v *verifier) check(r *http.Request) (string, error) {
	sigs, err := httpsig.Parse(r.Header)
	if err != nil || len(sigs) != 1 || sigs[0].Label != webbotauth.Label {
		return "", fmt.Errorf("no single sig1 signature (%v)", err)
	}
	s := sigs[0]
	if tag, _ := s.Params.String("tag"); tag != webbotauth.Tag {
		return "", fmt.Errorf("tag %q", tag)
	}
	// Signatures are made at the real time; only the directory's
	// calendar is the demo's.
	now := time.Now().Unix()
	created, _ := s.Params.Int("created")
	expires, _ := s.Params.Int("expires")
	if created > now+60 || expires < now {
		return "", errors.New("outside its validity window")
	}
	agent, err := signatureAgent(r, s)
	if err != nil {
		return "", err
	}
	kid, _ := s.Params.String("keyid")
	pub, err := v.key(agent, kid)
	if err != nil {
		return "", err
	}
	base, err := s.Base(httpsig.FromRequest(r))
	if err != nil {
		return "", err
	}
	if !ed25519.Verify(pub, base, s.Value) {
		return "", errors.New("bad signature")
	}
	nonce, _ := s.Params.String("nonce")
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.nonces[nonce] {
		return "", errors.New("nonce replayed")
	}
	v.nonces[nonce] = true
	return kid, nil
}

// signatureAgent returns the URL of the Signature-Agent member the
// signature covers: the one keyed by its label.
func signatureAgent(r *http.Request, s httpsig.Signature) (string, error) {
	covered := false
	for _, c := range s.Components {
		covered = covered || c.Name == "signature-agent" && c.Key == s.Label
	}
	if !covered {
		return "", errors.New("the signature does not cover its Signature-Agent member")
	}
	d, err := httpsfv.UnmarshalDictionary(r.Header.Values("Signature-Agent"))
	if err != nil {
		return "", err
	}
	m, _ := d.Get(s.Label)
	if it, ok := m.(httpsfv.Item); ok {
		if agent, ok := it.Value.(string); ok {
			return agent, nil
		}
	}
	return "", errors.New("no Signature-Agent URL for the signature")
}

// key returns the public key kid of the directory at agent, fetching the
// directory once and checking its possession proof.
func (v *verifier) key(agent, kid string) (ed25519.PublicKey, error) {
	v.mu.Lock()
	keys, ok := v.keys[agent]
	v.mu.Unlock()
	if !ok {
		var err error
		if keys, err = v.fetch(agent); err != nil {
			return nil, err
		}
		v.mu.Lock()
		if v.keys == nil {
			v.keys = map[string]map[string]ed25519.PublicKey{}
		}
		v.keys[agent] = keys
		v.mu.Unlock()
	}
	pub, ok := keys[kid]
	if !ok {
		return nil, fmt.Errorf("keyid %s is not in the directory", short(kid))
	}
	return pub, nil
}

// fetch reads a directory: a JWK Set of Ed25519 keys, each with a kid
// equal to its thumbprint, and a possession proof per key over the
// request's authority and the body's Content-Digest.
func (v *verifier) fetch(agent string) (map[string]ed25519.PublicKey, error) {
	u, err := url.Parse(agent)
	if err != nil || u.Scheme != "https" {
		return nil, fmt.Errorf("Signature-Agent %q is not an https URL", agent)
	}
	resp, err := v.client.Get(agent)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	if err != nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != webbotauth.DirectoryMediaType {
		return nil, fmt.Errorf("directory answered %d %s (%v)", resp.StatusCode, resp.Header.Get("Content-Type"), err)
	}
	var set struct {
		Keys []struct{ Kty, Crv, Kid, X string }
	}
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, err
	}
	keys := map[string]ed25519.PublicKey{}
	for _, k := range set.Keys {
		x, err := base64.RawURLEncoding.DecodeString(k.X)
		if err != nil || k.Kty != "OKP" || k.Crv != "Ed25519" || len(x) != ed25519.PublicKeySize {
			continue
		}
		if id, _ := webbotauth.Thumbprint(x); id == k.Kid {
			keys[k.Kid] = x
		}
	}
	sum := sha256.Sum256(body)
	if resp.Header.Get("Content-Digest") != "sha-256=:"+base64.StdEncoding.EncodeToString(sum[:])+":" {
		return nil, errors.New("directory body does not match its Content-Digest")
	}
	proofs, err := httpsig.Parse(resp.Header)
	if err != nil {
		return nil, err
	}
	req := &httpsig.Message{Method: "GET", Scheme: "https", Authority: httpsig.Authority("https", u.Host), Path: u.EscapedPath()}
	proven := map[string]ed25519.PublicKey{}
	for _, p := range proofs {
		kid, _ := p.Params.String("keyid")
		base, err := p.Base(&httpsig.Message{Status: resp.StatusCode, Header: resp.Header, Request: req})
		if pub, ok := keys[kid]; ok && err == nil && ed25519.Verify(pub, base, p.Value) {
			proven[kid] = pub
		}
	}
	return proven, nil
}
