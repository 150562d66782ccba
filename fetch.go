package robotsext

// This file fetches one origin's robots.txt and classifies the answer with
// RFC 9309's outcome table (§2.3.1). Apply and FetchRobots share it, so the
// robotscheck command sees exactly what a collector sees.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/internal/pacing"
	"github.com/robotsext/robotsext/internal/redact"
	"github.com/robotsext/robotsext/internal/robotstxt"
	"github.com/robotsext/robotsext/webbotauth"
)

// Sentinel errors, for errors.Is.
var (
	// ErrInvalidURL: the URL could not be parsed or has no host.
	ErrInvalidURL = errors.New("robotsext: invalid URL")
	// ErrNotHTTP: the URL is not http or https, so no robots.txt governs it.
	ErrNotHTTP = errors.New("robotsext: not an http or https URL")
	// ErrUnreachable: robots.txt could not be fetched (5xx, 429, network
	// error, timeout) and no good copy is at hand.
	ErrUnreachable = errors.New("robotsext: robots.txt unreachable")
	// ErrTooManyRedirects: robots.txt redirected more than MaxRedirects
	// times, so it is unavailable.
	ErrTooManyRedirects = errors.New("robotsext: robots.txt redirected too many times")
	// ErrRedirectNotHTTP: robots.txt redirected to a URL that is not http
	// or https, so it is unavailable.
	ErrRedirectNotHTTP = errors.New("robotsext: robots.txt redirected to a non-http URL")
	// ErrBlocked: robots.txt disallows the URL. Redirect hops refused by
	// the Extension fail with an error wrapping ErrBlocked (a *BlockedError).
	ErrBlocked = errors.New("robotsext: disallowed by robots.txt")
	// ErrLocal: robots.txt could not be fetched because of this machine,
	// not the site: file descriptors or buffers ran out, or the wait for a
	// fetch slot (WithFetchConcurrency) ended with the context. Such a
	// failure is never cached against the origin.
	ErrLocal = errors.New("robotsext: robots.txt not fetched (local error)")
)

// StatusError is the Robots.Err (and Verdict.Err) of a robots.txt answer
// whose status makes it unreachable: 5xx, 429, or a code outside 100–599.
type StatusError struct {
	URL        string // the robots.txt URL answered
	StatusCode int
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("robots.txt %s answered HTTP %d", e.URL, e.StatusCode)
}

// Is makes errors.Is(err, ErrUnreachable) true.
func (e *StatusError) Is(target error) bool { return target == ErrUnreachable }

// localError wraps an error of this machine so that errors.Is(err,
// ErrLocal) holds while the cause stays visible.
type localError struct{ err error }

func (e *localError) Error() string {
	return "robotsext: robots.txt not fetched (local error): " + e.err.Error()
}
func (e *localError) Unwrap() []error { return []error{ErrLocal, e.err} }

// Outcome classifies a robots.txt fetch (RFC 9309 §2.3.1). It is defined
// in package backend, whose records store it, and is the same type there;
// its String ("ok", "unavailable", "unreachable", "unauthorized") is short,
// snake_case and stable, so metrics use it as their label.
type Outcome = backend.Outcome

const (
	// OutcomeUnreachable: 5xx, 429, network or TLS error, timeout, or a
	// body cut short. It is the zero value: knowing nothing is treated as
	// unreachable, and the FailMode decides.
	OutcomeUnreachable = backend.OutcomeUnreachable
	// OutcomeOK: 2xx; the body was parsed into Robots.Policy. A 304 answer
	// to a revalidation is OK too, with the previous Policy.
	OutcomeOK = backend.OutcomeOK
	// OutcomeUnavailable: 4xx (401 and 403 included unless
	// WithUnauthorizedDisallowAll), more than MaxRedirects redirects, a
	// redirect to a non-http URL, or another 3xx that cannot be followed.
	// Everything is allowed.
	OutcomeUnavailable = backend.OutcomeUnavailable
	// OutcomeUnauthorized: 401 or 403 with WithUnauthorizedDisallowAll:
	// everything is disallowed.
	OutcomeUnauthorized = backend.OutcomeUnauthorized
)

