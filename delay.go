package robotsext

import (
	"context"
	"time"
)

// pacer turns each host's Crawl-delay / Request-rate into pacing.
// STUB: the interface the extension calls; the implementation lands with the
// Crawl-delay issue.
type pacer struct{}

// loaded is called each time an origin's robots.txt has been fetched (or
// re-fetched) for host (URL.Host form, "name:port" when a port is given):
// delay is Policy.CrawlDelay for our token (ok false: none), fetchedAt is
// when the robots.txt request was sent, which counts toward the host's pace.
func (pc *pacer) loaded(host string, delay time.Duration, ok bool, fetchedAt time.Time) {}

// wait blocks until a page request to host may be sent, or ctx is done.
// It is called from the OnRequest hook for requests that will go out.
func (pc *pacer) wait(ctx context.Context, host string) error { return nil }

// clamped reports how many Crawl-delays were clamped to the maximum.
func (pc *pacer) clamped() uint64 { return 0 }
