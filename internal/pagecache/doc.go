// Package pagecache is an RFC 9111 private cache of page responses: when a
// stored response is fresh (§4.2), how it is revalidated (§4.3), the key
// and the Vary match (§2, §4.1), the stored form of an entry, and the
// stores that keep entries (a bounded directory on disk, or any Store a
// fleet shares). The Cache decides, the Transport serves; the root package
// glues both to Colly, so that a fresh page is served before the host's
// pace is waited for and a revalidation or a miss is a request like any
// other.
package pagecache
