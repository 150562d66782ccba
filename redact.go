package robotsext

// This file keeps credentials out of what the Extension logs and the
// errors it returns: a URL's userinfo ("user:password@") is replaced by
// xxxxx wherever a URL is printed. Header values (WithHeaders, the
// collector's Headers) are never printed at all, save the User-Agent.

import (
	"net/url"
	"strconv"
	"strings"
)

// redacted replaces a URL's userinfo in logs and error texts.
const redacted = "xxxxx"

// redactURL is u's text with its userinfo, if any, replaced by xxxxx.
// Without userinfo it is u.String().
func redactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	if u.User == nil {
		return u.String()
	}
	c := *u
	c.User = url.User(redacted)
	return c.String()
}

// redactRawURL is rawURL with the userinfo of its authority, if any,
// replaced by xxxxx. It reads the text leniently (the authority runs from
// after the scheme's colon and any slashes or backslashes to the next
// slash, ? or #, and its userinfo up to the last @ there), so that a URL
// no parser accepts is redacted too: it may redact more than net/url or a
// browser would, never less.
func redactRawURL(rawURL string) string {
	start := 0
	if i := strings.IndexAny(rawURL, ":/?#@"); i >= 0 && rawURL[i] == ':' {
		start = i + 1 // after the scheme
	}
	slashes := start
	for slashes < len(rawURL) && (rawURL[slashes] == '/' || rawURL[slashes] == '\\') {
		slashes++
	}
	if start == 0 && slashes < 2 {
		return rawURL // no scheme and no "//": a path, no authority
	}
	start = slashes
	end := start
	for end < len(rawURL) && !strings.ContainsRune("/?#", rune(rawURL[end])) {
		end++
	}
	at := strings.LastIndexByte(rawURL[start:end], '@')
	if at < 0 {
		return rawURL
	}
	return rawURL[:start] + redacted + rawURL[start+at:]
}

// redactIn is text (an error's, say) with every occurrence of rawURL, as
// is or quoted, redacted by redactRawURL.
func redactIn(text, rawURL string) string {
	r := redactRawURL(rawURL)
	if r == rawURL {
		return text
	}
	q := strconv.Quote(rawURL)
	text = strings.ReplaceAll(text, q[1:len(q)-1], strings.Trim(strconv.Quote(r), `"`))
	return strings.ReplaceAll(text, rawURL, r)
}
