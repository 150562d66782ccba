package lifecycle

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/robotsext/robotsext/internal/mockhttp"
)

// Helpers of the package's tests: httpmock transports (one per test,
// never the global one), a hand-moved clock, and the errors the root
// package would hand over, as constants of the test's own.

const (
	testOrigin = "http://a.test"
	testRobots = testOrigin + "/robots.txt"
	testRules  = "User-agent: *\nDisallow: /private\n"
)

// testHost is testOrigin's Origin.
var testHost = Origin{Host: "a.test"}

// The errors of testErrors.
const (
	errUnreachable      failure = "test: unreachable"
	errInvalidURL       failure = "test: invalid URL"
	errTooManyRedirects failure = "test: too many redirects"
	errRedirectNotHTTP  failure = "test: redirect to a non-http URL"
	errLocal            failure = "test: local error"
)

// statusError is testErrors' error of an unreachable status.
type statusError struct {
	url  string
	code int
}

func (e *statusError) Error() string            { return fmt.Sprintf("%s answered HTTP %d", e.url, e.code) }
func (e *statusError) Is(target error) bool     { return target == errUnreachable }
func newStatusError(url string, code int) error { return &statusError{url, code} }

// testErrors are the errors the tests' Fetchers hand out.
func testErrors() Errors {
	return Errors{
		Unreachable: errUnreachable, InvalidURL: errInvalidURL,
		TooManyRedirects: errTooManyRedirects, RedirectNotHTTP: errRedirectNotHTTP,
		Local: errLocal, Status: newStatusError,
	}
}

// The tests' settable clock and HTTP mocks are internal/mockhttp's.
type clock = mockhttp.Clock

var (
	newClock      = mockhttp.NewClock
	mock          = mockhttp.Mock
	respond       = mockhttp.Respond
	redirect      = mockhttp.Redirect
	waitForCancel = mockhttp.WaitForCancel
)

// stallBody yields data, then blocks until ctx ends.
type stallBody struct {
	ctx  context.Context
	data []byte
}

func (b *stallBody) Read(p []byte) (int, error) {
	if len(b.data) > 0 {
		n := copy(p, b.data)
		b.data = b.data[n:]
		return n, nil
	}
	<-b.ctx.Done()
	return 0, b.ctx.Err()
}

func (b *stallBody) Close() error { return nil }

// seconds reads a Retry-After of delay seconds, the only form the tests
// send (the root package reads dates too).
func seconds(v string, _ time.Time) (time.Duration, bool) {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 0, false
	}
	return time.Duration(n) * time.Second, true
}

// fetcherConfig is the root package's default configuration, on cl and
// clk, without a timeout of its own: no test's outcome may depend on how
// fast the machine runs it.
func fetcherConfig(cl *http.Client, clk *clock) FetcherConfig {
	return FetcherConfig{
		Client: cl, TTL: 24 * time.Hour, MaxTTL: 24 * time.Hour,
		MaxRedirects: 5, MaxBodySize: 500 << 10, Concurrency: 32,
		Now: clk.Now, RetryAfter: seconds, Errors: testErrors(),
	}
}

// fetch fetches testRobots once with cfg, failing the test on an error.
func fetch(t *testing.T, cfg FetcherConfig) *Robots {
	t.Helper()
	f := NewFetcher(cfg)
	defer f.Close()
	r, err := f.Fetch(context.Background(), testHost, RequestHeader(nil), nil, 1)
	if err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	return r
}

// lifetimeOf is how long an answer stays fresh.
func lifetimeOf(r *Robots) time.Duration { return r.Expires.Sub(r.FetchedAt) }
