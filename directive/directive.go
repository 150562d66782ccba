package directive

// This file is the Directives value and its parts: what a page's
// X-Robots-Tag headers and robots meta tags say to one crawler, added up.

import (
	"strconv"
	"strings"
	"time"
)

// Directive names one page directive, for Directives.From.
type Directive uint8

// The page directives search engines document (Google's and Bing's
// "robots meta tag and X-Robots-Tag" pages), and the two AI directives
// DeviantArt introduced (noai, noimageai). "all" states no restriction and
// "none" is noindex and nofollow together, so neither has a Directive of
// its own.
const (
	NoIndex Directive = iota
	NoFollow
	NoArchive
	NoSnippet
	NoImageIndex
	NoTranslate
	IndexIfEmbedded
	MaxSnippet
	MaxImagePreview
	MaxVideoPreview
	UnavailableAfter
	NoAI
	NoImageAI
	numDirectives
)

// Source says where a page directive was read. A directive stated in both
// places has both bits.
type Source uint8

const (
	// FromXRobotsTag: an X-Robots-Tag response header, unscoped or scoped to
	// the crawler's token.
	FromXRobotsTag Source = 1 << iota
	// FromMeta: a <meta name="robots"> or <meta name="{token}"> tag of
	// the page's head.
	FromMeta
)

// String returns "header", "meta", "header+meta" or "".
func (s Source) String() string {
	switch s {
	case FromXRobotsTag:
		return "header"
	case FromMeta:
		return "meta"
	case FromXRobotsTag | FromMeta:
		return "header+meta"
	}
	return ""
}

// ImagePreview is the largest image preview a page allows
// (max-image-preview). The zero value means the page stated none.
type ImagePreview uint8

const (
	// ImagePreviewUnstated: no max-image-preview rule applied.
	ImagePreviewUnstated ImagePreview = iota
	// ImagePreviewNone: no image preview may be shown.
	ImagePreviewNone
	// ImagePreviewStandard: a default-size preview may be shown.
	ImagePreviewStandard
	// ImagePreviewLarge: a preview up to the viewport's width may be shown.
	ImagePreviewLarge
)

// Limit is the number a max-snippet (characters) or max-video-preview
// (seconds) rule states. The zero value means no rule stated one.
type Limit struct {
	// Set reports whether a rule stated the limit.
	Set bool
	// N is the limit: 0 or more, or -1 for "no limit".
	N int
}

// Tighter returns the more restrictive of l and o: the one stated when
// only one is, else the smaller, "no limit" (-1) being the largest.
func (l Limit) Tighter(o Limit) Limit {
	switch {
	case !o.Set:
		return l
	case !l.Set, l.N == -1, o.N >= 0 && o.N < l.N:
		return o
	}
	return l
}

// Directives is what a page's X-Robots-Tag headers and robots meta tags
// say to one crawler: the rules without a scope ("robots", an unscoped
// header) and those for its product token, added up. Restrictive rules
// win: a rule stated anywhere holds even if another place says "all", the
// smallest limit and the earliest unavailable_after apply. Rules the
// parser does not know are ignored. The zero value means the page said
// nothing. Directives values may be compared with ==.
type Directives struct {
	// All reports that some source said "all" (no restriction). It
	// cancels nothing another source said.
	All bool
	// NoIndex: the page must not be indexed (noindex, none).
	NoIndex bool
	// NoFollow: the page's links must not be followed (nofollow, none).
	// The Extension refuses them by default (see WithNofollow).
	NoFollow bool
	// NoArchive: no cached copy may be shown (noarchive; Bing's nocache).
	NoArchive bool
	// NoSnippet: no text snippet or video preview may be shown.
	NoSnippet bool
	// NoImageIndex: the page's images must not be indexed.
	NoImageIndex bool
	// NoTranslate: no translation may be offered.
	NoTranslate bool
	// IndexIfEmbedded: the page may be indexed when embedded in another
	// page (iframe) despite noindex.
	IndexIfEmbedded bool
	// MaxSnippet is the longest text snippet allowed, in characters.
	MaxSnippet Limit
	// MaxImagePreview is the largest image preview allowed.
	MaxImagePreview ImagePreview
	// MaxVideoPreview is the longest video preview allowed, in seconds.
	MaxVideoPreview Limit
	// UnavailableAfter is when the page stops being available to show
	// (unavailable_after), in UTC; zero when no rule stated a date the
	// parser could read.
	UnavailableAfter time.Time
	// NoAI: the content must not go into the datasets AI models are
	// trained on (noai). It is a usage preference against train-ai
	// (see WithPurpose), not a search engine directive.
	NoAI bool
	// NoImageAI: the page's images must not go into AI training datasets,
	// while its text may (noimageai). On an image response it is noai;
	// on a page it refuses nothing of the page (see WithPurpose).
	NoImageAI bool

	from [numDirectives]Source
	// nofollowRule is the first rule that said nofollow or none, written
	// as "X-Robots-Tag: nofollow", "X-Robots-Tag: demobot: none" or
	// "meta robots: nofollow", for Verdict.Rule.
	nofollowRule string
}

