// Package warnlog is the logger's handler when the root package is given
// none: records at Warn and above go to slog.Default()'s handler, looked
// up for every record so that a later slog.SetDefault applies; Info and
// Debug are dropped. Failures are never silent, and a quiet crawl stays
// quiet.
//
// It may import the standard library only; not Colly and not the root
// package. TestImports holds it to that.
package warnlog
