package sitemap

import "time"

// Entry is one page a sitemap lists.
type Entry struct {
	// Loc is the page's URL as the sitemap wrote it, trimmed of spaces.
	Loc string
	// LastMod is when the page last changed, by the sitemap's claim
	// (<lastmod>, RSS <pubDate>, Atom <updated>); zero when there was
	// none or it could not be read. LastModText is the text as written.
	LastMod     time.Time
	LastModText string
	// Alternates are the page's other language versions (<xhtml:link
	// rel="alternate" hreflang="…" href="…">), in the sitemap's order.
	Alternates []Alternate
	// Sitemap is the URL of the sitemap that listed the page.
	Sitemap string
}

// Alternate is one language version of a page.
type Alternate struct {
	Hreflang string // a BCP 47 language tag, or "x-default"
	Href     string // the version's URL
}
