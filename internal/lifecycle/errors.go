package lifecycle

// This file holds the errors an answer carries. The values callers test
// for with errors.Is and errors.As are the root package's (ErrUnreachable,
// ErrLocal, *StatusError, ...), handed over in Errors; the types here
// wrap them.

// Errors are the error values the answers of a Fetcher and a Cache carry,
// so that their callers can tell them apart with errors.Is and errors.As.
// They are the root package's public errors; every field must be set.
type Errors struct {
	// Unreachable is wrapped by the error of every unreachable answer.
	Unreachable error
	// InvalidURL is wrapped, with Unreachable, by the error of a request
	// net/http could not make from an origin's robots.txt URL.
	InvalidURL error
	// TooManyRedirects and RedirectNotHTTP are the errors of an answer
	// made unavailable by its redirects: more than MaxRedirects, or one
	// to a URL that is not http or https.
	TooManyRedirects error
	RedirectNotHTTP  error
	// Local is wrapped by the error of a fetch this machine could not
	// make: descriptors, buffers or ports ran out, or FetcherConfig.IsLocal
	// named the error.
	Local error
	// Status makes the error of an answer whose status makes it
	// unreachable: 5xx, 429, or a code outside 100–599.
	Status func(url string, code int) error
}

// localError wraps an error of this machine so that errors.Is(err,
// Errors.Local) holds while the cause stays visible.
type localError struct {
	local error // Errors.Local
	err   error
}

func (e *localError) Error() string {
	return "robotsext: robots.txt not fetched (local error): " + e.err.Error()
}

// Unwrap returns Errors.Local and the cause.
func (e *localError) Unwrap() []error { return []error{e.local, e.err} }

// storedError is a fetch error read back from a Backend: only its text
// travels (a status error is rebuilt with Errors.Status instead), and, as
// for the error it stands for, errors.Is(err, Errors.Unreachable) holds
// for an unreachable answer.
type storedError struct {
	msg         string
	unreachable error // Errors.Unreachable for an unreachable answer, else nil
}

func (e *storedError) Error() string { return e.msg }

// Is makes errors.Is(err, Errors.Unreachable) true for unreachable answers.
func (e *storedError) Is(target error) bool {
	return e.unreachable != nil && target == e.unreachable
}

// failure is an error of the package's own, a constant: the package keeps
// no variables.
type failure string

func (f failure) Error() string { return string(f) }

const (
	// errBackend marks a Backend failure, after which the Cache fetches
	// locally.
	errBackend failure = "robotsext: backend failed"
	// errLeaseStuck is the Backend failure of a robots.txt lease that
	// another worker held, renewed or took again for longer than a fetch
	// can take.
	errLeaseStuck failure = "robots.txt lease held elsewhere for longer than a fetch can take"
)
