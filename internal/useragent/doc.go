// Package useragent reads a crawler's User-Agent header: the product token
// robots.txt user-agent lines are matched against (RFC 9309 §2.2.1), found
// the way real crawlers write their User-Agents (Token, Reduce, IsToken),
// and whether it lets a site identify the crawler and reach its operator
// (IsDefault, HasContact, Lacks, Recommend), judged once per distinct User-Agent
// (Judged). The root package robotsext builds ProductToken, ValidToken,
// WithUserAgent's token and CheckIdentity on it.
//
// It may import the standard library and internal/robotstxt (for the
// token's characters); not Colly, not net/http and not the root package.
// TestImports holds it to that.
package useragent
