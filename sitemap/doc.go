// Package sitemap holds the sitemap reader's types: a page a sitemap
// lists (Entry, with its Alternates), how sitemaps are read (Rules and
// their Limits), the error of a bound reached (LimitError) and what a
// read did (Counts).
//
// The root package robotsext reads sitemaps (Extension.ReadSitemaps) and
// names these types as its own (robotsext.SitemapEntry is
// sitemap.Entry), as os.FileMode is io/fs.FileMode: this package is where
// their fields read in full. It holds values only and imports nothing of
// the module.
package sitemap
