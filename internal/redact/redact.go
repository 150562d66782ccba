// Package redact keeps credentials out of what robotsext and its commands
// print: a URL's userinfo ("user:password@") and the credentials of a
// Redis address are replaced by xxxxx wherever they would appear.
package redact

import (
	"net/url"
	"strconv"
	"strings"
)

// Mask is what a credential is printed as.
const Mask = "xxxxx"

// URL is u's text with its userinfo, if any, replaced by xxxxx.
// Without userinfo it is u.String().
func URL(u *url.URL) string {
	if u == nil {
		return ""
	}
	if u.User == nil {
		return u.String()
	}
	c := *u
	c.User = url.User(Mask)
	return c.String()
}

// RawURL is rawURL with the userinfo of its authority, if any,
// replaced by xxxxx. It reads the text leniently (the authority runs from
// after the scheme's colon and any slashes or backslashes to the next
// slash, ? or #, and its userinfo up to the last @ there), so that a URL
// no parser accepts is Mask too: it may redact more than net/url or a
// browser would, never less.
func RawURL(rawURL string) string {
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
	return rawURL[:start] + Mask + rawURL[start+at:]
}

// In is text (an error's, say) with every occurrence of rawURL, as
// is or quoted, Mask by RawURL.
func In(text, rawURL string) string {
	r := RawURL(rawURL)
	if r == rawURL {
		return text
	}
	q := strconv.Quote(rawURL)
	text = strings.ReplaceAll(text, q[1:len(q)-1], strings.Trim(strconv.Quote(r), `"`))
	return strings.ReplaceAll(text, rawURL, r)
}

// Credentials returns msg with the credentials of the -redis value addr (the
// user name and password of a redis://, rediss:// or unix:// URL) replaced
// by xxxxx, wherever they occur: as typed, percent-decoded and
// percent-encoded, since a message may quote the URL or a part of it. A
// user name is a secret too (Redis ACL users are often named for the
// service); "default", the name Redis gives the password-only user, is
// left as it is.
func Credentials(msg, addr string) string {
	for _, s := range credentials(addr) {
		msg = strings.ReplaceAll(msg, s, Mask)
	}
	return msg
}

// credentials returns the user information of addr, and its parts, in
// every spelling a message may hold, longest first.
func credentials(addr string) []string {
	_, rest, ok := strings.Cut(addr, "://")
	if !ok {
		return nil
	}
	// The user information ends at the last '@' before the path: a
	// password typed with a raw '@' or '/' is still all of it.
	at := strings.LastIndexByte(rest, '@')
	if at < 0 {
		return nil
	}
	info := rest[:at]
	user, pass, _ := strings.Cut(info, ":")
	var out []string
	add := func(s string) {
		if s == "" || s == "default" {
			return
		}
		for _, v := range []string{s, url.PathEscape(s), url.QueryEscape(s)} {
			out = append(out, v)
			if d, err := url.PathUnescape(v); err == nil {
				out = append(out, d)
			}
		}
	}
	add(info)
	add(pass)
	add(user)
	// Longest first, so that a part never breaks a longer spelling.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && len(out[j]) > len(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
