package robotsext

// This file is the public face of page directives: the X-Robots-Tag
// response header and the robots meta tags of an HTML page, read for one
// product token into a Directives value. Reading them is
// internal/directives' work; the Extension decides what to do with the
// result (page.go, nofollow.go).

import (
	"net/http"

	"github.com/robotsext/robotsext/directive"
	"github.com/robotsext/robotsext/internal/directives"
)

// Directive names one page directive, for Directives.From; see package
// directive, where it and the other page directive types read in full.
type Directive = directive.Directive

// The page directives search engines document, and the two AI
// directives DeviantArt introduced (noai, noimageai).
const (
	DirectiveNoIndex          Directive = directive.NoIndex
	DirectiveNoFollow         Directive = directive.NoFollow
	DirectiveNoArchive        Directive = directive.NoArchive
	DirectiveNoSnippet        Directive = directive.NoSnippet
	DirectiveNoImageIndex     Directive = directive.NoImageIndex
	DirectiveNoTranslate      Directive = directive.NoTranslate
	DirectiveIndexIfEmbedded  Directive = directive.IndexIfEmbedded
	DirectiveMaxSnippet       Directive = directive.MaxSnippet
	DirectiveMaxImagePreview  Directive = directive.MaxImagePreview
	DirectiveMaxVideoPreview  Directive = directive.MaxVideoPreview
	DirectiveUnavailableAfter Directive = directive.UnavailableAfter
	DirectiveNoAI             Directive = directive.NoAI
	DirectiveNoImageAI        Directive = directive.NoImageAI
)

// DirectiveSource says where a page directive was read (directive.Source).
type DirectiveSource = directive.Source

// The places a page directive is read from.
const (
	FromXRobotsTag DirectiveSource = directive.FromXRobotsTag // an X-Robots-Tag response header
	FromMeta       DirectiveSource = directive.FromMeta       // a robots meta tag of the page's head
)

// ImagePreview is the largest image preview a page allows
// (directive.ImagePreview).
type ImagePreview = directive.ImagePreview

// The ImagePreview values.
const (
	ImagePreviewUnstated ImagePreview = directive.ImagePreviewUnstated // no max-image-preview rule applied
	ImagePreviewNone     ImagePreview = directive.ImagePreviewNone     // no image preview may be shown
	ImagePreviewStandard ImagePreview = directive.ImagePreviewStandard // a default-size preview may be shown
	ImagePreviewLarge    ImagePreview = directive.ImagePreviewLarge    // a preview up to the viewport's width may be shown
)

// Limit is the number a max-snippet or max-video-preview rule states
// (directive.Limit).
type Limit = directive.Limit

// Directives is what a page's X-Robots-Tag headers and robots meta tags
// say to one crawler, added up: restrictive rules win. Its fields, one
// per rule, and its methods (From, Add, Mark, MarkNofollowRule,
// NofollowRule, IsZero, String) read in full as directive.Directives.
type Directives = directive.Directives

// MaxHeadScan is how many octets of an HTML body ParseMetaRobots reads
// at most (512 KiB), looking for the end of its head; meta tags after it
// are not seen.
const MaxHeadScan = directives.MaxHeadScan

// ParseXRobotsTag reads X-Robots-Tag header values for the crawler whose
// product token is token. Each value is a comma-separated list of rules;
// a "name:" before a rule that is not itself a rule name (max-snippet,
// max-image-preview, max-video-preview, unavailable_after) scopes that rule
// and the ones after it in the value to the crawler called name, matched
// case-insensitively to token. Rules scoped to other crawlers are skipped;
// unscoped rules and those scoped to token add up.
func ParseXRobotsTag(token string, values ...string) Directives {
	return directives.ParseXRobotsTag(token, values...)
}

// ParseMetaRobots reads the robots meta tags in the head of an HTML
// document for the crawler whose product token is token: <meta
// name="robots"> and <meta name="{token}">, names and contents
// case-insensitive, their rules added up. It reads tags up to the first
// one that cannot be in a head (<body>, </head>, <div>, …) and at most
// MaxHeadScan octets; it builds no document tree.
func ParseMetaRobots(token string, html []byte) Directives {
	return directives.ParseMetaRobots(token, html)
}

// ReadDirectives reads the page directives of a response for token: its
// X-Robots-Tag headers, and for an HTML body (Content-Type text/html or
// application/xhtml+xml, or none and a body that sniffs as HTML, as
// Colly's OnHTML decides) the robots meta tags of its head.
func ReadDirectives(token string, h http.Header, body []byte) Directives {
	return directives.Read(token, h, body, nil)
}
