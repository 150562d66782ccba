package robotsext

// This file keeps a link refused for its page's sake reachable. Colly
// marks a URL visited in its storage (storage.Storage's Visited) before
// the OnRequest hook runs, so a URL the hook refuses as a link of a
// nofollow page would never be fetched afterwards: not when another page
// that allows following links to it, not even when the user visits it.
// Attach therefore puts a wrapper around the collector's storage, and a
// refusal made for the page's sake (nofollow, rel="nofollow", a page
// whose own usage preferences refuse the crawl) makes the wrapper forget
// the mark once: the next IsVisited of the URL answers false, and the
// Visited that follows it records the URL in the collector's storage as
// Colly always does. A URL refused for itself (robots.txt, its own usage
// preferences) stays marked, as without robotsext.
//
// Colly keeps the storage in an unexported field and offers no getter, so
// the wrapper is put in place by reflection on that field; SetStorage is
// not used, as it would also replace the collector's cookie jar.
// Collectors that share one storage share one wrapper, however they were
// made: c.Clone() copies the field, wrapper or not, so a clone made
// before Attach is given the wrapper of the storage it holds. A Colly
// whose Collector keeps its storage elsewhere gets no wrapper, and
// refused links stay marked; the Extension says so once at Warn
// (TestVisitsStorageField guards the version in go.mod).

import (
	"hash/fnv"
	"io"
	"reflect"
	"unsafe"

	"github.com/gocolly/colly/v2"
	"github.com/gocolly/colly/v2/storage"
	"github.com/robotsext/robotsext/internal/marks"
)

// visitStore is the storage Attach gives a collector: the collector's
// own, with a set of visit marks to forget. Every method but IsVisited
// and Visited is the collector's storage's; those two go straight to it
// too, after one atomic load, until a mark is forgotten.
type visitStore struct {
	storage.Storage // the collector's storage, as it was at Attach

	ext *Extension // the Extension that put it in place

	forgotten marks.Forgotten // the marks to forget, at most marks.Max
}

// IsVisited answers false for a forgotten mark, and asks the collector's
// storage otherwise.
func (s *visitStore) IsVisited(id uint64) (bool, error) {
	if s.forgotten.Has(id) {
		return false, nil
	}
	return s.Storage.IsVisited(id)
}

// Visited records id in the collector's storage and drops it from the
// forgotten marks: the URL is being requested again.
func (s *visitStore) Visited(id uint64) error {
	s.forgotten.Remember(id)
	return s.Storage.Visited(id)
}

// storageField returns the address of c's storage, or nil when this
// version of Colly does not keep it in a field named store of type
// storage.Storage.
func storageField(c *colly.Collector) *storage.Storage {
	f := reflect.ValueOf(c).Elem().FieldByName("store")
	if !f.IsValid() || f.Type() != reflect.TypeFor[storage.Storage]() {
		return nil
	}
	return (*storage.Storage)(unsafe.Pointer(f.UnsafeAddr()))
}

// attachVisits puts a visitStore around c's storage and records it for
// c. Collectors that share one storage share one wrapper: a clone made
// after Attach finds the wrapper in its storage field, and a clone made
// before it (which holds the storage the wrapper wraps) is given that
// wrapper, so that a mark forgotten for one is forgotten for all. When
// it cannot wrap (a Colly that keeps its storage elsewhere) or cannot
// tell whether a storage is shared (one of a type Go cannot compare), it
// says so once at Warn. Attach calls it with attachMu held. prev is the
// other Extension whose wrapper c's storage is, if any.
func (e *Extension) attachVisits(c *colly.Collector) (prev *Extension) {
	p := storageField(c)
	if p == nil {
		e.warnVisits("this version of Colly keeps the collector's storage where robotsext cannot find it", "")
		return nil
	}
	if *p == nil {
		return nil // no storage: Colly marks nothing
	}
	w, ok := (*p).(*visitStore)
	if ok && w.ext != e {
		prev = w.ext
	}
	if !ok || w.ext != e {
		w = e.wrapperOf(*p)
		*p = w
	}
	if e.visits == nil {
		e.visits = make(map[*colly.Collector]*visitStore)
	}
	e.visits[c] = w
	return prev
}

// wrapperOf returns the wrapper of e around s, made for a collector
// attached before that shares s with the one being attached (c.Clone()
// before Apply), or a new one. Attach calls it with attachMu held.
func (e *Extension) wrapperOf(s storage.Storage) *visitStore {
	t := reflect.TypeOf(s)
	for _, w := range e.visits {
		if reflect.TypeOf(w.Storage) != t {
			continue
		}
		if !t.Comparable() {
			e.warnVisits("the collectors' storage is of a type ("+t.String()+") Go cannot compare, and robotsext cannot tell whether two collectors share it",
				"make the storage a pointer type")
			break
		}
		if w.Storage == s {
			return w
		}
	}
	return &visitStore{Storage: s, ext: e}
}

// warnVisits says, once per Extension, that links refused for their
// page's sake may stay marked visited in some collector, why, and what
// to do about it (advice; "" when nothing can be done).
func (e *Extension) warnVisits(why, advice string) {
	if e.storageWarned.CompareAndSwap(false, true) {
		msg := "robotsext: " + why + ", so a link refused for its page's sake (nofollow, rel=\"nofollow\", the page's own usage preferences) " +
			"may stay marked visited and not be fetched when another page links to it or it is visited"
		if advice != "" {
			msg += "; " + advice
		}
		e.cfg.logger.Warn(msg)
	}
}

// forgetVisit makes c forget that r's URL was visited, so that the URL
// can be fetched when it is found again: r was refused for its page's
// sake. It does nothing when c revisits URLs anyway, when Colly marked
// nothing for r (a request other than GET without a body Colly can read
// again), or when c's storage is no longer the wrapper Attach put in
// place (c.SetStorage after Apply: logged once).
func (e *Extension) forgetVisit(c *colly.Collector, r *colly.Request) {
	if c == nil || c.AllowURLRevisit || r.URL == nil {
		return
	}
	e.attachMu.Lock()
	w := e.visits[c]
	e.attachMu.Unlock()
	if w == nil {
		return
	}
	if p := storageField(c); p == nil || *p != storage.Storage(w) {
		e.warnVisits("the collector's storage was replaced after Attach (c.SetStorage)", "call c.SetStorage before Apply or Attach")
		return
	}
	if id, ok := e.visitKey(r); ok {
		w.forgotten.Forget(id)
	}
}

// visitKey is the key Colly's requestCheck stored for r: the FNV-1a hash
// of its URL as Colly normalises it (WHATWG parsing, which e.urls does
// alike), then of its body. ok is false when Colly stored none: a request
// other than GET whose body it cannot read again.
func (e *Extension) visitKey(r *colly.Request) (id uint64, ok bool) {
	var body io.ReadSeeker
	if r.Body != nil {
		rs, seekable := r.Body.(io.ReadSeeker)
		if !seekable {
			return 0, false
		}
		body = rs
	} else if r.Method != "GET" {
		return 0, false
	}
	u := r.URL.String()
	if w, err := e.urls.Parse(u); err == nil {
		u = w.String()
	}
	h := fnv.New64a()
	io.WriteString(h, u)
	if body != nil {
		pos, err := body.Seek(0, io.SeekCurrent)
		if err != nil {
			return 0, false
		}
		if _, err := body.Seek(0, io.SeekStart); err != nil {
			return 0, false
		}
		_, err = io.Copy(h, body)
		if _, serr := body.Seek(pos, io.SeekStart); err != nil || serr != nil {
			return 0, false
		}
	}
	return h.Sum64(), true
}
