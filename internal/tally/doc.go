// Package tally keeps the counts behind the root package's Stats and
// OriginInfo that are more than one counter: durations in fixed buckets
// (Durations), and responses by status class (Class), per host in bounded
// memory (Hosts). Every count is lock-free and allocates nothing once its
// host is known; the root package robotsext, whose StatusClass is this
// package's Class, decides what is counted and when.
//
// It may import the standard library only; not Colly and not the root
// package. TestImports holds it to that.
package tally
