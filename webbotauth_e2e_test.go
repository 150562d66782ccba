package robotsext

import (
	"bytes"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/robotsext/robotsext/internal/sigtest"

	"github.com/dunglas/httpsfv"
	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/webbotauth"
)

// This file checks Web Bot Auth signatures the way a site would, with a
// verifier written here from RFC 9421 and the Web Bot Auth draft -01
// (not with the package that signs): it parses Signature-Input,
// Signature and Signature-Agent with httpsfv, rebuilds the signature
// base, checks it with ed25519.Verify, and checks the keyid thumbprint,
// the created/expires window, the nonce's uniqueness and the tag.

const wbaAgent = "https://operator.test/.well-known/http-message-signatures-directory"

// wbaVerifier verifies every request a test site receives.
type wbaVerifier struct {
	pub ed25519.PublicKey
	kid string // the RFC 7638 thumbprint of pub, computed here

	mu     sync.Mutex
	nonces map[string]bool
	hits   []wbaHit
}

// wbaHit is one request as the site saw it.
type wbaHit struct {
	host, method, path         string
	input, signature, agentHdr string
	created                    int64
	err                        error
}

func newWBAVerifier(pub ed25519.PublicKey) *wbaVerifier {
	// RFC 7638 §3: the required members in lexicographic order, no white
	// space; encoding/json writes map keys sorted.
	jwk, _ := json.Marshal(map[string]string{"kty": "OKP", "crv": "Ed25519", "x": base64.RawURLEncoding.EncodeToString(pub)})
	sum := sha256.Sum256(jwk)
	return &wbaVerifier{pub: pub, kid: base64.RawURLEncoding.EncodeToString(sum[:]), nonces: map[string]bool{}}
}

// record verifies r and remembers the outcome.
func (v *wbaVerifier) record(r *http.Request) {
	h := wbaHit{host: r.Host, method: r.Method, path: r.URL.Path,
		input: r.Header.Get("Signature-Input"), signature: r.Header.Get("Signature"), agentHdr: r.Header.Get("Signature-Agent")}
	h.created, h.err = v.verify(r)
	v.mu.Lock()
	v.hits = append(v.hits, h)
	v.mu.Unlock()
}

func (v *wbaVerifier) all() []wbaHit {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.hits)
}

