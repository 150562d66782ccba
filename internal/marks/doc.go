// Package marks keeps the visit marks a crawl has forgotten: the IDs of
// URLs that were refused for their page's sake after Colly had marked
// them visited, so that the next look-up of each answers "not visited"
// once (Forgotten). The root package robotsext puts the wrapper around a
// collector's storage that asks it.
//
// It may import the standard library only; not Colly and not the root
// package. TestImports holds it to that.
package marks
