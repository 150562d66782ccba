// Package mockhttp holds the httpmock helpers and the settable clock that
// the root package's and internal/lifecycle's tests share: a client on a
// fresh mock transport, responders of a status with headers and a body, a
// redirect, one that answers only when the request's context ends. It is
// for tests only.
package mockhttp

import (
	"net/http"
	"sync"
	"time"

	"github.com/jarcoal/httpmock"
)

// Clock is a settable time source, safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a Clock at a fixed instant (2025-03-01 12:00 UTC), so
// that the tests' dates do not depend on when they run.
func NewClock() *Clock { return ClockAt(time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)) }

// ClockAt returns a Clock at t.
func ClockAt(t time.Time) *Clock { return &Clock{t: t} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// Mock returns a client on a fresh mock transport.
func Mock() (*httpmock.MockTransport, *http.Client) {
	mt := httpmock.NewMockTransport()
	return mt, &http.Client{Transport: mt}
}

// Respond builds a responder with a status, a body and headers given as
// name, value pairs.
func Respond(status int, body string, kv ...string) httpmock.Responder {
	return func(req *http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(status, body)
		for i := 0; i+1 < len(kv); i += 2 {
			resp.Header.Add(kv[i], kv[i+1])
		}
		resp.Request = req
		return resp, nil
	}
}

// Redirect builds a responder of a 301 to the URL to.
func Redirect(to string) httpmock.Responder {
	return Respond(http.StatusMovedPermanently, "", "Location", to)
}

// WaitForCancel is a responder that answers only when the request's
// context ends, with the context's error.
func WaitForCancel(req *http.Request) (*http.Response, error) {
	<-req.Context().Done()
	return nil, req.Context().Err()
}