// verify checks r's Web Bot Auth signature and returns its created.
func (v *wbaVerifier) verify(r *http.Request) (int64, error) {
	// Signature-Agent: a Dictionary whose member sig1 is the directory
	// URL, a String without parameters (draft §5.2.1).
	agents, err := httpsfv.UnmarshalDictionary(r.Header.Values("Signature-Agent"))
	if err != nil {
		return 0, fmt.Errorf("Signature-Agent: %v", err)
	}
	member, ok := agents.Get("sig1")
	if !ok {
		return 0, errors.New("Signature-Agent has no member sig1")
	}
	agentItem, ok := member.(httpsfv.Item)
	if !ok || agentItem.Value != wbaAgent || len(agentItem.Params.Names()) != 0 {
		return 0, fmt.Errorf("Signature-Agent member sig1 is %#v", member)
	}

	inputs, err := httpsfv.UnmarshalDictionary(r.Header.Values("Signature-Input"))
	if err != nil {
		return 0, fmt.Errorf("Signature-Input: %v", err)
	}
	if names := inputs.Names(); len(names) != 1 || names[0] != "sig1" {
		return 0, fmt.Errorf("Signature-Input labels %v, want [sig1]", names)
	}
	m, _ := inputs.Get("sig1")
	il, ok := m.(httpsfv.InnerList)
	if !ok {
		return 0, errors.New("Signature-Input sig1 is not an Inner List")
	}
	sigs, err := httpsfv.UnmarshalDictionary(r.Header.Values("Signature"))
	if err != nil {
		return 0, fmt.Errorf("Signature: %v", err)
	}
	sm, ok := sigs.Get("sig1")
	sigItem, _ := sm.(httpsfv.Item)
	sig, _ := sigItem.Value.([]byte)
	if !ok || len(sig) != ed25519.SignatureSize {
		return 0, fmt.Errorf("Signature sig1 is %#v", sm)
	}

	// The signature base (RFC 9421 §2.5), one line per covered component.
	var base bytes.Buffer
	covers := map[string]bool{}
	for _, it := range il.Items {
		name, ok := it.Value.(string)
		if !ok {
			return 0, fmt.Errorf("component %#v is not a String", it.Value)
		}
		id, err := httpsfv.Marshal(it)
		if err != nil {
			return 0, err
		}
		var value string
		switch name {
		case "@method":
			value = r.Method
		case "@authority":
			value = strings.TrimSuffix(strings.ToLower(r.Host), ":80") // these sites are plain http
		case "@path":
			value = r.URL.EscapedPath()
			if value == "" {
				value = "/"
			}
		case "signature-agent":
			key, _ := it.Params.Get("key")
			if key != "sig1" {
				return 0, fmt.Errorf("signature-agent covered with key %v, want the member keyed to the label", key)
			}
			value, _ = httpsfv.Marshal(agentItem)
		default:
			return 0, fmt.Errorf("unexpected component %s", id)
		}
		covers[id] = true
		fmt.Fprintf(&base, "%s: %s\n", id, value)
	}
	for _, want := range []string{`"@authority"`, `"signature-agent";key="sig1"`, `"@method"`, `"@path"`} {
		if !covers[want] {
			return 0, fmt.Errorf("%s not covered", want)
		}
	}
	params, _ := httpsfv.Marshal(il)
	fmt.Fprintf(&base, `"@signature-params": %s`, params)
	if !ed25519.Verify(v.pub, base.Bytes(), sig) {
		return 0, fmt.Errorf("signature does not verify over\n%s", base.Bytes())
	}

	// The parameters (draft §5.2).
	param := func(name string) any { p, _ := il.Params.Get(name); return p }
	created, _ := param("created").(int64)
	expires, _ := param("expires").(int64)
	now := time.Now().Unix()
	switch {
	case param("keyid") != v.kid:
		return 0, fmt.Errorf("keyid %v, want the thumbprint %s", param("keyid"), v.kid)
	case param("tag") != "web-bot-auth":
		return 0, fmt.Errorf("tag %v", param("tag"))
	case param("alg") != nil && param("alg") != "ed25519":
		return 0, fmt.Errorf("alg %v", param("alg"))
	case created == 0 || created > now+1 || created < now-60:
		return 0, fmt.Errorf("created %d, now %d", created, now)
	case expires <= now || expires-created > 24*3600 || expires-created != int64(webbotauth.Validity/time.Second):
		return 0, fmt.Errorf("expires %d for created %d, now %d", expires, created, now)
	}
	nonce, _ := param("nonce").(string)
	v.mu.Lock()
	defer v.mu.Unlock()
	if nonce == "" || v.nonces[nonce] {
		return 0, fmt.Errorf("nonce %q missing or reused", nonce)
	}
	v.nonces[nonce] = true
	return created, nil
}

// wbaSites starts site a, whose /moved redirects to site b and whose
// /flaky answers 503 the first time, and site b; every request either
// receives goes through v.
func wbaSites(t *testing.T, v *wbaVerifier) (a, b *httptest.Server) {
	b = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v.record(r)
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
			return
		}
		fmt.Fprint(w, "<html>landed</html>")
	}))
	t.Cleanup(b.Close)
	var mu sync.Mutex
	flaky := 0
	a = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v.record(r)
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
		case "/":
			fmt.Fprint(w, `<html><a href="/page">p</a> <a href="/moved">m</a> <a href="/flaky">f</a> <a href="/private">x</a></html>`)
		case "/moved":
			http.Redirect(w, r, b.URL+"/landing", http.StatusFound)
		case "/flaky":
			mu.Lock()
			flaky++
			n := flaky
			mu.Unlock()
			if n == 1 {
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			fmt.Fprint(w, "<html>ok now</html>")
		default:
			fmt.Fprint(w, "<html>page</html>")
		}
	}))
	t.Cleanup(a.Close)
	return a, b
}

