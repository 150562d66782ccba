package sitemap

import (
	"errors"
	"fmt"
)

// The protocol's bounds of one sitemap file (sitemaps.org): 50,000 URLs
// and 50 MiB uncompressed.
const (
	MaxFileURLs  = 50_000
	MaxFileBytes = 50 << 20
)

// The Walker's default bounds of one walk.
const (
	DefaultMaxDepth    = 3         // indexes nested under the sitemap read first
	DefaultMaxSitemaps = 1_000     // sitemap files fetched
	DefaultMaxEntries  = 1_000_000 // page entries yielded
	MaxLocBytes        = 2_048     // the protocol's bound of one URL; a longer one is a bad entry
	MaxAlternates      = 256       // alternates kept per entry; more are dropped
)

// Limits bounds what one read takes in. A zero field takes its default.
type Limits struct {
	FileURLs  int   // entries read from one file (MaxFileURLs)
	FileBytes int64 // bytes read from one file, uncompressed (MaxFileBytes)
	Depth     int   // indexes nested under the first sitemap (DefaultMaxDepth)
	Sitemaps  int   // sitemap files fetched per walk (DefaultMaxSitemaps)
	Entries   int   // page entries yielded per walk (DefaultMaxEntries)
}

// Rules are how a caller reads sitemaps: the Limits; KeepOutside, to
// yield the entries the location rule would drop (robots.txt still
// decides each page when it is visited); SkipUnchanged, to skip the
// pages a page cache holds a copy of at least as recent as their LastMod
// (Walker.Unchanged).
type Rules struct {
	Limits
	KeepOutside   bool
	SkipUnchanged bool
}

// withDefaults returns l with its zero (or negative) fields set to their
// defaults.
func (l Limits) withDefaults() Limits {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&l.FileURLs, MaxFileURLs)
	def(&l.Depth, DefaultMaxDepth)
	def(&l.Sitemaps, DefaultMaxSitemaps)
	def(&l.Entries, DefaultMaxEntries)
	if l.FileBytes <= 0 {
		l.FileBytes = MaxFileBytes
	}
	return l
}

// Sentinel errors, for errors.Is.
var (
	// ErrLimit: a bound was reached (a file's URLs or bytes, the nesting
	// of indexes, the sitemaps or entries of a walk); what lies past it
	// was not read. A *LimitError says which.
	ErrLimit = errors.New("sitemap: limit reached")
	// ErrLoop: an index listed a sitemap already read in this walk (or
	// itself); it is not read again.
	ErrLoop = errors.New("sitemap: listed again (index loop)")
	// ErrMalformed: the file is not a sitemap this package reads, or its
	// XML is broken; the entries before the break were yielded.
	ErrMalformed = errors.New("sitemap: malformed")
	// ErrNotFetched: the sitemap was not fetched, or its answer was not a
	// 2xx; the caller's error says why.
	ErrNotFetched = errors.New("sitemap: not fetched")
)

// LimitError is the error of a bound reached; it wraps ErrLimit.
type LimitError struct {
	URL   string // the sitemap being read, or the one not fetched
	Bound string // "file URLs", "file bytes", "depth", "sitemaps", "entries"
	Limit int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("sitemap %s: %s limit %d reached; the rest is not read", e.URL, e.Bound, e.Limit)
}

// Unwrap returns ErrLimit.
func (e *LimitError) Unwrap() error { return ErrLimit }