// Outcomes returns every Outcome this version defines, in order, from
// OutcomeUnreachable on.
func Outcomes() []Outcome {
	os := make([]Outcome, 0, 4)
	for o := OutcomeUnreachable; o.String() != "unknown outcome"; o++ {
		os = append(os, o)
	}
	return os
}

// Robots is one fetch of an origin's robots.txt and what it means. It is
// not modified after FetchRobots returns and is safe for concurrent use.
type Robots struct {
	// URL is the robots.txt URL requested: scheme, host (lower case,
	// default port dropped) and "/robots.txt".
	URL string
	// FinalURL is the URL of the last response after redirects, or "" when
	// there was no response.
	FinalURL string
	// Redirects counts the redirects followed.
	Redirects int
	// Status is the final HTTP status code, 0 when there was no response.
	Status int
	// Outcome classifies the answer.
	Outcome Outcome
	// Policy is the parsed file when Outcome is OutcomeOK, else nil.
	Policy *Policy
	// Err explains an unreachable or unavailable outcome: for unreachable
	// ones it wraps ErrUnreachable and the cause (the network error or
	// timeout), or is a *StatusError for 5xx and 429; for unavailable ones
	// it says why when there is no status of its own (too many redirects);
	// nil otherwise.
	Err error
	// Size is the number of body bytes parsed; Truncated reports that the
	// body was longer than MaxBodySize and was cut at the last full line.
	Size      int
	Truncated bool
	// NotModified reports a 304 answer to a revalidation: Policy is the
	// previous one.
	NotModified bool
	// FetchedAt is when the request was sent.
	FetchedAt time.Time
	// Expires is when the answer should be fetched again: from
	// Cache-Control max-age or Expires within MaxCacheTTL, else the cache
	// TTL; for an unreachable origin, after a backoff or Retry-After.
	Expires time.Time
	// RetryAfter is the response's Retry-After (seconds or a date), capped
	// at one hour; 0 when absent or in the past.
	RetryAfter time.Duration
	// ETag and LastModified are the validators used to revalidate.
	ETag         string
	LastModified string
	// Body is the robots.txt body that was parsed (after the MaxBodySize
	// cut), for tools that show its lines. Only FetchRobots fills it; the
	// Extension does not keep bodies in its cache.
	Body []byte
}

// FetchRobots fetches the robots.txt governing rawURL with the same
// request rules, limits and outcome table as the Extension: a timeout
// (WithTimeout), at most MaxRedirects redirects to http(s) URLs only,
// Authorization and Cookie dropped when the host changes, at most
// MaxBodySize bytes read. The request carries the headers of WithHeaders;
// its User-Agent is that header, else the WithUserAgent token, else
// "robotsext". Transport and proxy come from WithHTTPClient.
//
// Every answer of the origin, errors included, is reported in the Robots
// (see Outcome). The error is non-nil only when rawURL has no robots.txt
// (ErrInvalidURL, ErrNotHTTP) or ctx ends first.
func FetchRobots(ctx context.Context, rawURL string, opts ...Option) (*Robots, error) {
	o, _, err := parseOrigin(rawURL)
	if err != nil {
		return nil, err
	}
	cfg := newConfig(opts)
	if cfg.signErr != nil {
		return nil, cfg.signErr
	}
	hdr := cloneHeader(cfg.headers)
	if hdr.Get("User-Agent") == "" {
		ua := cfg.token
		if ua == "" {
			ua = "robotsext"
		}
		hdr.Set("User-Agent", ua)
	}
	f := cfg.newFetcher()
	f.keepBody = true
	defer f.close()
	return f.fetch(ctx, o, hdr, nil, 1)
}

// RobotsURL returns the URL of the robots.txt that governs rawURL: its
// scheme, its host in lower case and its port (the default port dropped),
// then "/robots.txt". Two URLs with the same RobotsURL share one robots.txt
// (RFC 9309 §2.1). It fails with ErrInvalidURL or ErrNotHTTP.
func RobotsURL(rawURL string) (string, error) {
	o, _, err := parseOrigin(rawURL)
	if err != nil {
		return "", err
	}
	return o.robotsURL(), nil
}

