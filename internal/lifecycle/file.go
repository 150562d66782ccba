package lifecycle

// This file fetches another file of an origin's protocols, such as
// TDMRep's /.well-known/tdmrep.json, as the robots.txt request goes out:
// the same client (its redirect rules and wrapped transport), the same
// fetch slots and timeout. What the answer means is the caller's; how long
// it stays fresh, and how long an origin that did not answer is left
// alone, are worked out as for robots.txt.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/robotsext/robotsext/internal/redact"
)

// FileAnswer is one fetch of a file other than robots.txt.
type FileAnswer struct {
	// URL is the URL requested.
	URL string
	// Status is the final HTTP status, 0 when there was no answer.
	Status int
	// Body is the body of a 2xx answer: at most limit+1 octets, so that
	// more than limit means the file was longer.
	Body []byte
	// Err says why there was no usable answer: a network error, a
	// timeout or a body cut short (wrapping Errors.Unreachable), or a
	// redirect the robots.txt rules refuse (wrapping
	// Errors.TooManyRedirects or Errors.RedirectNotHTTP).
	Err error
	// FetchedAt is when the request was sent.
	FetchedAt time.Time
	// Fresh is how long an answer with a status stays fresh, as for
	// robots.txt: its Cache-Control or Expires within
	// FetcherConfig.MaxTTL, else FetcherConfig.TTL.
	Fresh time.Duration
	// RetryAfter is the answer's Retry-After, capped; 0 when absent.
	RetryAfter time.Duration
}

// FetchFile requests the file at path (starting with '/') of o, with hdr
// as the request's header (see RequestHeader; it must not be shared),
// reading at most limit+1 octets of a 2xx body. Every answer of the
// origin, errors included, is reported in the FileAnswer. The error is
// non-nil only when ctx ends first, or wraps Errors.Local when this
// machine could not make the request.
func (f *Fetcher) FetchFile(ctx context.Context, o Origin, path string, hdr http.Header, limit int) (*FileAnswer, error) {
	cfg := &f.cfg
	a := &FileAnswer{URL: (&url.URL{Scheme: o.Scheme(), Host: o.Host, Path: path}).String()}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sl, err := f.slots.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer sl.release()
	a.FetchedAt = cfg.Now()
	tctx := ctx
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		tctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	req, err := http.NewRequestWithContext(tctx, http.MethodGet, a.URL, nil)
	if err != nil {
		a.Err = fmt.Errorf("%w: %w: %v", cfg.Errors.Unreachable, cfg.Errors.InvalidURL, err)
		return a, nil
	}
	req.Header = hdr
	if h := hdr.Get("Host"); h != "" {
		req.Host = h
	}
	resp, err := f.client.Do(req)
	sl.answered(err == nil)
	if err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case f.isLocal(err):
			return nil, &localError{cfg.Errors.Local, err}
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = redact.RawURL(ue.URL)
		}
		if errors.Is(err, cfg.Errors.TooManyRedirects) || errors.Is(err, cfg.Errors.RedirectNotHTTP) {
			a.Err = err
		} else {
			a.Err = fmt.Errorf("%w: %w", cfg.Errors.Unreachable, err)
		}
		return a, nil
	}
	defer resp.Body.Close()
	a.RetryAfter = f.retryAfter(resp.Header.Get("Retry-After"), a.FetchedAt)
	if s := resp.StatusCode; s >= 200 && s < 300 {
		body, err := io.ReadAll(io.LimitReader(resp.Body, int64(limit)+1))
		if err != nil {
			switch {
			case ctx.Err() != nil:
				return nil, ctx.Err()
			case f.isLocal(err):
				return nil, &localError{cfg.Errors.Local, err}
			}
			a.Err = fmt.Errorf("%w: reading the body: %w", cfg.Errors.Unreachable, err)
			return a, nil
		}
		a.Body = body
	}
	a.Status = resp.StatusCode
	a.Fresh = lifetime(resp.Header, a.FetchedAt, cfg.TTL, cfg.MaxTTL)
	return a, nil
}
