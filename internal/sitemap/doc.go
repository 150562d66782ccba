// Package sitemap reads sitemaps: XML <urlset> and <sitemapindex>
// (sitemaps.org 0.9, with xhtml:link hreflang alternates), plain text,
// RSS 2.0 and Atom 1.0, each gzipped or not (sniffed by content), entry
// by entry and within bounds, never holding a whole file in memory. A
// Walker follows indexes from the sitemaps of a site, keeps the
// protocol's location rule and stops at every bound with an error value
// that says which. It knows nothing of HTTP, pacing or Colly: the caller
// fetches each sitemap through its Fetch function.
package sitemap
