package tally

// This file names what a page request got back: no response at all, or
// the class of its HTTP status.

import (
	"strconv"
	"sync/atomic"
)

// Class is the class of what a page request got back: no response at
// all, or the first digit of its HTTP status.
type Class uint8

// The classes, in order; the root package names them NoResponse and
// Status1xx to Status5xx.
const (
	None Class = iota
	C1xx
	C2xx
	C3xx
	C4xx
	C5xx
)

// NumClasses is the number of Class values.
const NumClasses = int(C5xx) + 1

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
