package sitemap

// This file sends a sitemap's request and bounds its waits: for the
// response headers, and for each read of the body, so that a stalled
// server fails the read while a consumer that takes its time with the
// entries does not.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Get sends req through client and returns the body of a 2xx answer;
// another status is an error wrapping ErrNotFetched. answered is called
// with the response (nil on an error) as soon as its headers come. The
// wait for the headers and each read of the body are bounded by timeout
// (none when timeout ≤ 0): past it the request is cancelled.
func Get(client *http.Client, req *http.Request, timeout time.Duration, answered func(*http.Response)) (io.ReadCloser, error) {
	ctx, cancel := context.WithCancel(req.Context())
	t := time.AfterFunc(forever(timeout), cancel)
	resp, err := client.Do(req.WithContext(ctx))
	t.Stop()
	answered(resp)
	if err != nil {
		cancel()
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("%w: %s answered HTTP %d", ErrNotFetched, req.URL.Redacted(), resp.StatusCode)
	}
	return &idleBody{rc: resp.Body, t: t, d: forever(timeout), cancel: cancel}, nil
}

// forever is d, or a day for none.
func forever(d time.Duration) time.Duration {
	if d <= 0 {
		return 24 * time.Hour
	}
	return d
}

// idleBody is a response body whose every Read is bounded by d.
type idleBody struct {
	rc     io.ReadCloser
	t      *time.Timer // stopped between reads
	d      time.Duration
	cancel context.CancelFunc
}

func (b *idleBody) Read(p []byte) (int, error) {
	b.t.Reset(b.d)
	n, err := b.rc.Read(p)
	b.t.Stop()
	return n, err
}

func (b *idleBody) Close() error {
	b.t.Stop()
	b.cancel()
	return b.rc.Close()
}
