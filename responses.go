package robotsext

// This file counts what the crawl's page requests got back, by status
// class, for the Extension and per host: the record a polite crawler keeps
// of "the number of requests sent to each resource, and the respective
// HTTP status codes" (the Crawler Best Current Practice, §2.3).

import (
	"errors"
	"net/url"

	"github.com/gocolly/colly/v2"
	"github.com/robotsext/robotsext/internal/lifecycle"
	"github.com/robotsext/robotsext/internal/tally"
	"github.com/robotsext/robotsext/statusclass"
)

// StatusClass is the class of what a page request got back: no response
// at all, or the first digit of its HTTP status (statusclass.Class, where
// it reads in full). Its String is "none", "1xx", …, "5xx".
type StatusClass = statusclass.Class

// The StatusClass values. A status outside 100–599, which no standard
// defines, is counted in the nearest class.
const (
	NoResponse StatusClass = statusclass.None // the request went out and no response came
	Status1xx  StatusClass = statusclass.C1xx // the response's status was 100–199
	Status2xx  StatusClass = statusclass.C2xx
	Status3xx  StatusClass = statusclass.C3xx
	Status4xx  StatusClass = statusclass.C4xx
	Status5xx  StatusClass = statusclass.C5xx
)

// StatusClasses returns every StatusClass, in order: the metrics adapters
// report each from the start.
func StatusClasses() []StatusClass {
	return []StatusClass{NoResponse, Status1xx, Status2xx, Status3xx, Status4xx, Status5xx}
}

// classOf returns the class of an HTTP status.
func classOf(status int) StatusClass { return tally.Of(status) }

// responded counts what a page request to u got back (class), for the
// Extension and for u's host. Memory is bounded by the robots.txt cache:
// a host's counts are dropped with its last cached origin (lifecycle.go),
// and should a response come after that, once there are more hosts
// counted than twice the cache's origins the hosts none of whose origins
// is cached are dropped.
func (e *Extension) responded(u *url.URL, class StatusClass) {
	e.stats.responses[class].Add(1)
	if u == nil {
		return
	}
	o, err := originOf(u)
	if err != nil {
		return
	}
	if e.tallies.Add(o.Host, class) > 2*int64(e.cfg.cacheSize) {
		e.tallies.Sweep(e.hostCached)
	}
}

// hostCached reports whether an origin of host is in the robots.txt cache.
func (e *Extension) hostCached(host string) bool {
	return e.cache.Peek(lifecycle.Origin{Host: host}) != nil || e.cache.Peek(lifecycle.Origin{HTTPS: true, Host: host}) != nil
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
