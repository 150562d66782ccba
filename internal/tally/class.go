package tally

// This file names what a page request got back: no response at all, or
// the class of its HTTP status.

import (
	"sync/atomic"

	"github.com/robotsext/robotsext/statusclass"
)

// Class is the class of what a page request got back (statusclass.Class,
// the public type the root package names StatusClass).
type Class = statusclass.Class

// The classes, in order.
const (
	None = statusclass.None
	C1xx = statusclass.C1xx
	C2xx = statusclass.C2xx
	C3xx = statusclass.C3xx
	C4xx = statusclass.C4xx
	C5xx = statusclass.C5xx
)

// NumClasses is the number of Class values.
const NumClasses = int(C5xx) + 1

// Of returns the class of an HTTP status (statusclass.Of).
func Of(status int) Class { return statusclass.Of(status) }

// Counts is one count per Class.
type Counts [NumClasses]atomic.Uint64

// Map returns the classes counted in c, without those at 0.
func (c *Counts) Map() map[Class]uint64 {
	m := map[Class]uint64{}
	for i := range c {
		if n := c[i].Load(); n > 0 {
			m[Class(i)] = n
		}
	}
	return m
}