// Verdict decides rawURL (an absolute URL or a path) for the crawler whose
// product token is token (such as "FooBot", not "FooBot/1.0" nor a whole
// User-Agent: see ProductToken) from this answer, with RFC 9309's outcome
// table: OK obeys Policy, unavailable allows, unauthorized disallows,
// unreachable follows mode. /robots.txt itself is always allowed and
// non-http(s) URLs are not governed. For an allowed URL, Verdict.Usage
// holds the usage preferences Policy states. A token that is not a product
// token is still matched as given (the "*" groups decide) and the
// Verdict's TokenErr says so.
func (r *Robots) Verdict(token, rawURL string, mode FailMode) (v Verdict) {
	defer func() {
		if !isBareToken(token) && token != "*" {
			v.TokenErr = ValidToken(token)
		}
	}()
	path, ok := robotstxt.PathOfRaw(rawURL)
	if !ok {
		return Verdict{Allowed: true, Reason: ReasonNotApplicable}
	}
	if r == nil {
		return decide(OutcomeUnreachable, nil, token, path, mode, nil)
	}
	v = decide(r.Outcome, r.Policy, token, path, mode, r.Err)
	if v.Reason == ReasonUnreachable && !v.Allowed {
		v.RetryAt = r.Expires
	}
	if e := r.Policy.engine(); v.Allowed && r.Outcome == OutcomeOK && e.HasUsage() {
		v.Usage = Usage{e.UsageFor(e.Select(token), path)}
	}
	return v
}

// decide applies the outcome table to one request path; fetchErr is the
// fetch's error, reported for unreachable outcomes.
func decide(out Outcome, p *Policy, token, path string, mode FailMode, fetchErr error) Verdict {
	if path == "/robots.txt" {
		return Verdict{Allowed: true, Reason: ReasonRobotsTxt}
	}
	switch out {
	case OutcomeOK:
		return p.checkPath(token, path)
	case OutcomeUnavailable:
		return Verdict{Allowed: true, Reason: ReasonUnavailable}
	case OutcomeUnauthorized:
		return Verdict{Allowed: false, Reason: ReasonUnauthorized}
	}
	return Verdict{Allowed: mode == FailOpen, Reason: ReasonUnreachable, Err: fetchErr}
}

// fetcher makes robots.txt requests for one configuration.
type fetcher struct {
	cfg    *config
	client *http.Client
	owned  *http.Transport // our own transport, closed by close; nil when the user gave a client
	// keepBody makes fetch keep the body in Robots.Body (FetchRobots, and
	// the Extension when a Backend stores bodies).
	keepBody bool
	// slots bounds the fetches in flight (WithFetchConcurrency): a fetch
	// holds one for its whole duration, redirects and body included.
	slots chan struct{}
}

// newFetcher prepares the HTTP client: a copy of the user's, or one on a
// clone of http.DefaultTransport, with the robots.txt redirect rules.
func (cfg *config) newFetcher() *fetcher {
	f := &fetcher{cfg: cfg, slots: make(chan struct{}, cfg.fetchConcurrency)}
	if cfg.client != nil {
		cl := *cfg.client
		f.client = &cl
	} else {
		f.owned = newTransport(cfg.timeout)
		f.client = &http.Client{Transport: f.owned}
	}
	f.client.CheckRedirect = robotsRedirect
	f.client.Transport = cfg.signTransport(f.client.Transport) // webbotauth.go
	return f
}

// close releases the idle connections of a transport we made.
func (f *fetcher) close() {
	if f.owned != nil {
		f.owned.CloseIdleConnections()
	}
}

// newTransport clones http.DefaultTransport (proxy from the environment,
// HTTP/2, dial timeouts) and bounds the handshake and the wait for headers.
func newTransport(timeout time.Duration) *http.Transport {
	var t *http.Transport
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		t = dt.Clone()
	} else { // replaced by a test double; start from sane settings
		t = &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			ForceAttemptHTTP2:   true,
			MaxIdleConns:        100,
			IdleConnTimeout:     90 * time.Second,
			TLSHandshakeTimeout: 10 * time.Second,
		}
	}
	t.ResponseHeaderTimeout = timeout
	t.MaxResponseHeaderBytes = 64 << 10
	return t
}

