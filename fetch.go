package robotsext

// This file is the public face of a robots.txt fetch: its errors, its
// Outcome, the Robots it reports, FetchRobots and the outcome table a
// Verdict is decided by. The fetch itself is internal/lifecycle's, which
// Apply and FetchRobots share, so the robotscheck command sees exactly
// what a collector sees.

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/internal/lifecycle"
	"github.com/robotsext/robotsext/internal/pacing"
	"github.com/robotsext/robotsext/internal/robotstxt"
	"github.com/robotsext/robotsext/internal/useragent"
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
	hdr := lifecycle.RequestHeader(cfg.headers)
	if hdr.Get("User-Agent") == "" {
		ua := cfg.token
		if ua == "" {
			ua = "robotsext"
		}
		hdr.Set("User-Agent", ua)
	}
	f := lifecycle.NewFetcher(cfg.fetcherConfig(true))
	defer f.Close()
	r, err := f.Fetch(ctx, o, hdr, nil, 1)
	if err != nil {
		return nil, err
	}
	return robotsOf(r), nil
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
	return o.RobotsURL(), nil
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
		if !useragent.IsToken(token) && token != "*" {
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
	v = decide(r.Outcome, r.Policy.engine(), token, path, mode, r.Err)
	if v.Reason == ReasonUnreachable && !v.Allowed {
		v.RetryAt = r.Expires
	}
	if e := r.Policy.engine(); v.Allowed && r.Outcome == OutcomeOK && e.HasUsage() {
		v.Usage = Usage{e.UsageFor(e.Select(token), path)}
	}
	return v
}

// decide applies the outcome table to one request path, with p's rules
// when the outcome is OK; fetchErr is the fetch's error, reported for
// unreachable outcomes.
func decide(out Outcome, p *robotstxt.Policy, token, path string, mode FailMode, fetchErr error) (v Verdict) {
	if path == "/robots.txt" {
		return Verdict{Allowed: true, Reason: ReasonRobotsTxt}
	}
	switch out {
	case OutcomeOK:
		setVerdict(&v, p, p.Decide(p.Select(token), path))
		return v
	case OutcomeUnavailable:
		return Verdict{Allowed: true, Reason: ReasonUnavailable}
	case OutcomeUnauthorized:
		return Verdict{Allowed: false, Reason: ReasonUnauthorized}
	}
	return Verdict{Allowed: mode == FailOpen, Reason: ReasonUnreachable, Err: fetchErr}
}

// fetcherConfig is the configuration of the robots.txt requests; keepBody
// keeps each body in Robots.Body.
func (cfg *config) fetcherConfig(keepBody bool) lifecycle.FetcherConfig {
	return lifecycle.FetcherConfig{
		Client: cfg.client, Transport: cfg.signTransport, // webbotauth.go
		Timeout: cfg.timeout, TTL: cfg.ttl, MaxTTL: MaxCacheTTL,
		MaxRedirects: MaxRedirects, MaxBodySize: MaxBodySize,
		Concurrency:  cfg.fetchConcurrency,
		AuthDisallow: cfg.authDisallow,
		KeepBody:     keepBody,
		Now:          cfg.now,
		RetryAfter:   pacing.ParseRetryAfter,
		Errors: lifecycle.Errors{
			Unreachable: ErrUnreachable, InvalidURL: ErrInvalidURL,
			TooManyRedirects: ErrTooManyRedirects, RedirectNotHTTP: ErrRedirectNotHTTP,
			Local: ErrLocal, Status: statusError,
		},
		// WithWebBotAuth could not sign: nothing was sent.
		IsLocal: func(err error) bool { return errors.Is(err, webbotauth.ErrSign) },
	}
}

// statusError is the Robots.Err of an answer whose status makes it
// unreachable.
func statusError(url string, code int) error { return &StatusError{URL: url, StatusCode: code} }

// robotsOf is the public form of an answer.
func robotsOf(r *lifecycle.Robots) *Robots {
	return &Robots{
		URL: r.URL, FinalURL: r.FinalURL, Redirects: r.Redirects, Status: r.Status,
		Outcome: r.Outcome, Policy: policyOf(r.Policy), Err: r.Err,
		Size: r.Size, Truncated: r.Truncated, NotModified: r.NotModified,
		FetchedAt: r.FetchedAt, Expires: r.Expires, RetryAfter: r.RetryAfter,
		ETag: r.ETag, LastModified: r.LastModified, Body: r.Body,
	}
}
