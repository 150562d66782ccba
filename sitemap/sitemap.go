package sitemap

import (
	"errors"
	"fmt"
	"time"
)

// Entry is one page a sitemap lists.
type Entry struct {
	// Loc is the page's URL as the sitemap wrote it, trimmed of spaces,
	// its path's dot segments ("..", "%2e%2e") resolved.
	Loc string
	// LastMod is when the page last changed, by the sitemap's claim
	// (<lastmod>, RSS <pubDate>, Atom <updated>), in UTC; zero when there
	// was none or it could not be read. LastModText is the text as
	// written.
	LastMod     time.Time
	LastModText string
	// Alternates are the page's other language versions (<xhtml:link
	// rel="alternate" hreflang="…" href="…">), in the sitemap's order, at
	// most MaxAlternates.
	Alternates []Alternate
	// Sitemap is the URL of the sitemap that listed the page.
	Sitemap string
}

// Alternate is one language version of a page.
type Alternate struct {
	Hreflang string // a BCP 47 language tag, or "x-default"
	Href     string // the version's URL
}

// The protocol's bounds of one sitemap file (sitemaps.org): 50,000 URLs
// and 50 MiB uncompressed.
const (
	MaxFileURLs  = 50_000
	MaxFileBytes = 50 << 20
)

// The default bounds of one read, and those of an entry.
const (
	DefaultMaxDepth    = 3         // indexes nested under the sitemap read first
	DefaultMaxSitemaps = 1_000     // sitemap files fetched
	DefaultMaxEntries  = 1_000_000 // page entries yielded
	MaxLocBytes        = 2_048     // the protocol's bound of one URL; a longer one is a bad entry
	MaxAlternates      = 256       // alternates kept per entry; more are dropped and counted
	// DefaultMaxFileTime bounds the time one file's fetch and read may
	// wait on its server in all (the consumer's time with the entries
	// aside): a server trickling a byte at a time holds a walk no longer.
	DefaultMaxFileTime = 5 * time.Minute
)

// Limits bounds what one read takes in. A zero (or negative) field takes
// its default.
type Limits struct {
	FileURLs  int   // entries read from one file (MaxFileURLs)
	FileBytes int64 // bytes read from one file, uncompressed (MaxFileBytes)
	Depth     int   // indexes nested under the first sitemap (DefaultMaxDepth)
	Sitemaps  int   // sitemap files fetched per read (DefaultMaxSitemaps)
	Entries   int   // page entries yielded per read (DefaultMaxEntries)
	// FileTime is the time one file may wait on its server in all
	// (DefaultMaxFileTime); WithTimeout bounds each wait.
	FileTime time.Duration
}

// Rules are how sitemaps are read: the Limits; KeepOutside, to yield the
// entries the location rule would drop (robots.txt still decides each
// page when it is visited); SkipUnchanged, not to yield the pages a page
// cache holds a copy of at least as recent as their LastMod.
type Rules struct {
	Limits
	KeepOutside   bool
	SkipUnchanged bool
}

// Sentinel errors, for errors.Is.
var (
	// ErrLimit: a bound was reached (a file's URLs or bytes, the nesting
	// of indexes, the sitemaps or entries of a read); what lies past it
	// was not read. A *LimitError says which.
	ErrLimit = errors.New("sitemap: limit reached")
	// ErrLoop: an index listed itself or an index that leads to it; it
	// is not read again. A sitemap reached again another way is not a
	// loop: it is counted in Counts.Duplicates.
	ErrLoop = errors.New("sitemap: listed again (index loop)")
	// ErrMalformed: the file is not a sitemap, or its XML or gzip stream
	// is broken; the entries before the break were yielded.
	ErrMalformed = errors.New("sitemap: malformed")
	// ErrNotFetched: the sitemap was not fetched (robots.txt or the
	// host's back-off refused it), or its answer was not a 2xx.
	ErrNotFetched = errors.New("sitemap: not fetched")
)

// LimitError is the error of a bound reached; it wraps ErrLimit.
type LimitError struct {
	URL   string // the sitemap being read, or the one not fetched
	Bound string // "file URLs", "file bytes", "token bytes", "file seconds", "depth", "sitemaps" or "entries"
	Limit int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("sitemap %s: %s limit %d reached; the rest is not read", e.URL, e.Bound, e.Limit)
}

// Unwrap returns ErrLimit.
func (e *LimitError) Unwrap() error { return ErrLimit }

// Counts is what reads did. Every entry and sitemap not yielded is
// counted in one of them.
type Counts struct {
	Sitemaps int // sitemap files fetched
	Failed   int // sitemap files that could not be fetched or read whole
	Entries  int // page entries yielded
	Outside  int // entries (and sitemaps of an index) dropped by the location rule
	Skipped  int // bad entries skipped (no or bad URL), and alternates (a bad href, past MaxAlternates)
	Loops    int // sitemaps an index lists that lead back to it (an index loop), not read again
	// Duplicates counts the sitemaps reached again another way (a
	// robots.txt naming an index and its sitemaps, two indexes listing
	// one), not read again: not an error.
	Duplicates int
	Cut        int // bounds reached (each also yielded as a *LimitError)
	// Unchanged counts the entries not yielded because a page cache holds
	// a copy as recent as their last change (Rules.SkipUnchanged).
	Unchanged int
}
