package lifecycle

// This file holds an origin's entry, what decides for it now, and the rule
// that turns one answer plus the previous entry into the next entry
// (stale copies, backoff). record.go applies the same rule to records.

import (
	"time"

	"github.com/robotsext/robotsext/backend"
	"github.com/robotsext/robotsext/internal/robotstxt"
)

// Entry is the robots.txt in force for one origin. The Cache builds it
// from an answer or a record and installs it; it is never modified once
// installed, so it may be read without a lock (and must not be written).
// A fetch installs a new entry in its place.
type Entry struct {
	Origin   Origin
	Robots   *Robots           // the latest answer
	Outcome  backend.Outcome   // what decides: OutcomeOK while a stale copy is in force
	Policy   *robotstxt.Policy // the rules in force, nil unless Outcome is OutcomeOK
	Stale    bool              // Policy is the last good copy, kept while unreachable
	Good     *Robots           // the last good answer (validators for revalidation), or nil
	GoodAt   time.Time         // when Good was last fetched or confirmed by a 304
	Failures int               // unreachable answers in a row
	Override bool              // Config.Overridden covers the origin
	Expires  time.Time         // when to fetch again
	Size     int64             // bytes the entry retains, for Config.MaxBytes

	// Sel is Policy's groups for SelToken (the product token when the
	// entry was installed), resolved once, so that a check costs no group
	// lookup.
	Sel      robotstxt.Selection
	SelToken string

	// pins tells whether the origin is in use (pin.go); one per origin,
	// handed from entry to entry, set before the entry is published.
	pins *pins
}

// entryOverhead estimates what an entry and its Robots retain besides the
// policies: the structs, the URL strings and the LRU's bookkeeping.
const entryOverhead = 512

// entrySize estimates the bytes en retains: its policies (once each) and
// the fixed overhead.
func entrySize(en *Entry) int64 {
	n := int64(entryOverhead) + en.Policy.MemSize()
	if en.Good != nil && en.Good.Policy != en.Policy {
		n += en.Good.Policy.MemSize()
	}
	if en.Robots != nil {
		n += int64(len(en.Robots.URL) + len(en.Robots.FinalURL) + len(en.Robots.ETag) + len(en.Robots.LastModified))
	}
	return n
}

// newEntry combines an answer with the entry it replaces (nil if none).
// A good copy confirmed within backend.MaxStale keeps deciding while the
// origin is unreachable, until MaxStale has passed since it was last
// confirmed.
func newEntry(o Origin, prev *Entry, r *Robots) *Entry {
	e := &Entry{Origin: o, Robots: r, Outcome: r.Outcome, Expires: r.Expires}
	switch r.Outcome {
	case backend.OutcomeOK:
		e.Policy, e.Good, e.GoodAt = r.Policy, r, r.FetchedAt
	case backend.OutcomeUnreachable:
		e.Failures = 1
		if prev != nil {
			e.Failures = prev.Failures + 1
			if prev.Good != nil && r.FetchedAt.Sub(prev.GoodAt) <= backend.MaxStale {
				e.Outcome, e.Policy, e.Stale = backend.OutcomeOK, prev.Good.Policy, true
				e.Good, e.GoodAt = prev.Good, prev.GoodAt
				if end := prev.GoodAt.Add(backend.MaxStale); end.Before(e.Expires) {
					e.Expires = end
				}
			}
		}
	}
	e.Size = entrySize(e)
	return e
}
