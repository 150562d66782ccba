package pacing

import "strconv"

// Cause says why a host was paused. Its values are those of the root's
// PauseCause, which converts to and from it; its names (String) are the
// metrics labels of both.
type Cause uint8

const (
	// CauseTooManyRequests: the host answered 429 Too Many Requests.
	CauseTooManyRequests Cause = iota + 1
	// CauseUnavailable: the host answered 503 Service Unavailable.
	CauseUnavailable
	// CauseServerErrors: the host answered a run of other 5xx, or one
	// while it was being probed or recovering.
	CauseServerErrors
	// CauseProbeFailed: the probe sent when a pause ended failed without
	// an answer (a network error or timeout).
	CauseProbeFailed
	// CauseRateLimit: the host's RateLimit field said a quota policy has
	// no quota left (r=0), on an answer that was not a 429 or 503.
	CauseRateLimit
)

// MaxCauses bounds the causes counted (BackoffCounts.Pauses); Cause
// defines fewer.
const MaxCauses = 8

// String names the cause: "429", "503", "5xx_run", "probe_failed" or
// "ratelimit", short and stable label values; a cause this version does not define is
// "cause_N".
func (c Cause) String() string {
	switch c {
	case CauseTooManyRequests:
		return "429"
	case CauseUnavailable:
		return "503"
	case CauseServerErrors:
		return "5xx_run"
	case CauseProbeFailed:
		return "probe_failed"
	case CauseRateLimit:
		return "ratelimit"
	}
	return "cause_" + strconv.Itoa(int(c))
}
