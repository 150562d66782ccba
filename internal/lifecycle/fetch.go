package lifecycle

// This file fetches one origin's robots.txt and classifies the answer with
// RFC 9309's outcome table (§2.3.1). The root's FetchRobots and the Cache
// share it, so the robotscheck command sees exactly what a collector sees.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/internal/redact"
	"github.com/robotsext/robotsext/internal/robotstxt"
)

// FetcherConfig is what a Fetcher is made of. The root package fills it
// from its options; the limits are its public constants.
type FetcherConfig struct {
	// Client is copied, its CheckRedirect replaced by the robots.txt
	// redirect rules; nil: a client on a clone of http.DefaultTransport.
	// Transport, when set, wraps the client's transport (Web Bot Auth
	// signs the requests there).
	Client    *http.Client
	Transport func(http.RoundTripper) http.RoundTripper
	// Base, with a nil Client, returns the transport a request goes
	// through, read as each request starts (nil: http.DefaultTransport):
	// the collector's own, so that robots.txt goes out the way its pages
	// do, on their connections. nil: a transport of the Fetcher's own.
	Base func() http.RoundTripper
	// Timeout bounds one fetch, redirects and body included; ≤ 0: the
	// fetch has no bound of its own, only its context's.
	Timeout time.Duration
	// TTL is the lifetime of an answer that states none; MaxTTL caps
	// every lifetime.
	TTL, MaxTTL time.Duration
	// MaxRedirects is how many redirects a request follows; one more
	// makes robots.txt unavailable. MaxBodySize is how many body bytes
	// are read.
	MaxRedirects, MaxBodySize int
	// Concurrency bounds the quick fetches in flight at once (at least
	// one); a fetch without response headers after SlowMedians × the
	// recent median time to headers (within MinSlowAfter and SlowAfter),
	// or still running SlowAfter after it started (≤ 0:
	// DefaultSlowAfter), stops counting against it, up to SlowFactor ×
	// Concurrency such slow fetches at once (slots.go).
	Concurrency int
	SlowAfter   time.Duration
	// AfterFunc runs f once d has passed and returns the call that
	// cancels it; nil: time.AfterFunc. Tests move the time by hand.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
	// AuthDisallow makes 401 and 403 OutcomeUnauthorized.
	AuthDisallow bool
	// KeepBody keeps the parsed body in Robots.Body.
	KeepBody bool
	// Now is the clock of FetchedAt and Expires; nil: time.Now.
	Now func() time.Time
	// RetryAfter reads a Retry-After value (RFC 9110 §10.2.3) as a delay
	// from now; given is false when it asks for nothing. nil: Retry-After
	// is not read.
	RetryAfter func(v string, now time.Time) (d time.Duration, given bool)
	// Errors are the errors the answers carry. IsLocal reports the
	// errors of this machine beside exhausted descriptors, buffers and
	// ports (a request that could not be signed, so was not sent); nil:
	// none.
	Errors  Errors
	IsLocal func(error) bool
}

// Fetcher makes robots.txt requests for one configuration. It is safe for
// concurrent use.
type Fetcher struct {
	cfg    FetcherConfig // read-only
	client *http.Client
	owned  *http.Transport // our own transport, closed by Close; nil when the caller gave a client
	// slots bounds the fetches in flight: a fetch holds one for its whole
	// duration, redirects and body included, in the pool while it is
	// quick, among the slow after that (slots.go).
	slots *slots
}

// NewFetcher prepares the HTTP client: a copy of cfg.Client, or one on a
// clone of http.DefaultTransport, with the robots.txt redirect rules.
func NewFetcher(cfg FetcherConfig) *Fetcher {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	f := &Fetcher{cfg: cfg, slots: newSlots(cfg.Concurrency, cfg.SlowAfter, cfg.AfterFunc)}
	switch {
	case cfg.Client != nil:
		cl := *cfg.Client
		f.client = &cl
	case cfg.Base != nil:
		f.client = &http.Client{Transport: baseTransport(cfg.Base)}
	default:
		f.owned = newTransport(cfg.Timeout)
		f.client = &http.Client{Transport: f.owned}
	}
	f.client.CheckRedirect = f.checkRedirect
	if cfg.Transport != nil {
		f.client.Transport = cfg.Transport(f.client.Transport)
	}
	return f
}

// Timeout is the bound of one fetch (FetcherConfig.Timeout).
func (f *Fetcher) Timeout() time.Duration { return f.cfg.Timeout }

// Close releases the idle connections of a transport the Fetcher made.
func (f *Fetcher) Close() {
	if f.owned != nil {
		f.owned.CloseIdleConnections()
	}
}

