package useragent

// This file derives the crawler's product token, the name robots.txt
// user-agent lines are matched against (RFC 9309 §2.2.1), from a User-Agent
// header written the way real crawlers write theirs.

import (
	"strings"

	"github.com/robotsext/robotsext/internal/robotstxt"
)

// Token returns the product token robots.txt groups are
// matched against for a crawler sending the User-Agent header ua, or ""
// when ua names no crawler (then only "*" groups apply, and the caller
// should say so). A token is a run of letters, '-' and '_', and it is
// always cut from ua as robots.txt user-agent values are cut: at the first
// other character ("Googlebot-Image/1.0" gives "Googlebot-Image",
// "Foo2Bot" gives "Foo"). The rules, first match wins:
//
//  1. A "compatible;" element names the crawler: the token of the element
//     after it, as in "Mozilla/5.0 (compatible; AcmeBot/2.1; +url)" →
//     AcmeBot. The element need not open the comment ("(KHTML, like
//     Gecko; compatible; Googlebot/2.1; …)" → Googlebot), nor be in a
//     comment at all: OpenAI writes "(KHTML, like Gecko); compatible;
//     GPTBot/1.1; …". An element that is itself a browser token is not a
//     crawler and is skipped: LinkedIn's "LinkedInBot/1.0 (compatible;
//     Mozilla/5.0; Apache-HttpClient …)" falls through to rule 2, and an
//     old Internet Explorer's "(compatible; MSIE 9.0; …)" names nobody.
//  2. Otherwise the leading product token, unless it is a browser token:
//     "FooBot/1.0 (+url)" → FooBot, Colly's default "colly - https://…" →
//     colly, "Slackbot-LinkExpanding 1.0 (+url)" → Slackbot-LinkExpanding,
//     "Feedfetcher-Google; (+url)" → Feedfetcher-Google.
//  3. A browser-style User-Agent (one led by a browser token, "Mozilla" in
//     practice) may still
//     name its crawler without "compatible;": the first product that opens
//     a comment carrying a contact address (http, www. or '@'), as Apple's
//     "… Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)",
//     or the first element anywhere whose name ends in "bot", "spider" or
//     "crawler". Anything else in a browser-style User-Agent ("Chrome",
//     "Safari", "Build" in "Nexus 5X Build/MMB29P", …) is the browser it
//     imitates, and the result is "".
//
// Leading and trailing white space is ignored; empty or junk input gives
// "". The result is always a substring of ua. It never panics and runs in
// time linear in len(ua).
func Token(ua string) string {
	ua = strings.TrimSpace(ua)
	if t := compatibleToken(ua); t != "" {
		return t
	}
	lead := tokenPrefix(ua)
	if lead == "" {
		return ""
	}
	if !isBrowserToken(lead) {
		return lead
	}
	return crawlerInBrowserUA(ua)
}

// Reduce turns a WithUserAgent value into the product token to match.
// A bare token (letters, '-' and '_' only, such as "AcmeBot" or
// "Google-Extended") is returned as given with reduced false; so is "".
// Anything else, such as "AcmeBot/2.1", " AcmeBot " or a whole User-Agent,
// is reduced by the rules of Token with reduced true, so that
// the caller can say once which token it uses; the result may then be ""
// ("*", or a browser's User-Agent), which matches only "*" groups.
func Reduce(v string) (token string, reduced bool) {
	if IsToken(v) || v == "" {
		return v, false
	}
	return Token(v), true
}

// IsToken reports whether s is one or more token characters (letters,
// '-' and '_'): a product token as RFC 9309 §2.2.1 defines it, "*" aside.
func IsToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if !robotstxt.IsTokenChar(s[i]) {
			return false
		}
	}
	return s != ""
}

// tokenPrefix returns the leading run of token characters of s.
func tokenPrefix(s string) string {
	n := 0
	for n < len(s) && robotstxt.IsTokenChar(s[n]) {
		n++
	}
	return s[:n]
}

