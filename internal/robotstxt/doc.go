// Package robotstxt is the robots.txt engine: it parses, compiles and
// matches robots.txt (RFC 9309, with Google's reference parser's
// leniencies), chooses the groups that apply to a crawler, turns URLs into
// the paths rules are matched against, and reads a file's sitemaps, crawl
// delays and AI usage lines (Content-Usage, Content-Signal).
//
// It is pure: given the bytes of a file and a question, it answers, and
// knows nothing of fetching, caching or crawling. It may import only the
// standard library (net/url for the paths of parsed URLs) and the pure
// package internal/signals (with what it imports: internal/tdmrep and
// github.com/dunglas/httpsfv), which reads the usage lines' preferences
// and resolves them as it does every other mechanism's; not Colly, not
// net/http, and not the root package robotsext, which imports it and
// builds its public types (Policy, Verdict, Usage) on it. TestImports
// holds it to that.
package robotstxt
