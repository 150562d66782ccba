// Package statusclass holds the type that sorts what a page request got
// back: Class, no response at all or the first digit of its HTTP status.
//
// The root package robotsext counts responses by it (robotsext.Stats'
// Responses) and names this type as its own (robotsext.StatusClass is
// statusclass.Class), as os.FileMode is io/fs.FileMode: this package is
// where it reads in full. It imports nothing of the module.
package statusclass

import "strconv"

// Class is the class of what a page request got back: no response at
// all, or the first digit of its HTTP status.
type Class uint8

// The classes, in order; the root package names them robotsext.NoResponse
// and robotsext.Status1xx to robotsext.Status5xx.
const (
	// None: the request went out and no response came (a network error,
	// a timeout). A request failed by the crawl's own context ending is
	// not counted at all: nothing was awaited from the site.
	None Class = iota
	// C1xx to C5xx: the response's status was 100–199, …, 500–599.
	C1xx
	C2xx
	C3xx
	C4xx
	C5xx
)

// String names the class: "none", "1xx", "2xx", "3xx", "4xx" or "5xx",
// short and stable, the label values the metrics adapters use.
func (c Class) String() string {
	switch c {
	case None:
		return "none"
	case C1xx, C2xx, C3xx, C4xx, C5xx:
		return string([]byte{'0' + byte(c), 'x', 'x'})
	}
	return "class_" + strconv.Itoa(int(c))
}

// Of returns the class of an HTTP status; a status outside 100–599,
// which no standard defines, is in the nearest class.
func Of(status int) Class {
	return Class(min(max(status/100, 1), 5))
}
