package sitemap

// This file names the types of package sitemap (the module's public
// one), the home of the values this package reads, as this package's
// own.

import pub "github.com/robotsext/robotsext/sitemap"

// The types of the public package sitemap.
type (
	Entry      = pub.Entry
	Alternate  = pub.Alternate
	Limits     = pub.Limits
	Rules      = pub.Rules
	LimitError = pub.LimitError
	Counts     = pub.Counts
)

// The bounds of the public package sitemap.
const (
	MaxFileURLs        = pub.MaxFileURLs
	MaxFileBytes       = pub.MaxFileBytes
	DefaultMaxDepth    = pub.DefaultMaxDepth
	DefaultMaxSitemaps = pub.DefaultMaxSitemaps
	DefaultMaxEntries  = pub.DefaultMaxEntries
	MaxLocBytes        = pub.MaxLocBytes
	MaxAlternates      = pub.MaxAlternates
	DefaultMaxFileTime = pub.DefaultMaxFileTime
)

// The sentinel errors of the public package sitemap.
var (
	ErrLimit      = pub.ErrLimit
	ErrLoop       = pub.ErrLoop
	ErrMalformed  = pub.ErrMalformed
	ErrNotFetched = pub.ErrNotFetched
)
