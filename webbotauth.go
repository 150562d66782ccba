package robotsext

// This file signs every request the Extension's collectors and its own
// robots.txt client send, with Web Bot Auth (package webbotauth).
//
// Where: Colly keeps its transport private, so Apply can neither wrap a
// transport set before it nor notice one set after it (and SetProxy
// replaces any transport that is not an *http.Transport). The signature
// is therefore made from the collector's own hooks, whatever its
// transport: OnRequestHeaders, which Colly runs just before the request
// goes on the wire (after its LimitRules and the Extension's pace), for
// each request and each retry; and the redirect handler Attach installs,
// which net/http runs on each hop after copying the previous request's
// fields and before sending it. robots.txt requests go through the
// Extension's own client, whose transport signs them.

import (
	"crypto"
	"fmt"
	"net/http"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/webbotauth"
)

// WithWebBotAuth signs every request with Web Bot Auth
// (draft-ietf-webbotauth-httpsig-protocol-01), so that sites, and the bot
// management in front of them (Cloudflare's verified bots, Akamai's bot
// manager), can verify that it comes from the operator of the key
// directory at signatureAgent. key is the operator's Ed25519 private key:
// an ed25519.PrivateKey or a crypto.Signer holding one. signatureAgent is
// the https URL of the key directory, usually
// https://your.domain/.well-known/http-message-signatures-directory,
// served by webbotauth.Directory.
//
// Every request goes out signed: the collector's pages (a signature made
// as the request goes on the wire, after the pace), each retry and each
// redirect hop with a signature of its own (fresh created and nonce, the
// hop's own authority), the robots.txt requests of Apply, Check and
// FetchRobots, http as well as https. A request costs one Ed25519
// signature (BenchmarkSign: tens of microseconds); without the option
// nothing is added. See package webbotauth for what the signature
// covers, and docs/identity.md for the draft version followed.
//
// The hooks Attach installs do the signing, so any transport or proxy
// (c.WithTransport, c.SetProxy) works, set before or after Apply. Two
// things can still go out with a wrong signature: a redirect hop, when a
// redirect handler set after Apply does not wrap the Extension's (see
// WrapRedirectHandler), and a request an OnRequestHeaders callback
// registered after Apply changes in its method, host or path.
//
// A key or URL that cannot be used is never a silently unsigned crawl:
// Apply logs the error at Warn, and every request, robots.txt included,
// is refused (ReasonIdentity, in shadow mode too) with a Verdict.Err
// wrapping ErrIdentity and webbotauth.ErrKey or
// webbotauth.ErrSignatureAgent; FetchRobots returns that error. A request
// that fails to sign later (a hardware key gone away) is not sent either,
// and reaches OnBlocked. The key appears in no log, error, Stats,
// backend record or metric.
func WithWebBotAuth(key crypto.Signer, signatureAgent string) Option {
	return func(c *config) {
		s, err := webbotauth.NewSigner(key, signatureAgent)
		if err != nil {
			c.signer, c.signErr = nil, fmt.Errorf("%w: WithWebBotAuth: %w", ErrIdentity, err)
			return
		}
		c.signer, c.signErr = s, nil
	}
}

// attachSigning makes c sign its requests at the wire. It runs after the
// Extension's own OnRequestHeaders hook is registered, so that a request
// is signed after its pace.
func (e *Extension) attachSigning(c *colly.Collector) {
	if e.cfg.signer != nil {
		c.OnRequestHeaders(func(r *colly.Request) { e.signRequest(c, r) })
	}
}

// signRequest signs r as it goes on the wire; a request that cannot be
// signed is aborted and reported.
func (e *Extension) signRequest(c *colly.Collector, r *colly.Request) {
	if r.IsAbort() || r.URL == nil || r.Headers == nil {
		return
	}
	if *r.Headers == nil {
		*r.Headers = http.Header{}
	}
	req := &http.Request{Method: r.Method, URL: r.URL, Host: r.Host, Header: *r.Headers}
	if err := e.cfg.signer.Sign(req); err != nil {
		r.Abort()
		e.cfg.logger.Warn("robotsext: request not sent: it could not be signed", "error", err.Error())
		e.blocked(contextOf(c), r, Verdict{Allowed: false, Reason: ReasonIdentity, Err: fmt.Errorf("%w: %w", ErrIdentity, err)})
	}
}

// signHop signs a redirect hop the Extension lets through; an error
// stops the hop.
func (e *Extension) signHop(req *http.Request) error {
	if e.cfg.signer == nil {
		return nil
	}
	if err := e.cfg.signer.Sign(req); err != nil {
		return fmt.Errorf("%w: %w", ErrIdentity, err)
	}
	return nil
}

// signTransport returns the transport of the robots.txt client: rt
// signing each request with WithWebBotAuth, refusing every one while its
// key is unusable, and rt itself without the option.
func (cfg *config) signTransport(rt http.RoundTripper) http.RoundTripper {
	switch {
	case cfg.signer != nil:
		return cfg.signer.Transport(rt)
	case cfg.signErr != nil:
		return refuseTransport{cfg.signErr}
	}
	return rt
}

// refuseTransport sends nothing: the request could not be signed.
type refuseTransport struct{ err error }

func (t refuseTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	return nil, fmt.Errorf("%w: %w", webbotauth.ErrSign, t.err)
}
