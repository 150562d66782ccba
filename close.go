package robotsext

// This file ends an Extension: Close, and the error of a request after it.

import "errors"

// ErrClosed is the error of a request, a redirect hop or a Check after
// Extension.Close: the request is refused (OnBlocked sees ReasonLocalError
// and a Verdict.Err for which errors.Is(err, ErrClosed) and
// errors.Is(err, ErrLocal) hold) and nothing is fetched.
var ErrClosed = errors.New("robotsext: the Extension is closed")

// closedError is the error of what reaches a closed Extension: ErrClosed,
// and ErrLocal, as this machine refused it.
type closedError struct{}

func (closedError) Error() string        { return ErrClosed.Error() }
func (closedError) Is(target error) bool { return target == ErrClosed || target == ErrLocal }

// Close stops what the Extension started: it closes the idle connections
// of its own robots.txt and tdmrep.json client (none of a client given
// with WithHTTPClient, which is yours), so that their goroutines end now
// rather than after 90 seconds idle. Requests in flight end as their
// contexts say (a robots.txt fetch in flight closes its connection when
// it ends), but a request held by WithDeferUnreachable is woken and
// refused with ErrClosed. Background reads of a Backend started by requests (a fleet's
// pauses, the purge log, a failing node's probe) end within their own
// bounds of a few seconds. After Close every request of an attached
// collector is refused at once with ErrClosed, never held nor sent; Check
// and Sitemaps fail the same way. Stats, Origin and the other reads keep
// working. The page cache keeps no file open between requests. Close
// does not close a Backend or a PageStore, which may be shared: close
// those yourself after the Extensions using them. Calling Close again
// does nothing and returns nil.
//
// Call it when the Extension's crawl is over and the process goes on: a
// service that builds an Extension per job. A program that crawls once and
// exits need not: its end closes everything.
func (e *Extension) Close() error {
	if e.closed.Swap(true) {
		return nil
	}
	e.closeAll() // held requests wake, and are refused
	e.cache.Fetcher().Close()
	return nil
}
