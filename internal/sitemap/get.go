package sitemap

// This file sends a sitemap's request and bounds its waits: for the
// response headers, and for each read of the body, so that a stalled
// server fails the read while a consumer that takes its time with the
// entries does not; and the time spent waiting on the server for one
// file in all (the headers and every read, not the consumer's time), so
// that a server trickling a byte at a time cannot hold a walk for ever.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// Get sends req through client and returns the body of a 2xx answer;
// another status, or no answer, is an error wrapping ErrNotFetched.
// answered is called with the response (nil on an error) as soon as its
// headers come. The wait for the headers and each read of the body are
// bounded by timeout (none when timeout ≤ 0): past it the request is
// cancelled and the error wraps context.DeadlineExceeded. The time spent
// waiting on the server in all is bounded by fileTime (none when ≤ 0):
// past it a read fails with a *LimitError ("file seconds").
func Get(client *http.Client, req *http.Request, timeout, fileTime time.Duration, answered func(*http.Response)) (io.ReadCloser, error) {
	ctx, cancel := context.WithCancelCause(req.Context())
	b := &timedBody{url: req.URL.Redacted(), ctx: ctx, cancel: cancel, d: forever(timeout), left: forever(fileTime), fileTime: fileTime}
	err := b.timed(func() (err error) {
		b.resp, err = client.Do(req.WithContext(ctx))
		return err
	})
	answered(b.resp)
	if err != nil {
		cancel(nil)
		return nil, fmt.Errorf("%w: %s: %w", ErrNotFetched, b.url, b.cause(err, "no response"))
	}
	if b.resp.StatusCode/100 != 2 {
		b.resp.Body.Close()
		cancel(nil)
		return nil, fmt.Errorf("%w: %s answered HTTP %d", ErrNotFetched, b.url, b.resp.StatusCode)
	}
	return b, nil
}

// forever is d, or a day for none.
func forever(d time.Duration) time.Duration {
	if d <= 0 {
		return 24 * time.Hour
	}
	return d
}

// The causes a timedBody cancels its request with.
var (
	errIdle     = errors.New("sitemap: timeout")
	errFileTime = errors.New("sitemap: file time bound")
)

// timedBody is a response body whose every wait on the server is
// bounded by d, and all of them together by left.
type timedBody struct {
	url      string
	resp     *http.Response
	ctx      context.Context
	cancel   context.CancelCauseFunc
	d        time.Duration // each wait
	left     time.Duration // of the file's time
	fileTime time.Duration // as set, for its error
}

// timed runs f, which waits on the server, under the bounds.
func (b *timedBody) timed(f func() error) error {
	d, cause := b.d, errIdle
	if b.left < d {
		d, cause = max(b.left, 0), errFileTime
	}
	t := time.AfterFunc(d, func() { b.cancel(cause) })
	start := time.Now()
	err := f()
	t.Stop()
	b.left -= time.Since(start)
	return err
}

// cause is err, or the bound that cancelled the request; what says
// what was being waited for.
func (b *timedBody) cause(err error, what string) error {
	switch context.Cause(b.ctx) {
	case errIdle:
		return fmt.Errorf("%s within %v: %w", what, b.d, context.DeadlineExceeded)
	case errFileTime:
		return &LimitError{URL: b.url, Bound: "file seconds", Limit: int64(b.fileTime / time.Second)}
	}
	return err
}

func (b *timedBody) Read(p []byte) (n int, err error) {
	err = b.timed(func() (err error) {
		n, err = b.resp.Body.Read(p)
		return err
	})
	if err != nil && !errors.Is(err, io.EOF) {
		err = b.cause(err, "the body stalled: no bytes")
	}
	return n, err
}

// Final is the URL the body came from, the last redirect's.
func (b *timedBody) Final() *url.URL { return b.resp.Request.URL }

func (b *timedBody) Close() error {
	b.cancel(nil)
	return b.resp.Body.Close()
}
