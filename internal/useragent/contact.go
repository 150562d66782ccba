package useragent

// This file judges whether a User-Agent lets a site tell which crawler is
// calling and how to reach its operator: a name of the crawler's own (not
// a framework's default) and a contact (an http(s) URL or an e-mail
// address), and writes the form the checks recommend.

import "strings"

// Recommended is the form of User-Agent the checks recommend: a
// "compatible;" element naming the crawler, its version, and a URL where
// site owners learn who runs it and how to reach them. FooBot stands for
// a crawler that has no name of its own yet; Recommend fills in the
// crawler's own.
const Recommended = "Mozilla/5.0 (compatible; FooBot/1.0; +https://example.com/bot)"

// Recommend returns Recommended for the crawler named token ("" or a
// framework's default: FooBot), with the version ua gives it, if any.
func Recommend(ua, token string) string {
	if token == "" || IsDefault(token) {
		return Recommended
	}
	version := "1.0"
	if i := indexFold(ua, token+"/"); i >= 0 {
		v := ua[i+len(token)+1:]
		n := 0
		for n < len(v) && (isAlnum(v[n]) || v[n] == '.' || v[n] == '-' || v[n] == '_') {
			n++
		}
		if n > 0 {
			version = v[:n]
		}
	}
	return "Mozilla/5.0 (compatible; " + token + "/" + version + "; +https://example.com/bot)"
}

// defaults are product tokens that name a framework, not a crawler:
// Colly's default User-Agent ("colly - https://github.com/gocolly/colly"),
// Go's net/http default, and the token the root package falls back to
// when the User-Agent is empty.
var defaults = [...]string{"colly", "Go-http-client", "robotsext"}

// IsDefault reports whether token is a framework's default ("colly",
// "Go-http-client", "robotsext", in any case), shared by every crawler
// built on it.
func IsDefault(token string) bool {
	for _, d := range defaults {
		if strings.EqualFold(token, d) {
			return true
		}
	}
	return false
}

// HasContact reports whether s carries an http or https URL (the scheme,
// "://" and a host) or an e-mail address (local@domain.tld).
func HasContact(s string) bool {
	for _, scheme := range [...]string{"http://", "https://"} {
		for i := 0; i+len(scheme) < len(s); {
			j := indexFold(s[i:], scheme)
			if j < 0 {
				break
			}
			if k := i + j + len(scheme); k < len(s) && isAlnum(s[k]) {
				return true
			}
			i += j + 1
		}
	}
	for i := strings.IndexByte(s, '@'); i >= 0; {
		if isMailbox(s, i) {
			return true
		}
		j := strings.IndexByte(s[i+1:], '@')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return false
}

// isMailbox reports whether the '@' at s[at] joins a local part and a
// domain of at least two labels, the last of two letters or more.
func isMailbox(s string, at int) bool {
	l := at
	for l > 0 && (isAlnum(s[l-1]) || strings.IndexByte(".!#$%&'*+/=?^_`{|}~-", s[l-1]) >= 0) {
		l--
	}
	r := at + 1
	for r < len(s) && (isAlnum(s[r]) || s[r] == '.' || s[r] == '-') {
		r++
	}
	domain := strings.TrimRight(s[at+1:r], ".")
	dot := strings.LastIndexByte(domain, '.')
	if l == at || dot <= 0 || len(domain)-dot-1 < 2 {
		return false
	}
	for _, c := range []byte(domain[dot+1:]) {
		if !isLetter(c) {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isAlnum(c byte) bool  { return isLetter(c) || c >= '0' && c <= '9' }

// Lacks says what a User-Agent lacks for a site to identify the crawler
// sending it, in the words of an error: "it names no crawler", "its
// product token "colly" is a framework's default, …", "it carries no
// contact (…)", joined with ", and "; "" when it lacks nothing. token is
// its product token, "" when it names none.
func Lacks(token string, noToken, defaultToken, noContact bool) string {
	var what []string
	if noToken {
		what = append(what, "it names no crawler")
	}
	if defaultToken {
		d := "its product token " + quote(token) + " is a framework's default, not the crawler's own name"
		if strings.EqualFold(token, "colly") {
			d += " (Colly's default User-Agent carries Colly's URL, not the operator's)"
		}
		what = append(what, d)
	}
	if noContact {
		what = append(what, "it carries no contact (no http(s) URL and no e-mail address)")
	}
	return strings.Join(what, ", and ")
}

func quote(s string) string { return `"` + s + `"` }