// keptAcrossHosts are the only headers a robots.txt request carries to
// another host after a redirect. Everything else, Authorization, Cookie and
// any custom credential header from WithHeaders or the collector's
// Headers, stays with the host it was meant for.
var keptAcrossHosts = [...]string{"User-Agent", "Accept", "Accept-Language", "From"}

// robotsRedirect is the CheckRedirect of robots.txt requests.
func robotsRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > MaxRedirects {
		return ErrTooManyRedirects
	}
	if s := req.URL.Scheme; !strings.EqualFold(s, "http") && !strings.EqualFold(s, "https") {
		return ErrRedirectNotHTTP
	}
	if !strings.EqualFold(req.URL.Host, via[0].URL.Host) {
		kept := http.Header{}
		for _, k := range keptAcrossHosts {
			if vs := req.Header.Values(k); len(vs) > 0 {
				kept[k] = vs
			}
		}
		req.Header = kept
		req.Host = ""
	}
	return nil
}

// acquire takes a fetch slot, waiting as long as ctx allows.
func (f *fetcher) acquire(ctx context.Context) error {
	select {
	case f.slots <- struct{}{}:
		return nil
	default:
	}
	select {
	case f.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (f *fetcher) release() { <-f.slots }

// isLocalError reports errors of this machine rather than of the site:
// descriptors, buffers, memory or local ports exhausted.
func isLocalError(err error) bool {
	for _, errno := range [...]syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM, syscall.EADDRNOTAVAIL} {
		if errors.Is(err, errno) {
			return true
		}
	}
	return errors.Is(err, webbotauth.ErrSign) // WithWebBotAuth could not sign: nothing was sent
}

// dropped are request headers the fetch manages itself.
var dropped = [...]string{"If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range", "Accept-Encoding", "Content-Length", "Content-Type"}

func cloneHeader(h http.Header) http.Header {
	c := h.Clone()
	if c == nil {
		c = http.Header{}
	}
	for _, k := range dropped {
		c.Del(k)
	}
	return c
}

// fetch requests o's robots.txt. hdr is used as the request's header and
// must not be shared. prev, when it holds validators of a good copy, makes
// the request conditional. failures is how many unreachable answers in a
// row this one would make, for the backoff. The error is non-nil only
// when ctx ends.
func (f *fetcher) fetch(ctx context.Context, o origin, hdr http.Header, prev *Robots, failures int) (*Robots, error) {
	cfg := f.cfg
	r := &Robots{URL: o.robotsURL(), FetchedAt: cfg.now()}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := f.acquire(ctx); err != nil {
		return nil, err
	}
	defer f.release()
	r.FetchedAt = cfg.now() // the request starts once it has a slot
	tctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(tctx, http.MethodGet, r.URL, nil)
	if err != nil { // a host url.Parse let through but net/http rejects
		r.Outcome, r.Err = OutcomeUnreachable, fmt.Errorf("%w: %w: %v", ErrUnreachable, ErrInvalidURL, err)
		r.Expires = r.FetchedAt.Add(backoff(failures, 0))
		return r, nil
	}
	req.Header = hdr
	if h := hdr.Get("Host"); h != "" {
		req.Host = h
	}
	conditional := prev != nil && prev.Outcome == OutcomeOK && (prev.ETag != "" || prev.LastModified != "")
	if conditional {
		if prev.ETag != "" {
			req.Header.Set("If-None-Match", prev.ETag)
		}
		if prev.LastModified != "" {
			req.Header.Set("If-Modified-Since", prev.LastModified)
		}
	}

	resp, err := f.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if isLocalError(err) {
			return nil, &localError{err}
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			// net/http masks a password only, and not at all in the
			// Location of a refused redirect.
			ue.URL = redact.RawURL(ue.URL)
		}
		if resp != nil { // a refused redirect: net/http returns the last response, body closed
			r.Status, r.FinalURL, r.Redirects = resp.StatusCode, resp.Request.URL.String(), countRedirects(resp)
		}
		switch {
		case errors.Is(err, ErrTooManyRedirects), errors.Is(err, ErrRedirectNotHTTP):
			r.Outcome, r.Err = OutcomeUnavailable, err
			r.Expires = r.FetchedAt.Add(cfg.ttl)
		default:
			r.Outcome, r.Err = OutcomeUnreachable, fmt.Errorf("%w: %w", ErrUnreachable, err)
			r.Expires = r.FetchedAt.Add(backoff(failures, 0))
		}
		return r, nil
	}
	defer resp.Body.Close()
	r.Status = resp.StatusCode
	r.FinalURL = resp.Request.URL.String()
	r.Redirects = countRedirects(resp)
	r.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), r.FetchedAt)

	switch s := resp.StatusCode; {
	case s >= 200 && s < 300:
		body, truncated, err := readBody(resp.Body)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if isLocalError(err) {
				return nil, &localError{err}
			}
			r.Outcome, r.Err = OutcomeUnreachable, fmt.Errorf("%w: reading the body: %w", ErrUnreachable, err)
			r.Expires = r.FetchedAt.Add(backoff(failures, r.RetryAfter))
			return r, nil
		}
		r.Outcome, r.Policy, r.Size, r.Truncated = OutcomeOK, ParsePolicy(body), len(body), truncated
		if f.keepBody {
			r.Body = body
		}
		r.ETag, r.LastModified = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	case s == http.StatusNotModified && conditional:
		r.Outcome, r.Policy, r.NotModified = OutcomeOK, prev.Policy, true
		r.Size, r.Truncated = prev.Size, prev.Truncated
		r.ETag, r.LastModified = prev.ETag, prev.LastModified
		if e := resp.Header.Get("ETag"); e != "" {
			r.ETag = e
		}
		if lm := resp.Header.Get("Last-Modified"); lm != "" {
			r.LastModified = lm
		}
	case s >= 300 && s < 400: // a redirect we could not follow
		r.Outcome = OutcomeUnavailable
	case (s == http.StatusUnauthorized || s == http.StatusForbidden) && cfg.authDisallow:
		r.Outcome = OutcomeUnauthorized
	case s == http.StatusTooManyRequests || s >= 500 || s < 200:
		// 5xx, 429, and codes no server should send as a final answer
		// (1xx, anything outside 100–599).
		r.Outcome, r.Err = OutcomeUnreachable, &StatusError{URL: r.URL, StatusCode: s}
		r.Expires = r.FetchedAt.Add(backoff(failures, r.RetryAfter))
		return r, nil
	default: // 4xx
		r.Outcome = OutcomeUnavailable
	}
	ttl := cfg.ttl
	if r.NotModified && prev.Expires.After(prev.FetchedAt) {
		// RFC 9111 §4.3.4: a 304 updates the stored response, so without
		// caching headers of its own the stored lifetime still applies.
		ttl = prev.Expires.Sub(prev.FetchedAt)
	}
	r.Expires = r.FetchedAt.Add(lifetime(resp.Header, r.FetchedAt, ttl))
	return r, nil
}

