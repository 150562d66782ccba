// Package useragent reads a crawler's User-Agent header: the product token
// robots.txt user-agent lines are matched against (RFC 9309 §2.2.1), found
// the way real crawlers write their User-Agents (Token, Reduce, IsToken).
// The root package robotsext builds ProductToken, ValidToken and
// WithUserAgent's token on it.
//
// It may import the standard library and internal/robotstxt (for the
// token's characters); not Colly, not net/http and not the root package.
// TestImports holds it to that.
package useragent