// Fetch requests o's robots.txt. hdr is used as the request's header and
// must not be shared (see RequestHeader). prev, when it holds validators
// of a good copy, makes the request conditional. failures is how many
// unreachable answers in a row this one would make, for the backoff.
//
// Every answer of the origin, errors included, is reported in the Robots.
// The error is non-nil only when ctx ends first, or wraps Errors.Local
// when this machine could not make the request.
func (f *Fetcher) Fetch(ctx context.Context, o Origin, hdr http.Header, prev *Robots, failures int) (*Robots, error) {
	cfg := &f.cfg
	r := &Robots{URL: o.RobotsURL(), FetchedAt: cfg.Now()}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sl, err := f.slots.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer sl.release()
	r.FetchedAt = cfg.Now() // the request starts once it has a slot
	tctx := ctx
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		tctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(tctx, http.MethodGet, r.URL, nil)
	if err != nil { // a host url.Parse let through but net/http rejects
		r.Outcome, r.Err = backend.OutcomeUnreachable, fmt.Errorf("%w: %w: %v", cfg.Errors.Unreachable, cfg.Errors.InvalidURL, err)
		r.Expires = r.FetchedAt.Add(backoff(failures, 0))
		return r, nil
	}
	req.Header = hdr
	if h := hdr.Get("Host"); h != "" {
		req.Host = h
	}
	conditional := prev != nil && prev.Outcome == backend.OutcomeOK && (prev.ETag != "" || prev.LastModified != "")
	if conditional {
		if prev.ETag != "" {
			req.Header.Set("If-None-Match", prev.ETag)
		}
		if prev.LastModified != "" {
			req.Header.Set("If-Modified-Since", prev.LastModified)
		}
	}

	resp, err := f.client.Do(req)
	sl.answered(err == nil)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if f.isLocal(err) {
			return nil, &localError{cfg.Errors.Local, err}
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
		case errors.Is(err, cfg.Errors.TooManyRedirects), errors.Is(err, cfg.Errors.RedirectNotHTTP):
			r.Outcome, r.Err = backend.OutcomeUnavailable, err
			r.Expires = r.FetchedAt.Add(cfg.TTL)
		default:
			r.Outcome, r.Err = backend.OutcomeUnreachable, fmt.Errorf("%w: %w", cfg.Errors.Unreachable, err)
			r.Expires = r.FetchedAt.Add(backoff(failures, 0))
		}
		return r, nil
	}
	defer resp.Body.Close()
	r.Status = resp.StatusCode
	r.FinalURL = resp.Request.URL.String()
	r.Redirects = countRedirects(resp)
	r.RetryAfter = f.retryAfter(resp.Header.Get("Retry-After"), r.FetchedAt)

	switch s := resp.StatusCode; {
	case s >= 200 && s < 300:
		body, truncated, err := readBody(resp.Body, cfg.MaxBodySize, resp.ContentLength)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if f.isLocal(err) {
				return nil, &localError{cfg.Errors.Local, err}
			}
			r.Outcome, r.Err = backend.OutcomeUnreachable, fmt.Errorf("%w: reading the body: %w", cfg.Errors.Unreachable, err)
			r.Expires = r.FetchedAt.Add(backoff(failures, r.RetryAfter))
			return r, nil
		}
		r.Outcome, r.Policy, r.Size, r.Truncated = backend.OutcomeOK, parse(body), len(body), truncated
		if cfg.KeepBody {
			r.Body = body
		}
		r.ETag, r.LastModified = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	case s == http.StatusNotModified && conditional:
		r.Outcome, r.Policy, r.NotModified = backend.OutcomeOK, prev.Policy, true
		r.Size, r.Truncated = prev.Size, prev.Truncated
		r.ETag, r.LastModified = prev.ETag, prev.LastModified
		if e := resp.Header.Get("ETag"); e != "" {
			r.ETag = e
		}
		if lm := resp.Header.Get("Last-Modified"); lm != "" {
			r.LastModified = lm
		}
	case s >= 300 && s < 400: // a redirect we could not follow
		r.Outcome = backend.OutcomeUnavailable
	case (s == http.StatusUnauthorized || s == http.StatusForbidden) && cfg.AuthDisallow:
		r.Outcome = backend.OutcomeUnauthorized
	case s == http.StatusTooManyRequests || s >= 500 || s < 200:
		// 5xx, 429, and codes no server should send as a final answer
		// (1xx, anything outside 100–599).
		r.Outcome, r.Err = backend.OutcomeUnreachable, cfg.Errors.Status(r.URL, s)
		r.Expires = r.FetchedAt.Add(backoff(failures, r.RetryAfter))
		return r, nil
	default: // 4xx
		r.Outcome = backend.OutcomeUnavailable
	}
	ttl := cfg.TTL
	if r.NotModified && prev.Expires.After(prev.FetchedAt) {
		// RFC 9111 §4.3.4: a 304 updates the stored response, so without
		// caching headers of its own the stored lifetime still applies.
		ttl = prev.Expires.Sub(prev.FetchedAt)
	}
	r.Expires = r.FetchedAt.Add(lifetime(resp.Header, r.FetchedAt, ttl, cfg.MaxTTL))
	return r, nil
}

// parse compiles a robots.txt body.
func parse(body []byte) *robotstxt.Policy {
	p := new(robotstxt.Policy)
	p.Parse(body)
	return p
}

// countRedirects counts the hops that led to resp.
func countRedirects(resp *http.Response) int {
	n := 0
	for r := resp.Request; r != nil && r.Response != nil; r = r.Response.Request {
		n++
	}
	return n
}

// readBody reads at most limit bytes. When the body is longer, the rest
// is ignored and the line the limit cut is dropped. size is the body's
// declared length (-1: unknown): the buffer starts that large, up to the
// limit, so that a 400 KB robots.txt is read into one allocation rather
// than copied through a dozen growing ones; a length that lies costs at
// most the limit, and reading goes on past it the usual way.
func readBody(body io.Reader, limit int, size int64) (b []byte, truncated bool, err error) {
	n := int64(limit) + 1
	c := int64(512)
	if size >= 0 {
		c = min(size, n) + 1 // + 1: the read that finds EOF needs no growth
	}
	b = make([]byte, 0, c)
	r := io.LimitReader(body, n)
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		m, e := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+m]
		if e == io.EOF {
			break
		}
		if e != nil {
			return nil, false, e
		}
	}
	if len(b) <= limit {
		return b, false, nil
	}
	b = b[:limit]
	if i := bytes.LastIndexAny(b, "\r\n"); i >= 0 {
		b = b[:i+1]
	} else {
		b = b[:0]
	}
	return b, true, nil
}