// countRedirects counts the hops that led to resp.
func countRedirects(resp *http.Response) int {
	n := 0
	for r := resp.Request; r != nil && r.Response != nil; r = r.Response.Request {
		n++
	}
	return n
}

// readBody reads at most MaxBodySize bytes. When the body is longer, the
// rest is ignored and the line the limit cut is dropped.
func readBody(body io.Reader) (b []byte, truncated bool, err error) {
	b, err = io.ReadAll(io.LimitReader(body, MaxBodySize+1))
	if err != nil {
		return nil, false, err
	}
	if len(b) <= MaxBodySize {
		return b, false, nil
	}
	b = b[:MaxBodySize]
	if i := bytes.LastIndexAny(b, "\r\n"); i >= 0 {
		b = b[:i+1]
	} else {
		b = b[:0]
	}
	return b, true, nil
}

// lifetime is how long an answer stays fresh: Cache-Control max-age (less
// Age) or Expires (against Date), capped at MaxCacheTTL and at least
// minLifetime (no-cache, no-store, max-age=0 and invalid freshness
// information included, so that robots.txt is not fetched again for every
// page); without either header, ttl.
func lifetime(h http.Header, now time.Time, ttl time.Duration) time.Duration {
	d, ok := headerLifetime(h, now)
	if !ok {
		d = ttl
	}
	return min(max(d, minLifetime), MaxCacheTTL)
}