// TestWebBotAuthCrawl crawls two sites with WithWebBotAuth, synchronously
// and with Async: every request that reaches them, robots.txt of both,
// the pages, the hop of a redirect to the other site and a retry after a
// 503, carries a signature the verifier accepts, each with its own nonce,
// and the hop's covers its own authority.
func TestWebBotAuthCrawl(t *testing.T) {
	t.Parallel()
	for _, async := range []bool{false, true} {
		t.Run(fmt.Sprint("async=", async), func(t *testing.T) {
			t.Parallel()
			pub, key, _ := ed25519.GenerateKey(rand.Reader)
			v := newWBAVerifier(pub)
			a, b := wbaSites(t, v)
			c := colly.NewCollector(colly.Async(async), colly.UserAgent("Mozilla/5.0 (compatible; FooBot/1.0; +https://operator.test/bot)"))
			e := Apply(c, WithWebBotAuth(key, wbaAgent), WithoutBackoff(), WithLogger(slog.New(slog.DiscardHandler)), WithDefaultDelay(0)) // the signatures, not the pace
			var blocked []string
			var mu sync.Mutex
			e.OnBlocked(func(r *colly.Request, v Verdict) {
				mu.Lock()
				blocked = append(blocked, r.URL.Path+" "+v.Reason.Label())
				mu.Unlock()
			})
			c.OnHTML("a[href]", func(h *colly.HTMLElement) { h.Request.Visit(h.Attr("href")) })
			c.OnError(func(r *colly.Response, err error) {
				if r.StatusCode == http.StatusServiceUnavailable {
					r.Request.Retry()
				}
			})
			c.Visit(a.URL + "/")
			c.Wait()

			aHost, bHost := strings.TrimPrefix(a.URL, "http://"), strings.TrimPrefix(b.URL, "http://")
			var got []string
			for _, h := range v.all() {
				got = append(got, h.host+h.path)
				if h.err != nil {
					t.Errorf("%s %s%s: %v", h.method, h.host, h.path, h.err)
				}
			}
			slices.Sort(got)
			want := []string{aHost + "/", aHost + "/flaky", aHost + "/flaky", aHost + "/moved", aHost + "/page", aHost + "/robots.txt", bHost + "/landing", bHost + "/robots.txt"}
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("the sites saw %q, want %q", got, want)
			}
			if !slices.Equal(blocked, []string{"/private disallow_rule"}) {
				t.Errorf("OnBlocked saw %q", blocked)
			}
			if !async {
				for _, h := range v.all() {
					if h.path == "/robots.txt" && h.host == aHost || h.path == "/page" || h.path == "/landing" {
						t.Logf("%s %s%s\n\tSignature-Input: %s\n\tSignature: %s\n\tSignature-Agent: %s", h.method, h.host, h.path, h.input, h.signature, h.agentHdr)
					}
				}
			}
		})
	}
}

// TestWebBotAuthOff: without the option nothing is signed.
func TestWebBotAuthOff(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	var mu sync.Mutex
	var fields []string
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		for k := range r.Header {
			if strings.HasPrefix(k, "Signature") {
				fields = append(fields, k)
			}
		}
	}))
	defer site.Close()
	c := colly.NewCollector(colly.UserAgent("FooBot/1.0 (+https://foo.test/bot)"))
	Apply(c, WithDefaultDelay(0), WithLogger(slog.New(slog.DiscardHandler)))
	c.Visit(site.URL + "/")
	if len(fields) != 0 {
		t.Errorf("unsigned crawl sent %v", fields)
	}
}

