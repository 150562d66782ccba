// Package directive holds the page directives' types: what a page's
// X-Robots-Tag response headers and robots meta tags say to one crawler
// (Directives), each rule's name (Directive), where it was stated
// (Source), and the values of its limits (Limit, ImagePreview).
//
// The root package robotsext reads them (robotsext.ReadDirectives,
// robotsext.Page.Directives) and names these types as its own
// (robotsext.Directives is directive.Directives), as os.FileMode is
// io/fs.FileMode: this package is where their fields, methods and
// examples read in full. It holds values only and imports nothing of the
// module.
package directive