// From says where the page stated d: 0 when it did not.
func (d Directives) From(x Directive) Source {
	if x >= numDirectives {
		return 0
	}
	return d.from[x]
}

// Mark records that the page stated x in from: From(x) then includes it.
// A reader of page directives calls it for each rule it applies, beside
// setting the rule's field; a test building a Directives by hand may too.
func (d *Directives) Mark(x Directive, from Source) {
	if x < numDirectives {
		d.from[x] |= from
	}
}

// MarkNofollowRule records rule as the rule that said nofollow or none
// (see NofollowRule), unless one was recorded already: the first wins.
func (d *Directives) MarkNofollowRule(rule string) {
	if d.nofollowRule == "" {
		d.nofollowRule = rule
	}
}

// IsZero reports whether the page stated nothing (not even "all") to the
// crawler.
func (d Directives) IsZero() bool { return d == Directives{} }

// NofollowRule is the first rule that said nofollow or none, as
// "X-Robots-Tag: nofollow", "X-Robots-Tag: demobot: none" or
// "meta demobot: nofollow"; "" when none did.
func (d Directives) NofollowRule() string { return d.nofollowRule }

// Add adds o's rules to d: restrictive rules add up.
func (d *Directives) Add(o Directives) {
	d.All = d.All || o.All
	d.NoIndex = d.NoIndex || o.NoIndex
	d.NoFollow = d.NoFollow || o.NoFollow
	d.NoArchive = d.NoArchive || o.NoArchive
	d.NoSnippet = d.NoSnippet || o.NoSnippet
	d.NoImageIndex = d.NoImageIndex || o.NoImageIndex
	d.NoTranslate = d.NoTranslate || o.NoTranslate
	d.IndexIfEmbedded = d.IndexIfEmbedded || o.IndexIfEmbedded
	d.NoAI = d.NoAI || o.NoAI
	d.NoImageAI = d.NoImageAI || o.NoImageAI
	d.MaxSnippet = d.MaxSnippet.Tighter(o.MaxSnippet)
	d.MaxVideoPreview = d.MaxVideoPreview.Tighter(o.MaxVideoPreview)
	if o.MaxImagePreview != ImagePreviewUnstated &&
		(d.MaxImagePreview == ImagePreviewUnstated || o.MaxImagePreview < d.MaxImagePreview) {
		d.MaxImagePreview = o.MaxImagePreview
	}
	if !o.UnavailableAfter.IsZero() && (d.UnavailableAfter.IsZero() || o.UnavailableAfter.Before(d.UnavailableAfter)) {
		d.UnavailableAfter = o.UnavailableAfter
	}
	for i := range d.from {
		d.from[i] |= o.from[i]
	}
	if d.nofollowRule == "" {
		d.nofollowRule = o.nofollowRule
	}
}

// String lists the rules in force, in the words of the directives
// ("noindex, nofollow, max-snippet:50, unavailable_after:2027-11-03T15:00:00Z, noai"),
// or "none stated" for the zero value; "all" alone when only "all" was
// said.
func (d Directives) String() string {
	var b strings.Builder
	add := func(on bool, s string) {
		if !on {
			return
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s)
	}
	add(d.NoIndex, "noindex")
	add(d.NoFollow, "nofollow")
	add(d.NoArchive, "noarchive")
	add(d.NoSnippet, "nosnippet")
	add(d.NoImageIndex, "noimageindex")
	add(d.NoTranslate, "notranslate")
	add(d.IndexIfEmbedded, "indexifembedded")
	add(d.MaxSnippet.Set, "max-snippet:"+strconv.Itoa(d.MaxSnippet.N))
	add(d.MaxImagePreview != ImagePreviewUnstated, "max-image-preview:"+[...]string{"", "none", "standard", "large"}[d.MaxImagePreview&3])
	add(d.MaxVideoPreview.Set, "max-video-preview:"+strconv.Itoa(d.MaxVideoPreview.N))
	add(!d.UnavailableAfter.IsZero(), "unavailable_after:"+d.UnavailableAfter.Format(time.RFC3339))
	add(d.NoAI, "noai")
	add(d.NoImageAI, "noimageai")
	switch {
	case b.Len() > 0:
		return b.String()
	case d.All:
		return "all"
	}
	return "none stated"
}
