package lifecycle

// This file holds one answer, Robots: what a fetch of an origin's
// robots.txt got and what it means.

import (
	"time"

	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/internal/robotstxt"
)

// Robots is one fetch of an origin's robots.txt and what it means: the
// root package's Robots, with the engine's policy. The Cache does not
// modify an answer once it is installed, so it may be read without a
// lock.
type Robots struct {
	// URL is the robots.txt URL requested (Origin.RobotsURL).
	URL string
	// FinalURL is the URL of the last response after redirects, or ""
	// when there was no response.
	FinalURL string
	// Redirects counts the redirects followed.
	Redirects int
	// Status is the final HTTP status code, 0 when there was no response.
	Status int
	// Outcome classifies the answer (RFC 9309 §2.3.1).
	Outcome backend.Outcome
	// Policy is the parsed file when Outcome is OutcomeOK, else nil.
	Policy *robotstxt.Policy
	// Err explains an unreachable or unavailable outcome (see Errors);
	// nil otherwise.
	Err error
	// Size is the number of body bytes parsed; Truncated reports that the
	// body was longer than the limit and was cut at the last full line.
	Size      int
	Truncated bool
	// NotModified reports a 304 answer to a revalidation: Policy is the
	// previous one.
	NotModified bool
	// FetchedAt is when the request was sent, by the Fetcher's clock.
	FetchedAt time.Time
	// Expires is when the answer should be fetched again.
	Expires time.Time
	// RetryAfter is the response's Retry-After, capped at
	// backend.MaxBackoff; 0 when absent or in the past.
	RetryAfter time.Duration
	// ETag and LastModified are the validators used to revalidate.
	ETag         string
	LastModified string
	// Body is the robots.txt body that was parsed (after the size cut),
	// when the Fetcher keeps bodies (FetcherConfig.KeepBody); else nil.
	Body []byte
}