// TestWebBotAuthUnusable gives WithWebBotAuth keys and URLs that cannot
// sign: nothing reaches the site, in shadow mode neither, every request
// reaches OnBlocked with ReasonIdentity and the cause, Check refuses with
// them too (without a robots.txt fetch), Apply warns, and FetchRobots
// fails with the same error.
func TestWebBotAuthUnusable(t *testing.T) {
	t.Parallel()
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	tests := []struct {
		name  string
		key   crypto.Signer
		agent string
		cause error
	}{
		{"no key", nil, wbaAgent, webbotauth.ErrKey},
		{"empty key", ed25519.PrivateKey{}, wbaAgent, webbotauth.ErrKey},
		{"http directory", key, "http://operator.test/.well-known/http-message-signatures-directory", webbotauth.ErrSignatureAgent},
	}
	for _, tt := range tests {
		for _, shadow := range []bool{false, true} {
			t.Run(fmt.Sprint(tt.name, " shadow=", shadow), func(t *testing.T) {
				t.Parallel()
				var hits int
				var mu sync.Mutex
				site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					mu.Lock()
					hits++
					mu.Unlock()
				}))
				defer site.Close()
				var log identityLog
				// Check's robots.txt request cannot be signed either: it
				// fails as a local error, tried again 3 times. The waits
				// between tries are not the subject (that nothing is sent
				// is): 1 ms, not 100 ms doubling (0.7 s a case).
				fast := func(c *config) { c.localRetryWait = time.Millisecond }
				opts := []Option{WithWebBotAuth(tt.key, tt.agent), WithLogger(log.logger()), fast}
				if shadow {
					opts = append(opts, WithShadowMode())
				}
				c := colly.NewCollector(colly.UserAgent("FooBot/1.0 (+https://foo.test/bot)"))
				e := Apply(c, opts...)
				var vs []Verdict
				e.OnBlocked(func(_ *colly.Request, v Verdict) { vs = append(vs, v) })
				c.Visit(site.URL + "/")
				c.Visit(site.URL + "/b")
				if v, err := e.Check(site.URL + "/c"); err != nil || v.Allowed || v.Reason != ReasonIdentity || !errors.Is(v.Err, tt.cause) {
					t.Errorf("Check = %+v, %v; want refused for the identity, with the cause", v, err)
				}
				if hits != 0 {
					t.Errorf("the site saw %d requests", hits)
				}
				if len(vs) != 2 || vs[0].Reason != ReasonIdentity || !errors.Is(vs[0].Err, ErrIdentity) || !errors.Is(vs[0].Err, tt.cause) {
					t.Errorf("OnBlocked saw %+v", vs)
				}
				if w := log.matching("every request is refused until WithWebBotAuth"); len(w) != 1 {
					t.Errorf("warnings %q", w)
				}
				if _, err := FetchRobots(t.Context(), site.URL, WithWebBotAuth(tt.key, tt.agent)); !errors.Is(err, tt.cause) {
					t.Errorf("FetchRobots: %v", err)
				}
			})
		}
	}
}

// TestWebBotAuthSignFails: a request that cannot be signed when it goes
// out is not sent; OnBlocked learns why. A redirect hop that cannot be
// signed is not followed.
func TestWebBotAuthSignFails(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	pub, key, _ := ed25519.GenerateKey(rand.Reader)
	v := newWBAVerifier(pub)
	a, _ := wbaSites(t, v)
	signer := &sigtest.FailingSigner{Key: key}
	c := colly.NewCollector(colly.UserAgent("FooBot/1.0 (+https://foo.test/bot)"))
	e := Apply(c, WithDefaultDelay(0), WithWebBotAuth(signer, wbaAgent), WithLogger(slog.New(slog.DiscardHandler)))
	var vs []Verdict
	e.OnBlocked(func(_ *colly.Request, v Verdict) { vs = append(vs, v) })
	var errs []error
	c.OnError(func(_ *colly.Response, err error) { errs = append(errs, err) })
	c.Visit(a.URL + "/page") // robots.txt and the page, signed
	signer.Fail()
	c.Visit(a.URL + "/other")
	for _, h := range v.all() {
		if h.err != nil || h.path == "/other" {
			t.Errorf("the site saw %s: %v", h.path, h.err)
		}
	}
	if len(vs) != 1 || vs[0].Reason != ReasonIdentity || !errors.Is(vs[0].Err, webbotauth.ErrSign) {
		t.Errorf("OnBlocked saw %+v", vs)
	}
	// The redirect handler refuses to send a hop it cannot sign.
	req, _ := http.NewRequest("GET", "http://elsewhere.test/", nil)
	via, _ := http.NewRequest("GET", a.URL+"/moved", nil)
	if err := e.signHop(req); !errors.Is(err, webbotauth.ErrSign) || len(via.Header) != 0 {
		t.Errorf("signHop: %v", err)
	}
}

