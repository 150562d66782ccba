package backend

// This file holds the Record a Backend stores per origin, as plain values
// any backend can serialise.

import "time"

const (
	// MaxStale is how long a good robots.txt keeps deciding while its
	// origin is unreachable (RFC 9309 §2.4); robotsext.MaxStale is this.
	MaxStale = 30 * 24 * time.Hour
	// MaxBackoff is the longest wait before an unreachable robots.txt is
	// fetched again (the cap of the doubling backoff and of Retry-After).
	MaxBackoff = time.Hour
	// MinPaceKeep is how long a backend keeps a host's latest start at
	// least, whatever the delay it was given: a start recorded with a
	// delay of 0 (the robots.txt request) must still delay the first
	// page, whose delay the backend learns only then.
	MinPaceKeep = time.Minute
)

// Outcome classifies a robots.txt answer (RFC 9309 §2.3.1); robotsext
// documents each value and names the same type robotsext.Outcome.
type Outcome uint8

// The Outcomes, numbered as stored: a Backend keeps them as these numbers.
const (
	OutcomeUnreachable  Outcome = iota // 5xx, 429, network error, timeout, body cut short
	OutcomeOK                          // 2xx (or 304 on revalidation): the body is the rules
	OutcomeUnavailable                 // 4xx or too many redirects: no rules, all allowed
	OutcomeUnauthorized                // 401/403 read as "disallow all" (an option)
)

var outcomeText = [...]string{
	OutcomeUnreachable:  "unreachable",
	OutcomeOK:           "ok",
	OutcomeUnavailable:  "unavailable",
	OutcomeUnauthorized: "unauthorized",
}

// String returns "ok", "unavailable", "unreachable" or "unauthorized", or
// "unknown outcome" for a number no version defines (a corrupt record).
func (o Outcome) String() string {
	if int(o) < len(outcomeText) {
		return outcomeText[o]
	}
	return "unknown outcome"
}

// Record is what a Backend stores for one origin: its latest robots.txt
// answer and what the next fetch needs to know (the last good copy for
// stale use and revalidation, the failure count for backoff). It is a
// plain value that any backend can serialise; the robots.txt body is kept
// raw, so every reader parses it the same way and Verdict.Line stays right.
type Record struct {
	// Latest is the latest answer.
	Latest Answer
	// Good is the last good (2xx) answer while Latest is not one: it keeps
	// deciding while the origin is unreachable, until MaxStale after
	// GoodAt, and its validators make the next fetch conditional. Nil when
	// Latest is good or no good answer is known.
	Good *Answer
	// GoodAt is when the good answer (Latest when it is good, else Good)
	// was last fetched or confirmed by a 304; zero when there is none.
	GoodAt time.Time
	// Failures counts unreachable answers in a row, for the backoff.
	Failures int
	// Expires is when robots.txt should be fetched again.
	Expires time.Time
}

// Answer is one robots.txt fetch as a Record keeps it: Robots without the
// parsed Policy, with the error as text.
type Answer struct {
	URL          string
	FinalURL     string
	Redirects    int
	Status       int
	Outcome      Outcome
	Err          string // Robots.Err's text, "" when nil
	Body         []byte // the robots.txt parsed, for OutcomeOK; nil otherwise
	Truncated    bool
	NotModified  bool
	FetchedAt    time.Time
	Expires      time.Time
	RetryAfter   time.Duration
	ETag         string
	LastModified string
}

// KeepUntil is the time after which r is of no more use: its expiry, or,
// while it holds a good copy, the end of that copy's MaxStale window if
// later; a record of failures is kept an hour (the longest backoff) past
// its expiry, so that the next fetch still finds the count and the fleet
// doubles its backoff as one worker would. Backends may expire records
// then.
func (r *Record) KeepUntil() time.Time {
	t := r.Expires
	if r.Failures > 0 {
		t = t.Add(MaxBackoff)
	}
	if !r.GoodAt.IsZero() {
		if s := r.GoodAt.Add(MaxStale); s.After(t) {
			t = s
		}
	}
	return t
}

// Size estimates the bytes r occupies, bodies included, for backends
// that bound their memory.
func (r *Record) Size() int {
	n := 160 + r.Latest.size()
	if r.Good != nil {
		n += r.Good.size()
	}
	return n
}

func (a *Answer) size() int {
	return 200 + len(a.URL) + len(a.FinalURL) + len(a.Err) + len(a.Body) + len(a.ETag) + len(a.LastModified)
}
