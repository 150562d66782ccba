package lifecycle

// This file converts between what a Backend stores (backend.Record and
// backend.Answer: plain values with the raw body) and what the Cache
// decides from (Entry and Robots: parsed policies, error values). It
// applies the same stale-copy and backoff rules as newEntry in entry.go.

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
	if r.Outcome == backend.OutcomeOK {
		a.Body = body
	}
	return a
}

// robotsOf rebuilds a Robots from a stored answer, parsing its body; errs
// makes its error.
func robotsOf(a *backend.Answer, errs *Errors) *Robots {
	outcome := a.Outcome
	r := &Robots{
		URL: a.URL, FinalURL: a.FinalURL, Redirects: a.Redirects, Status: a.Status,
		Outcome: outcome, Truncated: a.Truncated, NotModified: a.NotModified,
		FetchedAt: a.FetchedAt, Expires: a.Expires, RetryAfter: a.RetryAfter,
		ETag: a.ETag, LastModified: a.LastModified, Size: len(a.Body),
	}
	switch {
	case outcome == backend.OutcomeUnreachable && (a.Status == 429 || a.Status >= 500 || (a.Status > 0 && a.Status < 200)):
		r.Err = errs.Status(a.URL, a.Status)
	case a.Err != "":
		se := &storedError{msg: a.Err}
		if outcome == backend.OutcomeUnreachable {
			se.unreachable = errs.Unreachable
		}
		r.Err = se
	}
	if outcome == backend.OutcomeOK {
		r.Policy = parse(a.Body)
	}
	return r
}

// goodAnswer returns the record's good answer (Latest when good, else
// Good), or nil.
func goodAnswer(rec *backend.Record) *backend.Answer {
	if rec == nil {
		return nil
	}
	if rec.Latest.Outcome == backend.OutcomeOK {
		return &rec.Latest
	}
	return rec.Good
}

// nextRecord combines an answer with the record it replaces (nil if
// none), as newEntry combines entries: a good copy confirmed within
// backend.MaxStale keeps deciding while the origin is unreachable.
func nextRecord(prev *backend.Record, r *Robots, body []byte) *backend.Record {
	if r.NotModified {
		if g := goodAnswer(prev); g != nil {
			body = g.Body
		}
	}
	rec := &backend.Record{Latest: answerOf(r, body), Expires: r.Expires}
	switch r.Outcome {
	case backend.OutcomeOK:
		rec.GoodAt = r.FetchedAt
	case backend.OutcomeUnreachable:
		rec.Failures = 1
		if prev != nil {
			rec.Failures = prev.Failures + 1
			if g := goodAnswer(prev); g != nil && r.FetchedAt.Sub(prev.GoodAt) <= backend.MaxStale {
				rec.Good, rec.GoodAt = g, prev.GoodAt
				if end := prev.GoodAt.Add(backend.MaxStale); end.Before(rec.Expires) {
					rec.Expires = end
				}
			}
		}
	}
	return rec
}

// entryOf builds the entry a record puts in force. latest, when not nil,
// is the Robots the record's Latest was made from (with its policy already
// parsed and its error intact); otherwise it is rebuilt from the record,
// its error made by errs.
func entryOf(o Origin, rec *backend.Record, latest *Robots, errs *Errors) *Entry {
	if latest == nil {
		latest = robotsOf(&rec.Latest, errs)
	}
	en := &Entry{Origin: o, Robots: latest, Outcome: latest.Outcome, Expires: rec.Expires, Failures: rec.Failures}
	switch {
	case latest.Outcome == backend.OutcomeOK:
		en.Policy, en.Good, en.GoodAt = latest.Policy, latest, rec.GoodAt
	case latest.Outcome == backend.OutcomeUnreachable && rec.Good != nil:
		good := robotsOf(rec.Good, errs)
		en.Outcome, en.Policy, en.Stale = backend.OutcomeOK, good.Policy, true
		en.Good, en.GoodAt = good, rec.GoodAt
	}
	en.Size = entrySize(en)
	return en
}

// fresh reports whether rec may be used as it is at now.
func fresh(rec *backend.Record, now time.Time) bool {
	return rec != nil && now.Before(rec.Expires)
}
