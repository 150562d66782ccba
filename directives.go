package robotsext

// This file is the public face of page directives: the X-Robots-Tag
// response header and the robots meta tags of an HTML page, read for one
// product token into a Directives value. Reading them is
// internal/directives' work; the Extension decides what to do with the
// result (page.go, nofollow.go).

import (
	"net/http"

	"github.com/robotsext/robotsext/internal/directives"
)

// Directive names one page directive, for Directives.From.
type Directive = directives.Directive

// The page directives search engines document (Google's and Bing's
// "robots meta tag and X-Robots-Tag" pages), and the two AI directives
// DeviantArt introduced (noai, noimageai). "all" states no restriction and
// "none" is noindex and nofollow together, so neither has a Directive of
// its own.
const (
	DirectiveNoIndex          Directive = directives.NoIndex
	DirectiveNoFollow         Directive = directives.NoFollow
	DirectiveNoArchive        Directive = directives.NoArchive
	DirectiveNoSnippet        Directive = directives.NoSnippet
	DirectiveNoImageIndex     Directive = directives.NoImageIndex
	DirectiveNoTranslate      Directive = directives.NoTranslate
	DirectiveIndexIfEmbedded  Directive = directives.IndexIfEmbedded
	DirectiveMaxSnippet       Directive = directives.MaxSnippet
	DirectiveMaxImagePreview  Directive = directives.MaxImagePreview
	DirectiveMaxVideoPreview  Directive = directives.MaxVideoPreview
	DirectiveUnavailableAfter Directive = directives.UnavailableAfter
	DirectiveNoAI             Directive = directives.NoAI
	DirectiveNoImageAI        Directive = directives.NoImageAI
)

// DirectiveSource says where a page directive was read: FromXRobotsTag,
// FromMeta, or both bits for a directive stated in both places. Its
// String is "header", "meta", "header+meta" or "".
type DirectiveSource = directives.Source

const (
	// FromXRobotsTag: an X-Robots-Tag response header, unscoped or scoped to
	// the crawler's token.
	FromXRobotsTag DirectiveSource = directives.FromXRobotsTag
	// FromMeta: a <meta name="robots"> or <meta name="{token}"> tag of
	// the page's head.
	FromMeta DirectiveSource = directives.FromMeta
)

// ImagePreview is the largest image preview a page allows
// (max-image-preview). The zero value means the page stated none.
type ImagePreview = directives.ImagePreview

const (
	// ImagePreviewUnstated: no max-image-preview rule applied.
	ImagePreviewUnstated ImagePreview = directives.ImagePreviewUnstated
	// ImagePreviewNone: no image preview may be shown.
	ImagePreviewNone ImagePreview = directives.ImagePreviewNone
	// ImagePreviewStandard: a default-size preview may be shown.
	ImagePreviewStandard ImagePreview = directives.ImagePreviewStandard
	// ImagePreviewLarge: a preview up to the viewport's width may be shown.
	ImagePreviewLarge ImagePreview = directives.ImagePreviewLarge
)

// Limit is the number a max-snippet (characters) or max-video-preview
// (seconds) rule states: Set reports whether a rule stated it, and N is 0
// or more, or -1 for "no limit". The zero value means no rule stated one.
type Limit = directives.Limit

// Directives is what a page's X-Robots-Tag headers and robots meta tags
// say to one crawler: the rules without a scope ("robots", an unscoped
// header) and those for its product token, added up. Restrictive rules
// win: a rule stated anywhere holds even if another place says "all", the
// smallest limit and the earliest unavailable_after apply. Rules the
// parser does not know are ignored. The zero value means the page said
// nothing. Directives values may be compared with ==.
//
// Its fields are one per rule: All, NoIndex (noindex, none), NoFollow
// (nofollow, none; the Extension refuses the page's links by default, see
// WithNofollow), NoArchive (noarchive, Bing's nocache), NoSnippet,
// NoImageIndex, NoTranslate, IndexIfEmbedded, MaxSnippet and
// MaxVideoPreview (Limits), MaxImagePreview (an ImagePreview),
// UnavailableAfter (in UTC; zero when no rule stated a date the parser
// could read), and the usage preferences NoAI and NoImageAI (see
// WithPurpose). Its methods: From says where a rule was stated, Add adds
// another value's rules, NofollowRule names the first rule that said
// nofollow or none (for Verdict.Rule), IsZero and String.
type Directives = directives.Directives

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
