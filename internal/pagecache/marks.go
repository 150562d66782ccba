package pagecache

// This file is Marks: the requests the root answers without sending them
// (from this cache, or Colly's own), by the caller's request value, so
// that its later hooks skip the pace and the tallies for them. A mark
// belongs to the hop it was made for, named by its URL: a redirect the
// cache served is followed by a hop that goes out, whose response is not
// a local answer.

import (
	"net/http"
	"net/url"
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
	m sync.Map     // request → *pageMark or *collyMark
	n atomic.Int64 // the marks in m
}

// Kind is the local answer a marked request gets.
type Kind uint8

// The Kinds.
const (
	LocalPage  Kind = 1 // claimed from this cache
	LocalColly Kind = 2 // in Colly's own CacheDir
)

// A mark is the URL of the hop it answers (a pointer: that hop's, not an
// equal one) in the type of its Kind: an interface holds a pointer as it
// is, so a mark costs no allocation.
type (
	pageMark  url.URL
	collyMark url.URL
)

// Any reports whether some request is marked: one atomic load, for hooks
// that run for every request.
func (m *Marks) Any() bool { return m.n.Load() != 0 }

// Len returns how many requests are marked.
func (m *Marks) Len() int64 { return m.n.Load() }

// Mark marks request k, whose hop to u gets a local answer, with kind.
// Past MaxMarks, first it unmarks every request abandoned reports true
// for, after calling it.
func (m *Marks) Mark(k any, kind Kind, u *url.URL, abandoned func(k any) bool) {
	if m.n.Add(1) > MaxMarks {
		m.m.Range(func(k, _ any) bool {
			if abandoned(k) {
				m.Unmark(k)
			}
			return true
		})
	}
	if kind == LocalColly {
		m.m.Store(k, (*collyMark)(u))
	} else {
		m.m.Store(k, (*pageMark)(u))
	}
}

// Kind returns request k's mark.
func (m *Marks) Kind(k any) (Kind, bool) {
	v, ok := m.m.Load(k)
	if !ok {
		return 0, false
	}
	if _, colly := v.(*collyMark); colly {
		return LocalColly, true
	}
	return LocalPage, true
}

// Unmark forgets request k's mark, reporting whether it had one and the
// URL of the hop it was made for: one atomic load while none is marked.
func (m *Marks) Unmark(k any) (u *url.URL, ok bool) {
	if !m.Any() {
		return nil, false
	}
	v, ok := m.m.LoadAndDelete(k)
	if !ok {
		return nil, false
	}
	m.n.Add(-1)
	if u, colly := v.(*collyMark); colly {
		return (*url.URL)(u), true
	}
	return (*url.URL)(v.(*pageMark)), true
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
