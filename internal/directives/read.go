package directives

// This file reads the page directives of a response: its X-Robots-Tag
// headers and, for an HTML body, the robots meta tags of its head.

import (
	"net/http"
	"strings"

	"github.com/robotsext/robotsext/internal/tdmrep"
)

// HeaderName is the response header of the page directives.
const HeaderName = "X-Robots-Tag"

// metaRobots is the meta name of the page directives for every crawler.
const metaRobots = "robots"

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
		readList(&d, v, token, FromXRobotsTag, true)
	}
	return d
}

// ParseMetaRobots reads the robots meta tags in the head of an HTML
// document for the crawler whose product token is token: <meta
// name="robots"> and <meta name="{token}">, names and contents
// case-insensitive, their rules added up. It reads tags up to the first
// one that cannot be in a head (<body>, </head>, <div>, …) and at most
// MaxHeadScan octets; it builds no document tree.
func ParseMetaRobots(token string, html []byte) Directives { return ReadHead(token, html, nil) }

// ReadHead is ParseMetaRobots, which with tdm also reads the TDMRep meta
// tags (tdm-reservation, tdm-policy) into *tdm, in the same scan. A token
// of "" or "*" (no product token) reads only the "robots" tags.
func ReadHead(token string, html []byte, tdm *tdmrep.Declaration) Directives {
	var d Directives
	scanHead(html, func(name, content string) {
		switch {
		case strings.EqualFold(name, metaRobots):
			readList(&d, content, metaRobots, FromMeta, false)
		case token != "" && token != "*" && strings.EqualFold(name, token):
			readList(&d, content, name, FromMeta, false)
		case tdm != nil:
			tdm.AddMeta(name, content)
		}
	})
	return d
}

// Read reads the page directives of a response for token: its
// X-Robots-Tag headers, and for an HTML body (Content-Type text/html or
// application/xhtml+xml, or none and a body that sniffs as HTML, as
// Colly's OnHTML decides) the robots meta tags of its head. With tdm it
// also reads an HTML body's TDMRep meta tags into *tdm, in the same scan
// of its head.
func Read(token string, h http.Header, body []byte, tdm *tdmrep.Declaration) Directives {
	var d Directives
	if vs := h.Values(HeaderName); len(vs) > 0 {
		d = ParseXRobotsTag(token, vs...)
	}
	if IsHTML(h.Get("Content-Type"), body) {
		m := ReadHead(token, body, tdm)
		if !m.IsZero() {
			d.Add(m)
		}
	}
	return d
}

// isHTML reports whether Colly's OnHTML would parse a body of this type.
func IsHTML(contentType string, body []byte) bool {
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