// compatibleToken returns the token named by the first "compatible;"
// element whose next element is not a browser token, or "". "compatible"
// must be a whole element: at the start, or after white space, '(', ';'
// or ','; white space may separate it from its ';'.
func compatibleToken(ua string) string {
	const word = "compatible"
	for i := 0; i+len(word) <= len(ua); {
		j := indexFold(ua[i:], word)
		if j < 0 {
			return ""
		}
		start := i + j
		i = start + len(word)
		if !elementStart(ua, start) {
			continue
		}
		k := skipSpace(ua, i)
		if k >= len(ua) || ua[k] != ';' {
			continue
		}
		k = skipSpace(ua, k+1)
		t := tokenPrefix(ua[k:])
		if t != "" && !isBrowserToken(t) {
			return t
		}
	}
	return ""
}

// crawlerInBrowserUA finds the crawler in a User-Agent that imitates a
// browser (rule 3 of Token), or returns "".
func crawlerInBrowserUA(ua string) string {
	commentEnd := -1        // index of the ')' closing the current comment
	contactComment := false // the current comment carries a contact address
	firstInComment := false // the next element opens the current comment
	for i := 0; i < len(ua); i++ {
		c := ua[i]
		switch {
		case c == '(' && commentEnd < 0:
			// Nested parentheses are plain text, so that every byte
			// is searched for a ')' at most once.
			end := strings.IndexByte(ua[i+1:], ')')
			if end < 0 {
				end = len(ua)
			} else {
				end += i + 1
			}
			commentEnd, firstInComment = end, true
			contactComment = commentHasContact(ua[i+1 : end])
			continue
		case i == commentEnd && c == ')':
			commentEnd, contactComment, firstInComment = -1, false, false
			continue
		case !robotstxt.IsTokenChar(c) || !elementStart(ua, i):
			continue
		}
		t := tokenPrefix(ua[i:])
		opens := firstInComment
		firstInComment = false
		i += len(t) - 1
		if isBrowserToken(t) {
			continue
		}
		product := i+1 < len(ua) && ua[i+1] == '/'
		if (opens && contactComment && product) || crawlerName(t) {
			return t
		}
	}
	return ""
}

// elementStart reports whether an element of a User-Agent may start at
// index i of ua: at the start, or after white space, '(', ';' or ','.
// Words inside URLs ("…/bot.html") and versions do not start elements.
func elementStart(ua string, i int) bool {
	if i == 0 {
		return true
	}
	switch ua[i-1] {
	case ' ', '\t', '(', ';', ',':
		return true
	}
	return false
}

// commentHasContact reports whether a comment carries a URL or an e-mail
// address, as crawlers' comments do and browsers' do not.
func commentHasContact(comment string) bool {
	return strings.IndexByte(comment, '@') >= 0 ||
		indexFold(comment, "http") >= 0 || indexFold(comment, "www.") >= 0
}

// crawlerName reports whether a token reads as a crawler's name: longer
// than, and ending in, "bot", "spider" or "crawler" (any case).
func crawlerName(t string) bool {
	for _, suffix := range [...]string{"bot", "spider", "crawler"} {
		if len(t) > len(suffix) && strings.EqualFold(t[len(t)-len(suffix):], suffix) {
			return true
		}
	}
	return false
}

// isBrowserToken reports whether t names a browser or rendering engine, as
// browser-style User-Agents list them; such a token never names a crawler.
func isBrowserToken(t string) bool {
	for _, b := range [...]string{
		"Mozilla", "MSIE", "Opera", "Trident", "Gecko", "KHTML", "AppleWebKit",
		"Chrome", "Safari", "Firefox", "Edge", "Edg", "Konqueror",
	} {
		if strings.EqualFold(t, b) {
			return true
		}
	}
	return false
}

// indexFold is strings.Index for an ASCII lower-case needle, ignoring the
// case of s; it allocates nothing and runs in O(len(s)·len(needle)).
func indexFold(s, needle string) int {
	for i := 0; i+len(needle) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(needle)], needle) {
			return i
		}
	}
	return -1
}

// skipSpace returns the index of the first byte at or after i that is not
// a space or a tab.
func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}