// headerLifetime reads the freshness lifetime a response states (RFC 9111
// §4.2.1); ok is false when it states none. A response whose freshness
// information is invalid is stale (lifetime 0, ok true), as RFC 9111
// §4.2.1 encourages: a max-age that is not delta-seconds (-1, abc, "",
// 1.5, none at all), several max-age or Expires values that disagree
// (§4.2.1: the first, or stale; stale is the safer reading for
// robots.txt), an Expires that is not an HTTP date (§5.3). no-cache or
// no-store anywhere means revalidate. s-maxage speaks to shared caches
// only (§5.2.2.10) and this cache is one crawler's, so it is ignored, as
// is its Expires override.
func headerLifetime(h http.Header, now time.Time) (time.Duration, bool) {
	var age time.Duration
	if a, ok := deltaSeconds(h.Get("Age")); ok && a > 0 {
		age = a
	}
	maxAge, haveMaxAge := time.Duration(0), false
	for _, cc := range h.Values("Cache-Control") {
		for _, d := range strings.Split(cc, ",") {
			name, val, hasVal := strings.Cut(strings.TrimSpace(d), "=")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "no-store", "no-cache":
				return 0, true
			case "max-age":
				v := strings.TrimSpace(val)
				if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
					v = v[1 : len(v)-1] // RFC 9111 §5.2: recipients accept the quoted form
				}
				n, ok := deltaSeconds(v)
				switch {
				case !hasVal || !ok:
					return 0, true // invalid: stale
				case haveMaxAge && n != maxAge:
					return 0, true // disagreeing duplicates: stale
				}
				maxAge, haveMaxAge = n, true
			}
		}
	}
	if haveMaxAge {
		return maxAge - age, true
	}
	exps := h.Values("Expires")
	if len(exps) == 0 {
		return 0, false
	}
	t, err := http.ParseTime(strings.TrimSpace(exps[0]))
	if err != nil {
		return 0, true // RFC 9111 §5.3: an invalid Expires means already expired
	}
	for _, x := range exps[1:] {
		if u, err := http.ParseTime(strings.TrimSpace(x)); err != nil || !u.Equal(t) {
			return 0, true // disagreeing duplicates: stale
		}
	}
	base := now
	if d, err := http.ParseTime(h.Get("Date")); err == nil {
		base = d
	}
	return t.Sub(base) - age, true
}

// deltaSeconds parses RFC 9111 §1.2.2 delta-seconds: one or more ASCII
// digits, nothing else (no sign, no fraction). A value too large to
// represent is valid and means "very long": it is capped (secondsDuration).
func deltaSeconds(v string) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	for i := 0; i < len(v); i++ {
		if v[i] < '0' || v[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil { // only ErrRange is left: more digits than int64 holds
		return MaxStale, true
	}
	return secondsDuration(n), true
}

func secondsDuration(n int64) time.Duration {
	if n > int64(MaxStale/time.Second) {
		return MaxStale
	}
	return time.Duration(n) * time.Second
}

// retryAfter reads Retry-After: delay seconds or an HTTP date, capped at
// maxBackoff either way (a number too large for int64 is capped too).
func retryAfter(v string, now time.Time) time.Duration {
	if d, ok := pacing.ParseRetryAfter(v, now); ok {
		return min(d, maxBackoff)
	}
	return 0
}

// backoff is how long an origin that was unreachable failures times in a
// row is left alone: Retry-After when given (at most maxBackoff), else
// minBackoff doubled per failure up to maxBackoff.
func backoff(failures int, retryAfter time.Duration) time.Duration {
	if retryAfter > 0 {
		return min(retryAfter, maxBackoff)
	}
	d := minBackoff
	for i := 1; i < failures && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}
