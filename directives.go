package robotsext

// This file reads page directives: the X-Robots-Tag response header and
// the robots meta tags of an HTML page, for one product token, into a
// Directives value. It only reads; the Extension decides what to do with
// the result (page.go, nofollow.go).

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/robotsext/robotsext/internal/tdmrep"
)

// Directive names one page directive, for Directives.From.
type Directive uint8

// The page directives search engines document (Google's and Bing's
// "robots meta tag and X-Robots-Tag" pages), and the two AI directives
// DeviantArt introduced (noai, noimageai). "all" states no restriction and
// "none" is noindex and nofollow together, so neither has a Directive of
// its own.
const (
	DirectiveNoIndex Directive = iota
	DirectiveNoFollow
	DirectiveNoArchive
	DirectiveNoSnippet
	DirectiveNoImageIndex
	DirectiveNoTranslate
	DirectiveIndexIfEmbedded
	DirectiveMaxSnippet
	DirectiveMaxImagePreview
	DirectiveMaxVideoPreview
	DirectiveUnavailableAfter
	DirectiveNoAI
	DirectiveNoImageAI
	numDirectives
)

// DirectiveSource says where a page directive was read. A directive stated in both
// places has both bits.
type DirectiveSource uint8

const (
	// FromXRobotsTag: an X-Robots-Tag response header, unscoped or scoped to
	// the crawler's token.
	FromXRobotsTag DirectiveSource = 1 << iota
	// FromMeta: a <meta name="robots"> or <meta name="{token}"> tag of
	// the page's head.
	FromMeta
)

