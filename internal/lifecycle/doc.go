// Package lifecycle keeps each origin's robots.txt in force: it fetches
// robots.txt and classifies the answer with RFC 9309's outcome table
// (§2.3.1), works out how long the answer stays fresh and when an
// unreachable origin is tried again, revalidates a good copy and keeps it
// deciding while its origin is unreachable, caches the answers in a
// bounded LRU, makes one fetch per origin at a time, and, with a Backend,
// shares each origin's record with a fleet (load, lease, store, purge).
// Its Fetcher also fetches the origin's other protocol files (FetchFile),
// with the same client, slots and freshness rules; TDMRep keeps each
// origin's TDMRep file (/.well-known/tdmrep.json) in force with them, in
// a bounded cache of its own, for a crawler that declares its purposes.
//
// It knows origins, HTTP and the robots.txt engine (internal/robotstxt),
// not Colly and not the crawl: the root package robotsext, which imports
// it, gives it what it needs of the crawl at construction (the request
// header, the product token, the pace of a robots.txt request, the
// errors its callers test for, what to do once an answer is installed)
// and turns its entries into Verdicts. It may import the standard
// library, the backend contract (github.com/robotsext/robotsext/backend),
// internal/robotstxt, internal/tdmrep, internal/redact, internal/closing and
// golang.org/x/sync/singleflight; not Colly and not the root package.
// TestImports holds it to that.
//
// Its words: an "answer" is one robots.txt fetch (Robots); an "entry" is
// what decides for an origin now (Entry: the latest answer, or the last
// good copy while the origin is unreachable); a "record" is an entry's
// shared form in a Backend (backend.Record).
package lifecycle
