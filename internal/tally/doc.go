// Package tally keeps the counts behind the root package's Stats and
// OriginInfo that are more than one counter: durations in fixed buckets
// (Durations), and responses by status class (Class), per host in bounded
// memory (Hosts). Every count is lock-free and allocates nothing once its
// host is known; the root package robotsext decides what is counted and
// when. Class is package statusclass's, the public type the root names
// StatusClass.
//
// It may import the standard library and package statusclass only; not
// Colly and not the root package. TestImports holds it to that.
package tally
