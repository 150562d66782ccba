package pagecache

// This file is Marks: the requests the root answers without sending them
// (from this cache, or Colly's own), by the caller's request value, so
// that its later hooks skip the pace and the tallies for them.

import (
	"net/http"
	"sync"
	"sync/atomic"
)

// MaxMarks is how many requests may be marked before the marks of
// abandoned ones are swept: a callback may abort a marked request, and
// no hook then runs that would unmark it.
const MaxMarks = 4096

// Marks maps a request (any comparable value, the caller's) to the kind
// of local answer it gets. Its zero value is ready; it is safe for
// concurrent use.
type Marks struct {
	m sync.Map     // request → kind
	n atomic.Int64 // the marks in m
}

// Any reports whether some request is marked: one atomic load, for hooks
// that run for every request.
func (m *Marks) Any() bool { return m.n.Load() != 0 }

// Len returns how many requests are marked.
func (m *Marks) Len() int64 { return m.n.Load() }

// Mark marks request k with kind. Past MaxMarks, first it unmarks every
// request abandoned reports true for, after calling it.
func (m *Marks) Mark(k any, kind int, abandoned func(k any) bool) {
	if m.n.Add(1) > MaxMarks {
		m.m.Range(func(k, _ any) bool {
			if abandoned(k) {
				m.Unmark(k)
			}
			return true
		})
	}
	m.m.Store(k, kind)
}

// Kind returns request k's mark.
func (m *Marks) Kind(k any) (int, bool) {
	v, ok := m.m.Load(k)
	if !ok {
		return 0, false
	}
	return v.(int), true
}

// Unmark forgets request k's mark, reporting whether it had one.
func (m *Marks) Unmark(k any) bool {
	_, ok := m.m.LoadAndDelete(k)
	if ok {
		m.n.Add(-1)
	}
	return ok
}

// SentHeader is h as net/http sends it with the cookies of a jar (added
// after every hook, as Client.Do does): the header the Vary fields of a
// claimed entry are matched against.
func SentHeader(h http.Header, cookies []*http.Cookie) http.Header {
	if len(cookies) == 0 {
		return h
	}
	req := &http.Request{Header: h.Clone()}
	for _, ck := range cookies {
		req.AddCookie(ck)
	}
	return req.Header
}