// TestWebBotAuthKeyNeverShown crawls with a key and a shared backend,
// logging everything, then formats the Extension, its configuration, its
// Stats, the backend's records, the verdicts and the errors of unusable
// keys with every verb: no form of the private key appears anywhere.
func TestWebBotAuthKeyNeverShown(t *testing.T) {
	t.Parallel()
	// The subject is not the pace: WithDefaultDelay(0).
	pub, key, _ := ed25519.GenerateKey(rand.Reader)
	v := newWBAVerifier(pub)
	a, _ := wbaSites(t, v)
	var logs bytes.Buffer
	var logMu sync.Mutex
	lw := writerFunc(func(p []byte) (int, error) { logMu.Lock(); defer logMu.Unlock(); return logs.Write(p) })
	mem := backend.NewMemory()
	c := colly.NewCollector(colly.UserAgent("FooBot/1.0 (+https://foo.test/bot)"))
	e := Apply(c, WithDefaultDelay(0), WithWebBotAuth(key, wbaAgent), WithBackend(mem), WithoutBackoff(),
		WithLogger(slog.New(slog.NewTextHandler(lw, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	var verdicts []Verdict
	e.OnBlocked(func(_ *colly.Request, v Verdict) { verdicts = append(verdicts, v) })
	c.OnHTML("a[href]", func(h *colly.HTMLElement) { h.Request.Visit(h.Attr("href")) })
	c.Visit(a.URL + "/")
	c.Wait()

	bad := Apply(colly.NewCollector(), WithDefaultDelay(0), WithWebBotAuth(key[:40], wbaAgent), WithLogger(slog.New(slog.NewTextHandler(lw, nil))))
	bad.OnBlocked(func(_ *colly.Request, v Verdict) { verdicts = append(verdicts, v) })
	bc := colly.NewCollector()
	bad.Attach(bc)
	bc.Visit(a.URL + "/")
	gone := &sigtest.FailingSigner{Key: key}
	gone.Fail()
	_, fetchErr := FetchRobots(t.Context(), a.URL, WithWebBotAuth(gone, wbaAgent))

	// The Extension holds the key only through its configuration, which
	// is read-only after Apply; the Extension itself is not printed here,
	// as its live counters cannot be read by fmt without a race.
	values := []any{*e.cfg, e.cfg, e.Stats(), mem, verdicts, fetchErr, *bad.cfg, e.cfg.signer, *e.cfg.signer}
	logMu.Lock()
	values = append(values, logs.String())
	logMu.Unlock()
	forms := []string{string(key.Seed()), string(key)}
	for _, b := range [][]byte{key.Seed(), key[:16], key.Seed()[8:24]} {
		forms = append(forms, hex.EncodeToString(b), strings.ToUpper(hex.EncodeToString(b)),
			base64.StdEncoding.EncodeToString(b), base64.RawURLEncoding.EncodeToString(b),
			strings.Trim(fmt.Sprint(b), "[]"), strings.Trim(fmt.Sprintf("%#v", b), "[]byte{}"))
	}
	for _, val := range values {
		for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%x", "%q"} {
			out := fmt.Sprintf(verb, val)
			for _, f := range forms {
				if f != "" && strings.Contains(out, f) {
					t.Fatalf("%s of %T shows the private key (%q)", verb, val, f)
				}
			}
		}
	}
	if fetchErr == nil || len(verdicts) == 0 {
		t.Errorf("the unusable keys were not refused: %v, %v", fetchErr, verdicts)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
