// Package cacheresult holds the type that says what the page cache
// (robotsext.WithPageCache) did for one response: Result.
//
// The root package robotsext reports it (robotsext.CacheResultOf) and
// names this type as its own (robotsext.CacheResult is
// cacheresult.Result), as os.FileMode is io/fs.FileMode: this package is
// where it reads in full. It imports nothing of the module.
package cacheresult

// Result is what the page cache did for one response. The zero value,
// None, is a response the cache had no part in.
type Result uint8

const (
	// None: the cache was not asked (off, not a GET or HEAD, or a
	// request with its own conditional or Range header), or the origin
	// answered its revalidation with an error (a 5xx, a 429) and the
	// stored copy was kept.
	None Result = iota
	// Miss: nothing usable was stored; the page was downloaded.
	Miss
	// Hit: a fresh stored copy was served; nothing was sent.
	Hit
	// Revalidated: a stored copy was validated (the origin answered 304)
	// and served.
	Revalidated
	// Stale: the origin replaced a stored copy with a new response
	// instead of a 304.
	Stale
)

// names are the Results' String values, indexed by Result.
func names() [5]string { return [...]string{"none", "miss", "hit", "revalidated", "stale"} }

// String returns "none", "miss", "hit", "revalidated" or "stale": the
// value of the Robotsext-Cache response field the cache sets.
func (r Result) String() string {
	if n := names(); int(r) < len(n) {
		return n[r]
	}
	return "none"
}

// Parse reads a Result's String back; anything else is None.
func Parse(s string) Result {
	for i, n := range names() {
		if n == s {
			return Result(i)
		}
	}
	return None
}
