package robotsext

// This file counts what the crawl's page requests got back, by status
// class, for the Extension and per host: the record a polite crawler keeps
// of "the number of requests sent to each resource, and the respective
// HTTP status codes" (the Crawler Best Current Practice, §2.3).

import (
	"errors"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/lifecycle"
)

// StatusClass is the class of what a page request got back: no response
// at all, or the first digit of its HTTP status.
type StatusClass uint8

const (
	// NoResponse: the request went out and no response came (a network
	// error, a timeout, the crawl's context ending on the wire).
	NoResponse StatusClass = iota
	// Status1xx to Status5xx: the response's status was 100–199, …,
	// 500–599. A status outside 100–599, which no standard defines, is
	// counted in the nearest class.
	Status1xx
	Status2xx
	Status3xx
	Status4xx
	Status5xx
)

// numClasses is the number of StatusClass values.
const numClasses = int(Status5xx) + 1

// String names the class: "none", "1xx", "2xx", "3xx", "4xx" or "5xx",
// short and stable, the label values the metrics adapters use.
func (c StatusClass) String() string {
	switch c {
	case NoResponse:
		return "none"
	case Status1xx, Status2xx, Status3xx, Status4xx, Status5xx:
		return string([]byte{'0' + byte(c), 'x', 'x'})
	}
	return "class_" + strconv.Itoa(int(c))
}

// StatusClasses returns every StatusClass, in order: the metrics adapters
// report each from the start.
func StatusClasses() []StatusClass {
	return []StatusClass{NoResponse, Status1xx, Status2xx, Status3xx, Status4xx, Status5xx}
}

// classOf returns the class of an HTTP status.
func classOf(status int) StatusClass {
	return StatusClass(min(max(status/100, 1), 5))
}

// tallies counts the responses of each host. Memory is bounded by the
// robots.txt cache: a host's counts are dropped with its last cached
// origin (forgetResponses), and should a response come after that, once
// there are more hosts counted than twice the cache's origins the hosts
// none of whose origins is cached are dropped.
type tallies struct {
	hosts sync.Map     // origin.host → *tally
	n     atomic.Int64 // hosts in the map
	sweep sync.Mutex   // one sweep at a time
}

// tally is one host's counts, by StatusClass.
type tally [numClasses]atomic.Uint64

// responded counts what a page request to u got back (class), for the
// Extension and for u's host.
func (e *Extension) responded(u *url.URL, class StatusClass) {
	e.stats.responses[class].Add(1)
	if u == nil {
		return
	}
	o, err := originOf(u)
	if err != nil {
		return
	}
	if t, ok := e.tallies.hosts.Load(o.Host); ok {
		t.(*tally)[class].Add(1)
		return
	}
	t, loaded := e.tallies.hosts.LoadOrStore(o.Host, new(tally))
	t.(*tally)[class].Add(1)
	if !loaded && e.tallies.n.Add(1) > 2*int64(e.cfg.cacheSize) {
		e.sweepTallies()
	}
}

// sweepTallies drops the counts of hosts none of whose origins is cached.
func (e *Extension) sweepTallies() {
	if !e.tallies.sweep.TryLock() {
		return
	}
	defer e.tallies.sweep.Unlock()
	e.tallies.hosts.Range(func(k, _ any) bool {
		host := k.(string)
		if e.cache.Peek(lifecycle.Origin{Host: host}) == nil && e.cache.Peek(lifecycle.Origin{HTTPS: true, Host: host}) == nil {
			e.forgetResponses(host)
		}
		return true
	})
}

// forgetResponses drops host's counts.
func (e *Extension) forgetResponses(host string) {
	if _, ok := e.tallies.hosts.LoadAndDelete(host); ok {
		e.tallies.n.Add(-1)
	}
}

// hostResponses returns the counts of host, nil when none.
func (e *Extension) hostResponses(host string) map[StatusClass]uint64 {
	t, ok := e.tallies.hosts.Load(host)
	if !ok {
		return nil
	}
	return classCounts(t.(*tally))
}

// classCounts returns the classes counted in t, without those at 0.
func classCounts(t *tally) map[StatusClass]uint64 {
	m := map[StatusClass]uint64{}
	for i := range t {
		if n := t[i].Load(); n > 0 {
			m[StatusClass(i)] = n
		}
	}
	return m
}

// failedClass is the class of what a request that reached OnError
// without a response (err, no status) got back: ok is false when it is
// not to be counted here. A redirect Colly refused to follow (its target
// already visited, or outside its domain or URL filters: Colly checks
// them before any redirect handler runs) got a 3xx; a request the HTTP
// client failed otherwise got no response (NoResponse). Not counted: an
// abort before the wire, an abort after the headers (counted with them),
// a body that failed after its headers (counted with them), and a
// redirect hop this Extension's redirect handler refused, deferred, or
// that the handler it wraps refused (its redirect counted as 3xx there).
func failedClass(err error) (class StatusClass, ok bool) {
	var ue *url.Error
	var counted *hopError
	if !errors.As(err, &ue) || errors.As(err, &counted) || errors.Is(err, ErrBlocked) || errors.Is(err, ErrRedirectDeferred) {
		return 0, false
	}
	if collyRefusedHop(err) {
		return Status3xx, true
	}
	return NoResponse, true
}

// collyRefusedHop reports whether err, a *url.Error of the HTTP client,
// is Colly's redirect check refusing a hop: a response with a Location
// arrived, and Colly would not follow it.
func collyRefusedHop(err error) bool {
	var av *colly.AlreadyVisitedError
	return errors.As(err, &av) || errors.Is(err, colly.ErrForbiddenDomain) ||
		errors.Is(err, colly.ErrForbiddenURL) || errors.Is(err, colly.ErrNoURLFiltersMatch)
}

// hopError is the error of a redirect hop refused by the redirect handler
// WrapRedirectHandler wraps, whose redirect was counted: the same error,
// marked so that OnError does not count the request again as unanswered.
type hopError struct{ err error }

func (h *hopError) Error() string { return h.err.Error() }
func (h *hopError) Unwrap() error { return h.err }

// countedHop marks err, a redirect handler's refusal of a hop, as
// counted; nil, and this Extension's own refusals and deferrals (which
// failedClass knows), are returned as they are.
func countedHop(err error) error {
	if err == nil || errors.Is(err, ErrBlocked) || errors.Is(err, ErrRedirectDeferred) {
		return err
	}
	return &hopError{err}
}