// String returns "header", "meta", "header+meta" or "".
func (s DirectiveSource) String() string {
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

// tighter returns the more restrictive of l and o.
func (l Limit) tighter(o Limit) Limit {
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

	from [numDirectives]DirectiveSource
	// nofollowRule is the first rule that said nofollow or none, written
	// as "X-Robots-Tag: nofollow", "X-Robots-Tag: demobot: none" or
	// "meta robots: nofollow", for Verdict.Rule.
	nofollowRule string
}

// From says where the page stated d: 0 when it did not.
func (d Directives) From(x Directive) DirectiveSource {
	if x >= numDirectives {
		return 0
	}
	return d.from[x]
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
	d.MaxSnippet = d.MaxSnippet.tighter(o.MaxSnippet)
	d.MaxVideoPreview = d.MaxVideoPreview.tighter(o.MaxVideoPreview)
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

// Header name and meta name of the page directives.
const (
	headerName = "X-Robots-Tag"
	metaRobots = "robots"
)

// maxDirectiveValue bounds the X-Robots-Tag values and meta contents read,
// in octets each; the rest of a longer one is ignored.
const maxDirectiveValue = 4 << 10

// ParseXRobotsTag reads X-Robots-Tag header values for the crawler whose
// product token is token. Each value is a comma-separated list of rules;
// a "name:" before a rule that is not itself a rule name (max-snippet,
// max-image-preview, max-video-preview, unavailable_after) scopes that rule
// and the ones after it in the value to the crawler called name, matched
// case-insensitively to token. Rules scoped to other crawlers are skipped;
// unscoped rules and those scoped to token add up.
func ParseXRobotsTag(token string, values ...string) Directives {
	var d Directives
	for _, v := range values {
		d.readList(v, token, FromXRobotsTag, true)
	}
	return d
}

// ParseMetaRobots reads the robots meta tags in the head of an HTML
// document for the crawler whose product token is token: <meta
// name="robots"> and <meta name="{token}">, names and contents
// case-insensitive, their rules added up. It reads tags up to the first
// one that cannot be in a head (<body>, </head>, <div>, …) and at most
// MaxHeadScan octets; it builds no document tree.
func ParseMetaRobots(token string, html []byte) Directives { return readHead(token, html, nil) }

// readHead is ParseMetaRobots, which with tdm also reads the TDMRep meta
// tags (tdm-reservation, tdm-policy) into *tdm, in the same scan.
func readHead(token string, html []byte, tdm *tdmrep.Declaration) Directives {
	var d Directives
	scanHead(html, func(name, content string) {
		switch {
		case strings.EqualFold(name, metaRobots):
			d.readList(content, metaRobots, FromMeta, false)
		case token != "" && token != noToken && strings.EqualFold(name, token):
			d.readList(content, name, FromMeta, false)
		case tdm != nil:
			tdm.AddMeta(name, content)
		}
	})
	return d
}

// ReadDirectives reads the page directives of a response for token: its
// X-Robots-Tag headers, and for an HTML body (Content-Type text/html or
// application/xhtml+xml, or none and a body that sniffs as HTML, as
// Colly's OnHTML decides) the robots meta tags of its head.
func ReadDirectives(token string, h http.Header, body []byte) Directives {
	return readResponse(token, h, body, nil)
}

// readResponse is ReadDirectives, which with tdm also reads an HTML
// body's TDMRep meta tags into *tdm, in the same scan of its head.
func readResponse(token string, h http.Header, body []byte, tdm *tdmrep.Declaration) Directives {
	var d Directives
	if vs := h.Values(headerName); len(vs) > 0 {
		d = ParseXRobotsTag(token, vs...)
	}
	if isHTML(h.Get("Content-Type"), body) {
		m := readHead(token, body, tdm)
		if !m.IsZero() {
			d.Add(m)
		}
	}
	return d
}

// isHTML reports whether Colly's OnHTML would parse a body of this type.
func isHTML(contentType string, body []byte) bool {
	if contentType == "" {
		if len(body) == 0 {
			return false
		}
		contentType = http.DetectContentType(body)
	}
	mt, _, _ := strings.Cut(contentType, ";")
	mt = strings.TrimSpace(mt)
	return strings.EqualFold(mt, "text/html") || strings.EqualFold(mt, "application/xhtml+xml")
}

// readList reads one comma-separated list of rules from src. scope is
// the name the rules apply under ("robots" or the token for meta tags,
// "" for an unscoped header); scoped reports a header value, where a
// "name:" prefix may scope the rules after it.
func (d *Directives) readList(v, token string, src DirectiveSource, header bool) {
	if len(v) > maxDirectiveValue {
		v = v[:maxDirectiveValue]
	}
	scope := "" // header: the scope in force, as written
	applies := true
	if !header {
		scope = token // the meta name as written
	}
	for len(v) > 0 {
		item, rest, _ := strings.Cut(v, ",")
		v = rest
		item = trimOWS(item)
		if header {
			if name, after, ok := strings.Cut(item, ":"); ok {
				if n := trimOWS(name); isScopeName(n) {
					scope = n
					applies = strings.EqualFold(n, token)
					item = trimOWS(after)
				}
			}
		}
		if name, arg, ok := strings.Cut(item, ":"); ok && strings.EqualFold(trimOWS(name), "unavailable_after") {
			// A date may hold commas: take the longest run of items
			// that reads as one.
			arg = trimOWS(arg)
			t, ok := parseDirectiveDate(arg)
			extra := v
			for range 2 {
				more, after, found := strings.Cut(extra, ",")
				if !found && more == "" {
					break
				}
				cand := arg + "," + more
				if t2, ok2 := parseDirectiveDate(trimOWS(cand)); ok2 {
					t, ok, arg, v = t2, true, cand, after
					if !found {
						v = ""
					}
				} else {
					arg = cand
				}
				if !found {
					break
				}
				extra = after
			}
			if ok && applies {
				d.unavailableAfter(t, src)
			}
			continue
		}
		if applies {
			d.rule(item, src, scope, header)
		}
	}
}

// isScopeName reports whether n, written before a colon in a header
// value, names a crawler rather than a rule with a parameter.
func isScopeName(n string) bool {
	if n == "" {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	for _, r := range [...]string{"max-snippet", "max-image-preview", "max-video-preview", "unavailable_after"} {
		if strings.EqualFold(n, r) {
			return false
		}
	}
	return true
}

// rule applies one rule (not unavailable_after) as written.
func (d *Directives) rule(item string, src DirectiveSource, scope string, header bool) {
	name, arg, hasArg := strings.Cut(item, ":")
	if hasArg {
		name, arg = trimOWS(name), trimOWS(arg)
		switch {
		case strings.EqualFold(name, "max-snippet"):
			if l, ok := parseLimit(arg); ok {
				d.MaxSnippet = d.MaxSnippet.tighter(l)
				d.from[DirectiveMaxSnippet] |= src
			}
		case strings.EqualFold(name, "max-video-preview"):
			if l, ok := parseLimit(arg); ok {
				d.MaxVideoPreview = d.MaxVideoPreview.tighter(l)
				d.from[DirectiveMaxVideoPreview] |= src
			}
		case strings.EqualFold(name, "max-image-preview"):
			p := ImagePreviewUnstated
			switch {
			case strings.EqualFold(arg, "none"):
				p = ImagePreviewNone
			case strings.EqualFold(arg, "standard"):
				p = ImagePreviewStandard
			case strings.EqualFold(arg, "large"):
				p = ImagePreviewLarge
			}
			if p != ImagePreviewUnstated {
				if d.MaxImagePreview == ImagePreviewUnstated || p < d.MaxImagePreview {
					d.MaxImagePreview = p
				}
				d.from[DirectiveMaxImagePreview] |= src
			}
		}
		return
	}
	switch {
	case strings.EqualFold(item, "all"):
		d.All = true
	case strings.EqualFold(item, "none"):
		d.NoIndex, d.NoFollow = true, true
		d.from[DirectiveNoIndex] |= src
		d.from[DirectiveNoFollow] |= src
		d.noteNofollow(src, scope, header, "none")
	case strings.EqualFold(item, "noindex"):
		d.NoIndex = true
		d.from[DirectiveNoIndex] |= src
	case strings.EqualFold(item, "nofollow"):
		d.NoFollow = true
		d.from[DirectiveNoFollow] |= src
		d.noteNofollow(src, scope, header, "nofollow")
	case strings.EqualFold(item, "noarchive"), strings.EqualFold(item, "nocache"):
		d.NoArchive = true
		d.from[DirectiveNoArchive] |= src
	case strings.EqualFold(item, "nosnippet"):
		d.NoSnippet = true
		d.from[DirectiveNoSnippet] |= src
	case strings.EqualFold(item, "noimageindex"):
		d.NoImageIndex = true
		d.from[DirectiveNoImageIndex] |= src
	case strings.EqualFold(item, "notranslate"):
		d.NoTranslate = true
		d.from[DirectiveNoTranslate] |= src
	case strings.EqualFold(item, "indexifembedded"):
		d.IndexIfEmbedded = true
		d.from[DirectiveIndexIfEmbedded] |= src
	case strings.EqualFold(item, "noai"):
		d.NoAI = true
		d.from[DirectiveNoAI] |= src
	case strings.EqualFold(item, "noimageai"):
		d.NoImageAI = true
		d.from[DirectiveNoImageAI] |= src
	}
}

// noteNofollow remembers the first rule that said nofollow or none.
func (d *Directives) noteNofollow(src DirectiveSource, scope string, header bool, word string) {
	if d.nofollowRule != "" {
		return
	}
	switch {
	case header && scope != "":
		d.nofollowRule = headerName + ": " + scope + ": " + word
	case header:
		d.nofollowRule = headerName + ": " + word
	default:
		d.nofollowRule = "meta " + strings.ToLower(scope) + ": " + word // a new string: scope may share the body's memory
	}
}

// unavailableAfter applies an unavailable_after date: the earliest wins.
func (d *Directives) unavailableAfter(t time.Time, src DirectiveSource) {
	if d.UnavailableAfter.IsZero() || t.Before(d.UnavailableAfter) {
		d.UnavailableAfter = t
	}
	d.from[DirectiveUnavailableAfter] |= src
}

// parseLimit reads a max-snippet or max-video-preview value: an integer of
// at least -1 that fits 32 bits.
func parseLimit(s string) (Limit, bool) {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n < -1 {
		return Limit{}, false
	}
	return Limit{Set: true, N: int(n)}, true
}

// trimOWS trims ASCII spaces and tabs (and the other ASCII white space)
// without looking at Unicode.
func trimOWS(s string) string {
	for len(s) > 0 && isASCIISpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isASCIISpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func isASCIISpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
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
