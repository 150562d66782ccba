// Package directives reads page directives: the X-Robots-Tag response
// headers and the robots meta tags of an HTML page's head, for one
// crawler's product token, into a Directives value. It only reads; the
// types it reads into are package directive's (types.go names them as
// this package's own), and the root package robotsext decides what the
// Extension does with the result.
//
// The head is scanned without building a document tree (head.go), so a
// page pays for its head, not its body; the TDMRep meta tags
// (tdm-reservation, tdm-policy) can be read in the same scan.
//
// It may import the standard library, internal/tdmrep and package
// directive; not Colly and not the root package. TestImports holds it to
// that.
package directives
