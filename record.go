package robotsext

// This file converts between what a Backend stores (Record, Answer: plain
// values with the raw body) and what the Extension decides from (entry,
// Robots: parsed policies). It applies the same stale-copy and backoff
// rules as newEntry in cache.go.

import (
	"time"

	"github.com/robotsext/robotsext/backend"
)

// answerOf is r as a Record keeps it; body is the raw robots.txt of an OK
// answer (for a 304, the body of the copy it confirmed).
func answerOf(r *Robots, body []byte) backend.Answer {
	a := backend.Answer{
		URL: r.URL, FinalURL: r.FinalURL, Redirects: r.Redirects, Status: r.Status,
		Outcome: r.Outcome, Truncated: r.Truncated, NotModified: r.NotModified,
		FetchedAt: r.FetchedAt, Expires: r.Expires, RetryAfter: r.RetryAfter,
		ETag: r.ETag, LastModified: r.LastModified,
	}
	if r.Err != nil {
		a.Err = r.Err.Error()
	}
	if r.Outcome == OutcomeOK {
		a.Body = body
	}
	return a
}

// robotsOf rebuilds a Robots from a stored answer, parsing its body.
func robotsOf(a *backend.Answer) *Robots {
	outcome := a.Outcome
	r := &Robots{
		URL: a.URL, FinalURL: a.FinalURL, Redirects: a.Redirects, Status: a.Status,
		Outcome: outcome, Truncated: a.Truncated, NotModified: a.NotModified,
		FetchedAt: a.FetchedAt, Expires: a.Expires, RetryAfter: a.RetryAfter,
		ETag: a.ETag, LastModified: a.LastModified, Size: len(a.Body),
	}
	switch {
	case outcome == OutcomeUnreachable && (a.Status == 429 || a.Status >= 500 || (a.Status > 0 && a.Status < 200)):
		r.Err = &StatusError{URL: a.URL, StatusCode: a.Status}
	case a.Err != "":
		r.Err = &storedError{msg: a.Err, unreachable: outcome == OutcomeUnreachable}
	}
	if outcome == OutcomeOK {
		r.Policy = ParsePolicy(a.Body)
	}
	return r
}

// storedError is a fetch error read back from a Backend: only its text
// travels (a status error is rebuilt as a *StatusError instead), and, as
// for the error it stands for, errors.Is(err, ErrUnreachable) holds for an
// unreachable answer.
type storedError struct {
	msg         string
	unreachable bool
}

func (e *storedError) Error() string { return e.msg }

// Is makes errors.Is(err, ErrUnreachable) true for unreachable answers.
func (e *storedError) Is(target error) bool { return e.unreachable && target == ErrUnreachable }

// goodAnswer returns the record's good answer (Latest when good, else
// Good), or nil.
func goodAnswer(rec *backend.Record) *backend.Answer {
	if rec == nil {
		return nil
	}
	if rec.Latest.Outcome == OutcomeOK {
		return &rec.Latest
	}
	return rec.Good
}

// nextRecord combines a fetch with the record it replaces (nil if none),
// as newEntry combines entries: a good copy confirmed within MaxStale keeps
// deciding while the origin is unreachable.
func nextRecord(prev *backend.Record, r *Robots, body []byte) *backend.Record {
	if r.NotModified {
		if g := goodAnswer(prev); g != nil {
			body = g.Body
		}
	}
	rec := &backend.Record{Latest: answerOf(r, body), Expires: r.Expires}
	switch r.Outcome {
	case OutcomeOK:
		rec.GoodAt = r.FetchedAt
	case OutcomeUnreachable:
		rec.Failures = 1
		if prev != nil {
			rec.Failures = prev.Failures + 1
			if g := goodAnswer(prev); g != nil && r.FetchedAt.Sub(prev.GoodAt) <= MaxStale {
				rec.Good, rec.GoodAt = g, prev.GoodAt
				if end := prev.GoodAt.Add(MaxStale); end.Before(rec.Expires) {
					rec.Expires = end
				}
			}
		}
	}
	return rec
}

// entryOf builds the entry a record puts in force. latest, when not nil,
// is the Robots the record's Latest was made from (with its policy already
// parsed and its error intact); otherwise it is rebuilt from the record.
func entryOf(o origin, rec *backend.Record, latest *Robots) *entry {
	if latest == nil {
		latest = robotsOf(&rec.Latest)
	}
	en := &entry{origin: o, robots: latest, outcome: latest.Outcome, expires: rec.Expires, failures: rec.Failures}
	switch {
	case latest.Outcome == OutcomeOK:
		en.policy, en.good, en.goodAt = latest.Policy, latest, rec.GoodAt
	case latest.Outcome == OutcomeUnreachable && rec.Good != nil:
		good := robotsOf(rec.Good)
		en.outcome, en.policy, en.stale = OutcomeOK, good.Policy, true
		en.good, en.goodAt = good, rec.GoodAt
	}
	en.size = entrySize(en)
	return en
}

// fresh reports whether rec may be used as it is at now.
func fresh(rec *backend.Record, now time.Time) bool {
	return rec != nil && now.Before(rec.Expires)
}
