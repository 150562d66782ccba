package directives

// This file names the types of package directive, the public home of the
// values this package reads, as this package's own, so that its code
// reads as before they moved.

import "github.com/robotsext/robotsext/directive"

// The types of package directive.
type (
	Directive    = directive.Directive
	Source       = directive.Source
	ImagePreview = directive.ImagePreview
	Limit        = directive.Limit
	Directives   = directive.Directives
)

// The values of package directive.
const (
	NoIndex          = directive.NoIndex
	NoFollow         = directive.NoFollow
	NoArchive        = directive.NoArchive
	NoSnippet        = directive.NoSnippet
	NoImageIndex     = directive.NoImageIndex
	NoTranslate      = directive.NoTranslate
	IndexIfEmbedded  = directive.IndexIfEmbedded
	MaxSnippet       = directive.MaxSnippet
	MaxImagePreview  = directive.MaxImagePreview
	MaxVideoPreview  = directive.MaxVideoPreview
	UnavailableAfter = directive.UnavailableAfter
	NoAI             = directive.NoAI
	NoImageAI        = directive.NoImageAI

	FromXRobotsTag = directive.FromXRobotsTag
	FromMeta       = directive.FromMeta

	ImagePreviewUnstated = directive.ImagePreviewUnstated
	ImagePreviewNone     = directive.ImagePreviewNone
	ImagePreviewStandard = directive.ImagePreviewStandard
	ImagePreviewLarge    = directive.ImagePreviewLarge
)
