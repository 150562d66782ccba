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
// replaced by xxxxx. It reads the text leniently, as a browser would (the
// authority after the scheme's colon and any slashes or backslashes, up to
// the next slash, backslash, ? or #), so that a URL no parser accepts is
// redacted too; it may redact more than a strict parser would, never less.
func redactRawURL(rawURL string) string {
	colon := strings.IndexByte(rawURL, ':')
	if colon < 0 {
		return rawURL
	}
	start := colon + 1
	for start < len(rawURL) && (rawURL[start] == '/' || rawURL[start] == '\\') {
		start++
	}
	end := start
	for end < len(rawURL) && !strings.ContainsRune(`/\?#`, rune(rawURL[end])) {
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
